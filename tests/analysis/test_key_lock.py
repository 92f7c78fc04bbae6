"""The key lock file as a survey author meets it: written by another version, edited or merged by hand."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

from helpers import run_cli

from surveytool.analysis.key_fates import lost_pin_findings
from surveytool.analysis.keys import assign_keys, identity_of, key_base, pinned_keys
from surveytool.model import Origin, Paper, Resolution, SourceLocation, frozen_mapping
from surveytool.text.normalize import normalize

CATALOG = """@article{c1,
  author = {Smith, John},
  title = {Deep Things Again},
  journal = {L},
  year = {2020},
  doi = {10.1234/abc},
}
"""
OWN = """@article{smith2020deep,
  author = {Smith, John},
  title = {Deep Things},
  journal = {J},
  year = {2020},
}
"""


def _folder(tmp_path: Path, lock: str | None = None) -> Path:
    (tmp_path / "catalog.bib").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "ids.txt").write_text("10.1234/abc\n", encoding="utf-8")
    (tmp_path / "own.bib").write_text(OWN, encoding="utf-8")
    if lock is not None:
        (tmp_path / "surveytool.lock.json").write_text(lock, encoding="utf-8")
    return tmp_path


def _bib(folder: Path, *sources: str):
    return run_cli("bib", *sources, "--catalog", "catalog.bib", "-o", "out.bib", cwd=folder)


def test_a_lock_file_of_another_version_is_refused_and_left_as_it_is(tmp_path):
    lock = '{\n  "version": 2,\n  "keys": {\n    "doi:10.1234/abc": "pinned"\n  }\n}\n'
    folder = _folder(tmp_path, lock)
    result = _bib(folder, "ids.txt")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "surveytool.lock.json:2: error: key lock file is version 2; this surveytool reads version 1 "
        "(use the surveytool that wrote it, or delete the file to let keys be given anew)"
    ]
    assert (folder / "surveytool.lock.json").read_text(encoding="utf-8") == lock
    assert not (folder / "out.bib").exists()


def test_a_lock_file_without_a_version_is_read_as_this_version(tmp_path):
    folder = _folder(tmp_path, '{"keys": {"doi:10.1234/abc": "pinned"}}')
    assert _bib(folder, "ids.txt").returncode == 0
    assert "@article{pinned," in (folder / "out.bib").read_text(encoding="utf-8")


def test_a_pin_given_twice_by_a_merge_is_refused_with_the_line_of_the_second(tmp_path):
    lock = '{\n  "version": 1,\n  "keys": {\n    "doi:10.1234/abc": "mine",\n    "doi:10.1234/abc": "theirs"\n  }\n}\n'
    result = _bib(_folder(tmp_path, lock), "ids.txt")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        'surveytool.lock.json:5: error: key lock file names "doi:10.1234/abc" twice; a key of one of them would '
        "be lost (keep one of the two lines: a merge of two branches may have left both)"
    ]


def test_a_pinned_key_another_entry_takes_is_reported_with_the_key_to_cite(tmp_path):
    folder = _folder(tmp_path)
    assert _bib(folder, "ids.txt").returncode == 0
    pins = json.loads((folder / "surveytool.lock.json").read_text(encoding="utf-8"))["keys"]
    assert pins == {"doi:10.1234/abc": "smith2020deep"}
    # The author then adds an entry of their own under that very key, in a file named first.
    result = _bib(folder, "own.bib", "ids.txt")
    assert result.returncode == 0
    written = (folder / "out.bib").read_text(encoding="utf-8")
    assert "@article{smith2020deep,\n  author = {Smith, John},\n  title = {Deep Things}," in written
    assert "@article{smith2020deepb," in written
    assert (
        "ids.txt:1: warning [duplicate-key] key 'smith2020deep', pinned to this paper in surveytool.lock.json, is "
        "taken by the entry at own.bib:1; bib -o and build write this paper under the new key 'smith2020deepb' "
        "(cite this paper as 'smith2020deepb', or give the entry at own.bib:1 another key)"
    ) in result.stderr.splitlines()
    # The pin stays: with the other entry renamed, the paper has its key back.
    pins = json.loads((folder / "surveytool.lock.json").read_text(encoding="utf-8"))["keys"]
    assert pins["doi:10.1234/abc"] == "smith2020deep"


def test_an_export_beside_a_lock_file_gives_each_paper_its_pinned_key_and_writes_no_lock(tmp_path):
    folder = _folder(tmp_path)
    assert _bib(folder, "ids.txt").returncode == 0
    lock = '{\n  "version": 1,\n  "keys": {\n    "doi:10.1234/abc": "smith2020again"\n  }\n}\n'
    (folder / "surveytool.lock.json").write_text(lock, encoding="utf-8")  # pinned under an older formula
    assert _bib(folder, "ids.txt").returncode == 0
    assert "@article{smith2020again," in (folder / "out.bib").read_text(encoding="utf-8")
    args = ("export", "ids.txt", "--catalog", "catalog.bib", "-f", "csl-json", "-o", "refs.json")
    run_cli(*args, cwd=folder, check=True)
    items = json.loads((folder / "refs.json").read_text(encoding="utf-8"))
    # pandoc cites the key the .bib has, and [tags] overrides name it: the CSL-JSON id must be that key.
    assert [(item["id"], item["citation-key"]) for item in items] == [("smith2020again", "smith2020again")]
    assert (folder / "surveytool.lock.json").read_text(encoding="utf-8") == lock
    (folder / "sub").mkdir()
    run_cli(*args[:-1], "sub/refs.json", cwd=folder, check=True)  # no lock beside it: keys by the formula
    assert json.loads((folder / "sub" / "refs.json").read_text(encoding="utf-8"))[0]["id"] == "smith2020deep"
    assert not (folder / "sub" / "surveytool.lock.json").exists()


def _snippet(line: int, text: str) -> Paper:
    return Paper(Origin.SNIPPET, (SourceLocation("l.txt", line),), frozen_mapping({"abstract": text}))


# Related-paper lists in Chinese or Greek: normalize keeps ASCII words only, and these have none.
FOREIGN = [
    "大规模语言模型的分布式训练需要在多个设备之间划分参数和计算，本文提出了一种新的流水线并行方法…",
    "另一个完全不同的中文摘要，描述了混合专家模型的路由方法以及负载均衡的损失函数设计与实验结果…",
    "Μεγάλα γλωσσικά μοντέλα εκπαιδεύονται σε πολλές συσκευές με παραλληλισμό δεδομένων και μοντέλων…",
]


def test_snippets_in_other_scripts_are_each_pinned_and_keep_their_keys_when_others_leave():
    snippets = [_snippet(n, text) for n, text in enumerate(FOREIGN, 1)]
    first, pins = assign_keys(snippets)
    keys = {p.sources: p.key for p in first}
    assert len(set(keys.values())) == 3 and len(pins) == 3  # one pin each, not one for all three
    for leaving in range(3):
        left = [s for n, s in enumerate(snippets) if n != leaving]
        again, _ = assign_keys(left[::-1], pins)
        assert [p.key for p in again] == [keys[p.sources] for p in again]
        assert lost_pin_findings(left[::-1], again, pinned_keys(left[::-1], pins)) == []


def test_a_snippet_in_another_script_keeps_the_key_an_older_lock_file_pinned_for_it():
    lone = _snippet(3, FOREIGN[2])
    [older] = [p for p in assign_keys([lone])[0]]
    # How surveytool pinned it before its words counted: by its ASCII words, which are none.
    ascii_words = "text:" + hashlib.sha1(b"|||").hexdigest()[:16]
    pins = {ascii_words: "megala-pinned"}
    [again], saved = assign_keys([lone], pins)
    assert again.key == "megala-pinned" and older.key != "megala-pinned"
    assert saved[identity_of(lone)] == "megala-pinned"  # pinned under its own identity from now on


def test_snippets_in_other_scripts_each_get_their_own_hash_in_their_key():
    # Hashed by their ASCII words, which are none, all three ended in -5572: the two Chinese ones told apart by a "b".
    bases = [key_base(_snippet(n, text)) for n, text in enumerate(FOREIGN, 1)]
    digests = [base.rsplit("-", 1)[1] for base in bases]
    assert len(set(digests)) == 3, bases
    assert [p.key for p in assign_keys([_snippet(n, t) for n, t in enumerate(FOREIGN, 1)])[0]] == bases


def test_a_latin_snippet_keeps_the_hash_of_its_ascii_words_in_its_key():
    text = "Sparse gating for mixture-of-experts routing…"  # too short for a fingerprint: keyed by its text
    snippet = _snippet(1, text)
    ascii_words = "text:" + hashlib.sha1(f"|{normalize(text)}||".encode()).hexdigest()[:16]
    assert identity_of(snippet) == ascii_words
    assert key_base(snippet) == "anon-sparse-" + hashlib.sha1(ascii_words.encode()).hexdigest()[:4]


def test_an_entry_renamed_for_a_duplicate_key_keeps_its_new_key_when_another_duplicate_comes():
    def entry(line: int, title: str) -> Paper:
        fields = {"title": title, "author": "Lee, Ann", "year": "2020", "journal": "J"}
        return Paper(Origin.BIBTEX, (SourceLocation("refs.bib", line),), frozen_mapping(fields), key="shared")

    first, second, third = entry(1, "Zebra Stripes"), entry(9, "Yak Herding"), entry(5, "Aardvark Burrows")
    keyed, pins = assign_keys([first, second])
    assert [p.key for p in keyed] == ["shared", "sharedb"]  # the warning said: cite this one as 'sharedb'
    again, _ = assign_keys([first, third, second], pins)
    assert [p.key for p in again] == ["shared", "sharedc", "sharedb"]


def test_a_key_pinned_for_a_paper_left_out_for_a_while_is_not_given_to_another():
    one = Paper(
        Origin.IDENTIFIER,
        (SourceLocation("ids.txt", 1),),
        frozen_mapping({"doi": "10.1234/one", "title": "Deep Things", "author": "Smith, John", "year": "2020"}),
        resolution=Resolution("catalog", "c1", "doi", 1.0),
    )
    two = replace(one, fields=frozen_mapping({**one.fields, "doi": "10.1234/two", "title": "Deep Things Again"}))
    [first], pins = assign_keys([one])
    assert first.key == "smith2020deep"
    [second], pins = assign_keys([two], pins)  # the line of "one" commented out, another paper added
    assert second.key == "smith2020deepb"
    both, _ = assign_keys([one, two], pins)  # "one" back: each keeps its key, and no pin is lost
    assert [p.key for p in both] == ["smith2020deep", "smith2020deepb"]
    assert lost_pin_findings([one, two], both, pinned_keys([one, two], pins)) == []


def test_one_key_pinned_to_two_papers_by_merged_lock_files_says_to_mend_the_lock(tmp_path):
    folder = _folder(tmp_path)
    (folder / "catalog.bib").write_text(CATALOG + CATALOG.replace("c1", "c2").replace("abc", "abd"), encoding="utf-8")
    (folder / "ids.txt").write_text("10.1234/abc\n10.1234/abd\n", encoding="utf-8")
    # Each branch pinned its own paper as smith2020deep; git merged the two lines without a conflict.
    lock = '{"version": 1, "keys": {"doi:10.1234/abc": "smith2020deep", "doi:10.1234/abd": "smith2020deep"}}'
    (folder / "surveytool.lock.json").write_text(lock, encoding="utf-8")
    result = _bib(folder, "ids.txt")
    assert result.returncode == 0
    assert [line for line in result.stderr.splitlines() if "[duplicate-key]" in line] == [
        "ids.txt:2: warning [duplicate-key] key 'smith2020deep' is pinned in surveytool.lock.json both to this "
        "paper and to the entry at ids.txt:1, which keeps it; bib -o and build write this paper under the new key "
        "'smith2020deepb' (cite this paper as 'smith2020deepb', and write that key in its pin in surveytool.lock.json)"
    ]


def test_a_title_with_a_greek_letter_keeps_the_key_an_older_lock_pinned_under_its_ascii_words():
    # Its identity now holds the α; the older lock's pin, under the title's ASCII words, was reserved for a paper
    # "not in this run", and the paper was renamed li2016renyib without a word.
    paper = Paper(
        Origin.ANCHOR,
        (SourceLocation("l.txt", 1),),
        frozen_mapping({"title": "Rényi α-divergence variational inference", "author": "Li, Y", "year": "2016"}),
    )
    older_lock = {"title:renyi divergence variational inference": "li2016renyi"}
    [keyed], pins = assign_keys([paper], older_lock)
    assert keyed.key == "li2016renyi" and pins[identity_of(paper)] == "li2016renyi"
    assert lost_pin_findings([paper], [keyed], pinned_keys([paper], older_lock)) == []


def _two_papers(folder: Path) -> None:
    """A second paper added to the list of the last run: its key is new, pinned by this run."""
    (folder / "catalog.bib").write_text(CATALOG + CATALOG.replace("c1", "c2").replace("abc", "abd"), encoding="utf-8")
    (folder / "ids.txt").write_text("10.1234/abc\n10.1234/abd\n", encoding="utf-8")


def test_a_lock_file_that_cannot_be_written_leaves_the_bib_as_it_was(tmp_path):
    # The .bib was written first: a lock the run could not replace left a .bib whose new keys were pinned nowhere.
    folder = _folder(tmp_path)
    assert _bib(folder, "ids.txt").returncode == 0
    before = (folder / "out.bib").read_bytes()
    _two_papers(folder)
    (folder / "surveytool.lock.json").chmod(0o444)
    result = _bib(folder, "ids.txt")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "surveytool.lock.json: error: is read-only" in result.stderr
    assert (folder / "out.bib").read_bytes() == before


def test_a_bib_stopped_after_its_keys_were_pinned_gets_the_pinned_keys_next_time(tmp_path):
    folder = _folder(tmp_path)
    _two_papers(folder)
    (folder / "out.bib").mkdir()  # the .bib cannot be moved into place: the run stops after the lock is
    assert _bib(folder, "ids.txt").returncode != 0
    pins = json.loads((folder / "surveytool.lock.json").read_text(encoding="utf-8"))["keys"]
    assert pins == {"doi:10.1234/abc": "smith2020deep", "doi:10.1234/abd": "smith2020deepb"}
    (folder / "out.bib").rmdir()
    assert _bib(folder, "ids.txt").returncode == 0
    written = (folder / "out.bib").read_text(encoding="utf-8")
    assert "@article{smith2020deep," in written and "@article{smith2020deepb," in written


def test_in_place_a_lock_file_that_cannot_be_written_leaves_the_users_bib_as_it_was(tmp_path):
    folder = _folder(tmp_path)
    run_cli("bib", "--in-place", "own.bib", cwd=folder, check=True)
    (folder / "surveytool.lock.json").chmod(0o444)
    result = run_cli("bib", "--in-place", "own.bib", "ids.txt", "--catalog", "catalog.bib", cwd=folder)
    assert result.returncode != 0 and "surveytool.lock.json: error: is read-only" in result.stderr
    assert (folder / "own.bib").read_text(encoding="utf-8") == OWN  # no entry added under a key pinned nowhere


def _build(folder: Path, *sources: str, reuse: str = "--reuse"):
    return run_cli("build", *sources, "--out", "out", reuse, "--no-figure", "--no-plot", cwd=folder)


def _outputs(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((folder / "out").iterdir()) if path.is_file()}


def test_a_build_with_a_lock_file_that_cannot_be_written_leaves_its_outputs_as_they_were(tmp_path):
    # The build moved its outputs into place, then failed on the lock: a .bib and chapter citing keys pinned nowhere.
    folder = _folder(tmp_path)
    assert _build(folder, "ids.txt", "--catalog", "catalog.bib", reuse="--no-reuse").returncode == 0
    before = _outputs(folder)
    _two_papers(folder)
    (folder / "out" / "surveytool.lock.json").chmod(0o444)
    result = _build(folder, "ids.txt", "--catalog", "catalog.bib", reuse="--no-reuse")
    assert result.returncode != 0 and "out/surveytool.lock.json: error: is read-only" in result.stderr
    assert _outputs(folder) == before


def test_a_build_stopped_after_its_keys_were_pinned_gets_the_pinned_keys_next_time(tmp_path):
    folder = _folder(tmp_path)
    _two_papers(folder)
    (folder / "out" / "references.bib").mkdir(parents=True)  # the .bib cannot be moved into place
    assert _build(folder, "ids.txt", "--catalog", "catalog.bib", reuse="--no-reuse").returncode != 0
    pins = json.loads((folder / "out" / "surveytool.lock.json").read_text(encoding="utf-8"))["keys"]
    assert pins == {"doi:10.1234/abc": "smith2020deep", "doi:10.1234/abd": "smith2020deepb"}


def test_a_patched_rebuild_with_a_lock_file_that_cannot_be_written_leaves_its_outputs_as_they_were(tmp_path):
    folder = _folder(tmp_path)
    assert _build(folder, "own.bib").returncode == 0
    before = _outputs(folder)
    added = "\n@article{jones2021,\n  author = {Jones, Ann},\n  title = {Wide Things},\n  year = {2021},\n}\n"
    (folder / "own.bib").write_text(OWN + added, encoding="utf-8")
    lock = folder / "out" / "surveytool.lock.json"
    lock.chmod(0o444)
    result = _build(folder, "own.bib")
    assert result.returncode != 0 and "out/surveytool.lock.json: error: is read-only" in result.stderr
    assert _outputs(folder) == before
    lock.chmod(0o644)
    patched = _build(folder, "own.bib")
    assert patched.returncode == 0 and "entries kept as they were" in patched.stdout  # the rebuild tested is patched
    assert "@article{jones2021," in (folder / "out" / "references.bib").read_text(encoding="utf-8")
    assert '"jones2021"' in lock.read_text(encoding="utf-8")


def test_a_draft_with_a_lock_file_that_cannot_be_written_leaves_the_chapter_as_it_was(tmp_path):
    folder = _folder(tmp_path)
    draft = ("draft", "ids.txt", "--catalog", "catalog.bib", "-o", "chapter.tex")
    run_cli(*draft, cwd=folder, check=True)
    before = (folder / "chapter.tex").read_bytes()
    _two_papers(folder)
    (folder / "surveytool.lock.json").chmod(0o444)
    result = run_cli(*draft, cwd=folder)
    assert result.returncode != 0 and "surveytool.lock.json: error: is read-only" in result.stderr
    assert (folder / "chapter.tex").read_bytes() == before  # no \cite of a key pinned nowhere


def test_a_cut_chinese_snippet_is_keyed_by_its_words_and_keeps_a_key_pinned_before():
    # Read as one cut word and thrown away, the text left no word for the key: anon-entry-....
    snippet = _snippet(1, FOREIGN[0])
    assert key_base(snippet).startswith("anon-dagui")
    pinned = {identity_of(snippet): "anon-entry-" + key_base(snippet).rsplit("-", 1)[1]}
    [keyed], pins = assign_keys([snippet], pinned)
    assert keyed.key == pinned[identity_of(snippet)] and pins == pinned

"""Duplicates in the user's .bib: reported, never merged unasked; merged on request only on pairwise evidence.

Each file under tests/data/duplicates is a trap seen in real bibliographies.
"""

import itertools
import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from helpers import BENCH, DATA, requires_latex, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveytool.analysis.merge import merge_records
from surveytool.bibtex.reader import read_bibtex
from surveytool.maintain import write_bib
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.output.rekey import rekey_text
from surveytool.pipeline import Options
from surveytool.sources.read import read_source
from surveytool.text.identifiers import arxiv_id_of_doi, normalize_doi
from surveytool.text.normalize import normalize

DUPLICATES = DATA / "duplicates"
ENTRY_KEY = re.compile(r"^@(?!string|comment|preamble)\w+\{([^,\s]+),", re.M | re.I)


def bib(tmp_path: Path, *names: str, options: tuple[str, ...] = ()) -> tuple[list[str], str]:
    """Run `surveytool bib -o` on data files copied into ``tmp_path``: the keys written and the messages."""
    for name in names:
        if (DUPLICATES / name).exists():
            shutil.copy(DUPLICATES / name, tmp_path / name)
    result = run_cli("bib", *names, "-o", "out.bib", *options, cwd=tmp_path, check=True)
    return ENTRY_KEY.findall((tmp_path / "out.bib").read_text(encoding="utf-8")), result.stderr


def findings(stderr: str, check: str) -> list[str]:
    return [line for line in stderr.splitlines() if f"[{check}]" in line]


def test_book_chapters_sharing_the_books_blurb_stay_apart_even_when_merging_is_asked(tmp_path):
    for options in ((), ("--merge-duplicates",)):
        keys, messages = bib(tmp_path, "book-chapters.bib", options=options)
        assert sorted(keys) == ["garcia2019memory", "lee2019compression", "smith2019scheduling"]
        suspicious = findings(messages, "suspicious-duplicate-id")
        assert len(suspicious) == 2 and all("share the same abstract, but their titles differ" in m for m in suspicious)
        assert not findings(messages, "duplicate-entry")


def test_a_junk_eprint_shared_by_papers_with_different_dois_is_a_suspicious_id_not_a_merge(tmp_path):
    keys, messages = bib(tmp_path, "junk-eprint.bib", options=("--merge-duplicates",))
    assert sorted(keys) == ["kim2020sparse", "ortiz2021graphs"]
    [message] = findings(messages, "suspicious-duplicate-id")
    assert message.startswith(
        "junk-eprint.bib:13: warning [suspicious-duplicate-id] 'ortiz2021graphs' (junk-eprint.bib:13) "
        "and 'kim2020sparse' (junk-eprint.bib:1) share the same arXiv id 2001.00001, but their DOIs "
        "differ (10.5555/jmlr.2020.001, 10.1145/3000000.3000001)"
    )


def test_recurring_column_titles_in_other_volumes_never_chain_into_one_entry(tmp_path):
    keys, messages = bib(tmp_path, "columns.bib")
    assert sorted(keys) == ["column2001", "column2002", "column2002again", "column2003"]
    [duplicate] = findings(messages, "duplicate-entry")  # only the true copy of volume 11
    assert duplicate.startswith(
        "columns.bib:31: warning [duplicate-entry] 'column2002again' (columns.bib:31) and "
        "'column2002' (columns.bib:11) look like the same work"
    )
    merged_keys, merged_messages = bib(tmp_path, "columns.bib", options=("--merge-duplicates",))
    assert sorted(merged_keys) == ["column2001", "column2002", "column2003"]
    assert "'column2002again' is merged into 'column2002'" in merged_messages


def test_a_preprint_and_its_published_version_are_reported_and_merged_only_on_request(tmp_path):
    keys, messages = bib(tmp_path, "preprint-published.bib")
    assert sorted(keys) == ["lepikhin2020gshard", "lepikhin2021gshard"]
    [duplicate] = findings(messages, "duplicate-entry")
    assert (
        "'lepikhin2021gshard' (preprint-published.bib:8) and 'lepikhin2020gshard' (preprint-published.bib:1) look "
        "like the same work"
        in duplicate
        and "both are kept" in duplicate
    )

    keys, messages = bib(tmp_path, "preprint-published.bib", options=("--merge-duplicates", "--dialect", "biblatex"))
    assert keys == ["lepikhin2020gshard"]  # the first entry keeps its key
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "ids = {lepikhin2021gshard}" in written and "International Conference on Learning Representations" in written
    assert (
        "preprint-published.bib:8: warning [duplicate-entry] 'lepikhin2021gshard' is merged into 'lepikhin2020gshard'"
        in messages
    )


def test_two_entries_of_one_work_with_different_biber_options_are_both_kept(tmp_path):
    keys, messages = bib(tmp_path, "biber-options.bib")
    assert sorted(keys) == ["knuth1984tex", "knuth1984tex-prefix"]
    [duplicate] = findings(messages, "duplicate-entry")
    assert "'knuth1984tex-prefix' (biber-options.bib:9) and 'knuth1984tex' (biber-options.bib:1)" in duplicate


def test_short_title_duplicates_with_the_same_authors_and_year_are_found_by_bib_and_check(tmp_path):
    keys, messages = bib(tmp_path, "short-title.bib")
    assert sorted(keys) == ["LayerNorm", "ba2016layer", "other2016layer"]
    [duplicate] = findings(messages, "duplicate-entry")
    assert "'LayerNorm' (short-title.bib:8) and 'ba2016layer' (short-title.bib:1)" in duplicate
    assert "the same short title, authors and year" in duplicate
    assert not any("other2016layer" in m for m in findings(messages, "duplicate-entry"))
    checked = run_cli("check", "short-title.bib", "--json", "--checks", "duplicate-entry", cwd=tmp_path)
    [found] = json.loads(checked.stdout)
    assert (found["key"], found["line"]) == ("LayerNorm", 8)


def test_a_duplicated_key_stays_with_the_first_entry_and_every_message_names_what_became_of_the_second(tmp_path):
    keys, messages = bib(tmp_path, "duplicate-keys.bib")
    assert sorted(keys) == ["copy", "shared", "sharedb"]
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    first = written[written.index("@article{shared,") :]
    assert first.split("}\n", 1)[0].count("The First Paper Under This Key") == 1  # \cite{shared} means the first entry
    assert (
        "duplicate-keys.bib:18: warning [duplicate-key] entry key 'shared' is used again here (the entry at "
        "duplicate-keys.bib:4 keeps it); bib -o and build write this entry under the new key 'sharedb'"
    ) in messages
    assert (
        "duplicate-keys.bib:25: warning [duplicate-key] entry key 'copy' is used again here by an identical copy of "
        "the entry at duplicate-keys.bib:12; bib -o and build leave this copy out"
    ) in messages
    [macro] = [m for m in findings(messages, "duplicate-key") if "mar" in m]
    assert macro.startswith("duplicate-keys.bib:2: warning [duplicate-key] @string 'mar' is defined again here")
    assert "entry key 'mar'" not in messages

    # --quiet prints only errors, and these: \cite{shared} no longer reaches the second entry.
    _, quiet = bib(tmp_path, "duplicate-keys.bib", options=("--quiet",))
    assert findings(quiet, "duplicate-key") == findings(messages, "duplicate-key")
    assert all("[duplicate-key]" in line or "error" in line for line in quiet.splitlines())

    parsed = run_cli("parse", "duplicate-keys.bib", "--json", cwd=tmp_path, check=True)
    aliases = {entry["key"]: entry["aliases"] for entry in json.loads(parsed.stdout)}
    assert aliases == {"copy": [], "shared": [], "sharedb": []}  # 'shared' is still a separate entry's key


def test_ids_and_snippets_still_merge_into_the_users_matching_entry(tmp_path):
    (tmp_path / "more.ids").write_text("arXiv:2006.16668\n", encoding="utf-8")
    keys, messages = bib(tmp_path, "preprint-published.bib", "more.ids")
    assert sorted(keys) == ["lepikhin2020gshard", "lepikhin2021gshard"]
    parsed = json.loads(
        run_cli("parse", "preprint-published.bib", "more.ids", "--json", cwd=tmp_path, check=True).stdout
    )
    merged = next(e for e in parsed if e["key"] == "lepikhin2021gshard")
    assert merged["sources"] == ["more.ids:1", "preprint-published.bib:8"]


def record(line: int, **fields: str) -> Paper:
    """A record without a user key (from an id list or a catalog): free to merge on evidence."""
    return Paper(origin=Origin.IDENTIFIER, sources=(SourceLocation("list.ids", line),), fields=frozen_mapping(fields))


def lines_and_findings(records: list[Paper]) -> tuple[list[list[int]], list[tuple[str, int, list[int]]]]:
    """Each merged paper's source lines (sorted), and each finding's check, line and the lines it names."""
    merged, found = merge_records(records)
    return sorted([s.line for s in p.sources] for p in merged), [
        (f.check, f.location.line if f.location else 0, sorted(s.line for s in f.places or ())) for f in found
    ]


@pytest.mark.parametrize("reverse", [False, True])
def test_a_merge_holds_for_every_pair_of_its_group_not_only_along_a_chain(reverse):
    volume_10 = record(1, title="Coming next issue", author="Editors", journal="Quarterly", volume="10", year="2001")
    undated = record(2, title="Coming next issue", author="Editors")  # agrees with either, but they disagree
    volume_11 = record(3, title="Coming next issue", author="Editors", journal="Quarterly", volume="11", year="2002")
    records = [volume_10, undated, volume_11]
    # The undated record could be either issue's: joining the first one read would depend on the input's order.
    assert lines_and_findings(records[::-1] if reverse else records) == (
        [[1], [2], [3]],
        [("suspicious-duplicate-id", 2, [1, 2, 3])],
    )


@pytest.mark.parametrize("reverse", [False, True])
def test_a_title_shared_by_two_first_authors_never_chains_through_a_record_naming_neither(reverse):
    # Each pair linked by the title agrees on first author and year, but Smith's and Jones's papers do not:
    # the record naming no author must not join them into one.
    smith = record(1, title="Scaling sparse expert models", author="Smith, Anna")
    anonymous = record(2, title="Scaling sparse expert models", year="2020")
    jones = record(3, title="Scaling sparse expert models", author="Jones, Bob", year="2020")
    records = [smith, anonymous, jones]
    lines, found = lines_and_findings(records[::-1] if reverse else records)
    assert lines == [[1], [2], [3]]
    assert found == [("suspicious-duplicate-id", 2, [1, 2, 3])]


def test_a_title_shared_by_two_first_authors_never_chains_through_a_record_joined_by_doi():
    # The DOI joins the first two (their authors may be written differently); the title then offers Jones's
    # paper, whose first author disagrees with the first record's: every pair of a group must agree.
    by_doi = record(1, doi="10.1/sparse", author="Smith, Anna")
    titled = record(2, doi="10.1/sparse", title="Scaling sparse expert models")
    jones = record(3, title="Scaling sparse expert models", author="Jones, Bob")
    lines, _ = lines_and_findings([by_doi, titled, jones])
    assert lines in ([[1, 2], [3]], [[1], [2], [3]]) and [3] in lines


RELATED_PAPERS = [
    "Large language models (LLMs) have shown remarkable capabilities across a wide range of natural language tasks. "
    f"However,{rest}…"
    for rest in (" their deployment on edge devices is limited by", " their training requires enormous clusters of", "")
]


@pytest.mark.parametrize("reverse", [False, True])
def test_a_cut_snippet_of_two_related_papers_loses_neither_paper_in_parse(tmp_path, reverse):
    snippets = RELATED_PAPERS[::-1] if reverse else RELATED_PAPERS
    (tmp_path / "d3.txt").write_text("\n\n".join(["Related papers: Quantum Widgets", *snippets]) + "\n")
    result = run_cli("parse", "--json", "d3.txt", cwd=tmp_path, check=True)
    entries = [e for e in json.loads(result.stdout) if e["abstract"]]
    assert sorted(e["abstract"] for e in entries) == sorted(RELATED_PAPERS)  # each its own entry, its own text
    assert all(len(e["sources"]) == 1 for e in entries)
    cut_line = 3 + 2 * snippets.index(RELATED_PAPERS[2])
    [ambiguous] = findings(result.stderr, "suspicious-duplicate-id")
    assert ambiguous.startswith(f"d3.txt:{cut_line}: warning [suspicious-duplicate-id] d3.txt:{cut_line} matches both")
    assert "merged into neither" in ambiguous


@pytest.mark.parametrize(
    ("second", "papers"),
    [
        ("and propose a compression method for gradients…", 2),  # the same opening sentence, then another paper
        ("and propose a pipeline schedule that overlaps…", 1),  # the same abstract, cut later
        ("and we propose a pipeline schedule…", 1),  # a copy with a word more in it
    ],
)
def test_snippets_that_open_alike_and_then_part_are_two_papers(tmp_path, second, papers):
    # 22 words in common were 'nearly' one abstract (0.96 alike): two papers of one list became one placeholder.
    opening = "We study the problem of training very large language models on clusters of commodity GPUs connected "
    snippets = [opening + "by slow networks, and propose a pipeline schedule…", opening + "by slow networks, " + second]
    (tmp_path / "list.txt").write_text("\n\n".join(["Related papers: Quantum Widgets", *snippets]) + "\n")
    entries = json.loads(run_cli("parse", "--json", "list.txt", cwd=tmp_path, check=True).stdout)
    assert len([e for e in entries if e["abstract"]]) == papers


CHAINED_BIB = """\
@article{smith2020scaling, title = {Scaling sparse expert models}, author = {Smith, Anna}}
@article{scaling2020, title = {Scaling sparse expert models}, year = {2020}}
@article{jones2020scaling, title = {Scaling sparse expert models}, author = {Jones, Bob}, year = {2020}}
"""
SHARED_DOI_BIB = """\
@article{lepikhin2021gshard, doi = {10.5555/gshard}, title = {GShard: Scaling giant models}, journal = {ICLR}}
@article{gshard, doi = {10.5555/gshard}, author = {Lepikhin, Dmitry}}
@article{lepikhin2021other, doi = {10.5555/gshard}, title = {Another paper entirely}, journal = {JMLR}}
"""


@pytest.mark.parametrize("text", [CHAINED_BIB, SHARED_DOI_BIB], ids=["title-chain", "shared-doi"])
@pytest.mark.parametrize("reverse", [False, True])
def test_a_bib_entry_matching_two_different_entries_is_merged_into_neither(tmp_path, text, reverse):
    lines = text.splitlines(keepends=True)
    (tmp_path / "chain.bib").write_text("".join(lines[::-1] if reverse else lines), encoding="utf-8")
    keys, messages = bib(tmp_path, "chain.bib", options=("--merge-duplicates",))
    assert sorted(keys) == sorted(ENTRY_KEY.findall(text))  # three works kept, none absorbed
    middle = ENTRY_KEY.findall(text)[1]
    [ambiguous] = [m for m in findings(messages, "suspicious-duplicate-id") if "merged into neither" in m]
    assert f"'{middle}'" in ambiguous.split(" matches both ")[0]
    assert "' is merged into '" not in messages


def test_records_each_matching_works_that_are_not_one_are_grouped_the_same_in_any_order():
    # Under one DOI: two titles, a volume 1 and a volume 2, and a record stating only the DOI. Each of the last
    # three matches two works that are not one; any join among them would pick one by the order of the input.
    stated = {
        "p": "title = {Sparse mixture of experts at scale}",
        "q": "title = {Pipeline parallel training of giants}",
        "r": "note = {}",
        "s": "volume = {1}",
        "t": "volume = {2}",
    }
    groupings = set()
    for order in itertools.permutations(stated):
        text = "".join(f"@article{{{key}, doi = {{10.1000/d}}, {stated[key]}}}\n" for key in order)
        merged, _ = merge_records(read_bibtex(text, "x.bib").papers, merge_user_entries=True)
        groupings.add(tuple(sorted(tuple(sorted((p.key, *p.aliases))) for p in merged)))
    assert groupings == {(("p",), ("q",), ("r",), ("s",), ("t",))}


def test_rekey_rewrites_only_the_cited_keys_keeping_bytes_line_endings_mode_and_symlink(tmp_path):
    for name in ("preprint-published.bib",):
        shutil.copy(DUPLICATES / name, tmp_path / name)
    original = (
        "Caf\xe9 \\cite{lepikhin2021gshard, other}\r\n% \\cite{lepikhin2021gshard}\r\n"
        "\\citep[see][p.~2]{ lepikhin2021gshard }\r\n"
    ).encode("latin-1")
    paper = tmp_path / "paper.tex"
    paper.write_bytes(original)
    paper.chmod(0o640)
    (tmp_path / "link.tex").symlink_to("paper.tex")

    dry = run_cli("rekey", "preprint-published.bib", "--tex", "link.tex", "--dry-run", cwd=tmp_path, check=True)
    assert "link.tex:1: lepikhin2021gshard -> lepikhin2020gshard" in dry.stdout and paper.read_bytes() == original

    done = run_cli("rekey", "preprint-published.bib", "--tex", "link.tex", cwd=tmp_path, check=True)
    assert "2 citation key(s) rewritten in 1 file(s)" in done.stdout
    assert paper.read_bytes() == original.replace(b"{lepikhin2021gshard,", b"{lepikhin2020gshard,").replace(
        b"{ lepikhin2021gshard }", b"{ lepikhin2020gshard }"
    )  # the commented-out \cite stays as it was
    assert (tmp_path / "link.tex").is_symlink() and stat.S_IMODE(paper.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.tex", "paper.tex", "preprint-published.bib"]


def test_rekey_text_leaves_keys_that_were_not_merged_and_text_outside_citations():
    text = "key old here \\citet{old,new} and \\cites{old}[p]{x}\n"
    assert rekey_text(text, {"old": "new"})[0] == "key old here \\citet{new} and \\cites{new}[p]{x}\n"
    shown = "Type \\verb|\\cite{old}| % \\cite{old}\n\\begin{verbatim}\\cite{old}\\end{verbatim}\\cite{old}"
    assert rekey_text(shown, {"old": "new"})[0] == shown.removesuffix("{old}") + "{new}"


def test_rekey_without_tex_files_is_bad_usage(tmp_path):
    shutil.copy(DUPLICATES / "columns.bib", tmp_path / "columns.bib")
    assert run_cli("rekey", "columns.bib", cwd=tmp_path).returncode == 2


@pytest.mark.parametrize("edit", ["insert above", "edit elsewhere"])
def test_a_rebuild_after_an_edit_names_the_duplicates_where_they_now_are(tmp_path, edit):
    shutil.copy(DUPLICATES / "short-title.bib", tmp_path / "refs.bib")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    text = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    if edit == "insert above":
        text = "@misc{zz, title = {Something Else Entirely Here}}\n\n" + text
    else:
        text = text.replace("A Workshop", "Another Workshop")
    (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
    rebuilt = run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    fresh = run_cli("build", "refs.bib", "--out", "fresh", "--no-reuse", cwd=tmp_path, check=True)
    assert findings(rebuilt.stderr, "duplicate-entry") == findings(fresh.stderr, "duplicate-entry")
    shift = 2 if edit == "insert above" else 0
    assert f"'LayerNorm' (refs.bib:{8 + shift}) and 'ba2016layer' (refs.bib:{1 + shift})" in rebuilt.stderr


# --- every key accounted for: generated files, then every real .bib at hand ---

_FIELD_VALUES = {
    "title": [
        "Layer normalization",
        "Coming next issue",
        "Deep Things Here",
        "Scaling Giant Models Well",
        "Other Work",
    ],
    "author": ["Ba, Jimmy and Hinton, Geoffrey", "Editors", "Lee, Ann", "Ann Lee"],
    "year": ["2016", "2017", "2020"],
    "doi": ["10.1/a", "10.1/b", "10.48550/arXiv.2006.16668"],
    "eprint": ["2006.16668", "2001.00001v2"],
    "journal": ["Quarterly", "Nature"],
    "volume": ["10", "11"],
    "pages": ["1--10", "11--20", "5"],
    "abstract": [
        "We study how one shared blurb of a handbook can be copied into every chapter of the book by a "
        "publisher's export, which makes chapters look alike.",
        "A different abstract of thirty words or so, "
        "about nothing in particular, written only so that two records can share it or not in these tests.",
    ],
}
_entries = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c", "k1", "k2", "dup"]),
        st.dictionaries(st.sampled_from(sorted(_FIELD_VALUES)), st.integers(0, 4), max_size=6),
    ),
    min_size=1,
    max_size=8,
)


def _render(entries) -> str:
    blocks = []
    for key, chosen in entries:
        fields = "".join(
            f"  {name} = {{{_FIELD_VALUES[name][i % len(_FIELD_VALUES[name])]}}},\n" for name, i in chosen.items()
        )
        blocks.append(f"@article{{{key},\n{fields}}}\n")
    return "\n".join(blocks)


def _first_page(pages: str) -> str:
    return normalize(re.split(r"-|–|—", pages)[0])


def _disagreement(a: Paper, b: Paper) -> str:
    """What a merged pair must never disagree on, judged here independently of surveytool's merge code."""
    doi_a, doi_b = a.fields.get("doi", ""), b.fields.get("doi", "")
    if (
        doi_a
        and doi_b
        and not arxiv_id_of_doi(doi_a)
        and not arxiv_id_of_doi(doi_b)
        and normalize_doi(doi_a) != normalize_doi(doi_b)
    ):
        return "doi"
    if a.fields.get("title") and b.fields.get("title") and normalize(a.fields["title"]) != normalize(b.fields["title"]):
        return "title"
    if (
        a.fields.get("volume")
        and b.fields.get("volume")
        and normalize(a.fields["volume"]) != normalize(b.fields["volume"])
    ):
        return "volume"
    if (
        a.fields.get("pages")
        and b.fields.get("pages")
        and _first_page(a.fields["pages"]) != _first_page(b.fields["pages"])
    ):
        return "pages"
    return ""


def account_for_keys(path: Path, out: Path, merge: bool) -> None:
    """`bib -o` of ``path``: every key read is written or named in a message; no merged pair disagrees."""
    read = read_source(path, str(path))
    survey = write_bib(Options(sources=(path,), bundled_catalog=False, merge_duplicates=merge), out)
    written = set(ENTRY_KEY.findall(out.read_text(encoding="utf-8")))
    messages = "\n".join(f"{f.message} {f.hint}" for f in survey.findings)
    lost = sorted({p.key for p in read.papers if p.key not in written and f"'{p.key}'" not in messages})
    assert not lost, f"{path.name}: keys dropped without a message: {lost[:10]}"
    by_source = {p.sources[0]: p for p in read.papers}
    for paper in survey.papers:
        members = [by_source[s] for s in paper.sources if s in by_source]
        if not merge:
            assert len({m.key for m in members}) <= 1, f"{path.name}: {[m.key for m in members]} merged unasked"
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                assert not _disagreement(a, b), (
                    f"{path.name}: {a.key} and {b.key} merged; their {_disagreement(a, b)} differ"
                )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=_entries, merge=st.booleans())
def test_every_key_of_any_bib_is_written_or_named_in_a_message(tmp_path, entries, merge):
    source = tmp_path / "generated.bib"
    source.write_text(_render(entries), encoding="utf-8")
    account_for_keys(source, tmp_path / "out.bib", merge)


_BENCH = BENCH
REAL_FILES = sorted((DATA / "corpus" / "biber").glob("*.bib")) + sorted(_BENCH.glob("*.bib"))


def test_real_bibliographies_lose_no_key_silently_and_merge_no_disagreeing_pair(tmp_path):
    assert len(REAL_FILES) >= 40
    for path in REAL_FILES:
        for merge in (False, True):
            account_for_keys(path, tmp_path / "out.bib", merge)


def test_surveytool_toml_can_ask_for_merging_in_every_run_and_a_bad_value_is_bad_usage(tmp_path):
    (tmp_path / "surveytool.toml").write_text("[duplicates]\nmerge = true\n", encoding="utf-8")
    keys, messages = bib(tmp_path, "preprint-published.bib")
    assert keys == ["lepikhin2020gshard"] and "'lepikhin2021gshard' is merged into 'lepikhin2020gshard'" in messages
    # The command line wins over the settings, as for every other setting: one run may keep both entries.
    keys, messages = bib(tmp_path, "preprint-published.bib", options=("--no-merge-duplicates",))
    assert keys == ["lepikhin2020gshard", "lepikhin2021gshard"] and "is merged into" not in messages
    (tmp_path / "surveytool.toml").write_text('[duplicates]\nmerge = "yes"\n', encoding="utf-8")
    refused = run_cli("bib", "preprint-published.bib", "-o", "out.bib", cwd=tmp_path)
    assert refused.returncode == 2 and "[duplicates] merge must be true or false" in refused.stderr


def test_in_place_updates_never_merge_the_users_entries(tmp_path):
    shutil.copy(DUPLICATES / "preprint-published.bib", tmp_path / "refs.bib")
    refused = run_cli("bib", "--in-place", "refs.bib", "--merge-duplicates", cwd=tmp_path)
    assert refused.returncode == 2 and "--in-place never removes your entries" in refused.stderr
    (tmp_path / "surveytool.toml").write_text("[duplicates]\nmerge = true\n", encoding="utf-8")
    updated = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path, check=True)
    assert "is merged into" not in updated.stderr and "[duplicate-entry]" in updated.stderr
    assert ENTRY_KEY.findall((tmp_path / "refs.bib").read_text(encoding="utf-8")) == [
        "lepikhin2020gshard",
        "lepikhin2021gshard",
    ]


def test_a_merged_entrys_tag_findings_name_the_line_of_the_file_that_holds_each_tag(tmp_path):
    # The published entry (b.bib) is the merge's best record, but the preprint in a.bib is the first source.
    (tmp_path / "a.bib").write_text(
        "@misc{shazeer17,\n  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},\n"
        "  year = 2017,\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "b.bib").write_text(
        "@comment{three lines\nbefore\nthe entry}\n\n@inproceedings{shazeer2017,\n"
        "  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},\n"
        "  author = {Noam Shazeer},\n  booktitle = {ICLR},\n  year = 2017,\n  sections = {mixture-of-expert},\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "c.bib").write_text(
        "% a co-author's copy\n@misc{shazeer-moe,\n"
        "  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},\n"
        "  year = 2017,\n  sections = {Mixture of Experts, memoryy, mixture-of-expert},\n}\n",
        encoding="utf-8",
    )
    merged = run_cli("bib", "a.bib", "b.bib", "c.bib", "--merge-duplicates", "-o", "out.bib", cwd=tmp_path)
    assert merged.stderr.count("is merged into") == 2
    # Each tag where it was written, though the three records are one entry now.
    assert "b.bib:10: error [unknown-tag] tag 'mixture-of-expert'" in merged.stderr
    assert "c.bib:5: warning [tag-variant] tag 'Mixture of Experts'" in merged.stderr
    assert "c.bib:5: error [unknown-tag] tag 'memoryy'" in merged.stderr
    # A typo both files have is reported in both: one run shows every line to mend.
    assert "c.bib:5: error [unknown-tag] tag 'mixture-of-expert'" in merged.stderr


def test_build_merges_on_request_and_a_rebuild_without_the_option_writes_both_entries_again(tmp_path):
    shutil.copy(DUPLICATES / "preprint-published.bib", tmp_path / "refs.bib")
    run_cli(
        "build", "refs.bib", "--out", "out", "--dialect", "biblatex", "--merge-duplicates", cwd=tmp_path, check=True
    )
    written = (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert ENTRY_KEY.findall(written) == ["lepikhin2020gshard"] and "ids = {lepikhin2021gshard}" in written
    run_cli("build", "refs.bib", "--out", "out", "--dialect", "biblatex", cwd=tmp_path, check=True)
    written = (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert ENTRY_KEY.findall(written) == ["lepikhin2020gshard", "lepikhin2021gshard"] and "ids =" not in written


PAPER = (
    "\\documentclass{article}\n{preamble}\\begin{document}\n"
    "Preprint \\cite{lepikhin2020gshard}, published \\cite{lepikhin2021gshard}.\n{bibliography}\\end{document}\n"
)


def paper_tex(preamble: str, bibliography: str) -> str:
    return PAPER.replace("{preamble}", preamble).replace("{bibliography}", bibliography)


def compile_paper(folder: Path) -> None:
    """Compile paper.tex with latexmk and check that every citation was defined."""
    result = subprocess.run(
        ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )
    log = (folder / "paper.log").read_text(encoding="latin-1")
    assert result.returncode == 0, result.stdout[-2000:]
    assert "undefined" not in log.lower(), re.findall(r".*undefined.*", log)


@pytest.mark.latex
@requires_latex
def test_absorbed_keys_stay_citable_with_biblatex_and_are_rekeyed_for_bibtex(tmp_path):
    shutil.copy(DUPLICATES / "preprint-published.bib", tmp_path / "refs.bib")
    run_cli(
        "bib", "refs.bib", "-o", "merged.bib", "--merge-duplicates", "--dialect", "biblatex", cwd=tmp_path, check=True
    )
    biblatex = paper_tex(
        "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{merged.bib}\n", "\\printbibliography\n"
    )
    (tmp_path / "paper.tex").write_text(biblatex, encoding="utf-8")
    compile_paper(tmp_path)
    assert (tmp_path / "paper.bbl").read_text(encoding="utf-8").count("\\entry{") == 1  # one work, cited by either key

    plain = tmp_path / "bibtex"
    plain.mkdir()
    shutil.copy(DUPLICATES / "preprint-published.bib", plain / "refs.bib")
    run_cli("bib", "refs.bib", "-o", "merged.bib", "--merge-duplicates", cwd=plain, check=True)
    (plain / "paper.tex").write_text(
        paper_tex("", "\\bibliographystyle{plain}\n\\bibliography{merged}\n"), encoding="utf-8"
    )
    run_cli("rekey", "refs.bib", "--tex", "paper.tex", cwd=plain, check=True)
    compile_paper(plain)
    assert (plain / "paper.bbl").read_text(encoding="utf-8").count("\\bibitem") == 1


def test_a_csl_json_item_under_its_own_key_is_kept_beside_the_users_entry_and_merged_only_on_request(tmp_path):
    # Pandoc cites a CSL-JSON item by its id: absorbing it unasked would break [@ItemFromZotero].
    (tmp_path / "items.json").write_text(
        json.dumps(
            [
                {
                    "id": "ItemFromZotero",
                    "type": "article-journal",
                    "title": "Layer Normalization",
                    "issued": {"date-parts": [[2016]]},
                    "author": [
                        {"family": "Ba", "given": "Jimmy Lei"},
                        {"family": "Kiros", "given": "Jamie Ryan"},
                        {"family": "Hinton", "given": "Geoffrey E."},
                    ],
                }
            ]
        ),
        encoding="utf-8",
    )
    keys, messages = bib(tmp_path, "short-title.bib", "items.json")
    assert sorted(keys) == ["ItemFromZotero", "LayerNorm", "ba2016layer", "other2016layer"]
    # Located in the first source given, the user's .bib.
    assert (
        "short-title.bib:1: warning [duplicate-entry] 'ba2016layer' (short-title.bib:1) and 'ItemFromZotero' "
        "(items.json:1) look like the same work" in messages
    )
    keys, messages = bib(tmp_path, "short-title.bib", "items.json", options=("--merge-duplicates",))
    assert sorted(keys) == ["ba2016layer", "other2016layer"]
    assert (
        "items.json:1: warning [duplicate-entry] 'ItemFromZotero' is merged into 'ba2016layer' (--merge-duplicates)"
    ) in messages


def _csl_item(key: str, title: str, container: str, kind: str = "paper-conference") -> dict:
    return {
        "id": f"http://zotero.org/users/1/items/{key.upper()}",
        "citation-key": key,
        "type": kind,
        "title": title,
        "author": [{"family": "Smith", "given": "John"}],
        "container-title": container,
        "issued": {"date-parts": [[2020]]},
    }


def test_csl_json_items_with_citation_keys_are_never_merged_unasked(tmp_path):
    survey = "A Survey of Distributed Deep Learning"
    items = [
        _csl_item("smithPreface2020", "Preface", "Proceedings of the 1st Workshop on Distributed Training"),
        _csl_item("smithPreface2020a", "Preface", "Proceedings of the 5th Symposium on Parallel Systems"),
        _csl_item("smithSurvey2020", survey, "ACM Computing Surveys", "article-journal"),
        _csl_item("smithSurvey2020a", survey, "arXiv", "article-journal"),
    ]
    (tmp_path / "library.json").write_text(json.dumps(items), encoding="utf-8")
    keys, messages = bib(tmp_path, "library.json")
    assert sorted(keys) == sorted(item["citation-key"] for item in items)
    [duplicate] = findings(messages, "duplicate-entry")
    assert "'smithSurvey2020a' (library.json:1) and 'smithSurvey2020' (library.json:1)" in duplicate
    # Asked to merge, the survey's two versions merge; two prefaces in two proceedings are two works.
    keys, _ = bib(tmp_path, "library.json", options=("--merge-duplicates",))
    assert sorted(keys) == ["smithPreface2020", "smithPreface2020a", "smithSurvey2020"]


def test_a_library_exported_both_as_bib_and_as_csl_json_gives_one_entry_per_key(tmp_path):
    item = _csl_item("smith2020survey", "A Survey of Distributed Deep Learning", "ACM Computing Surveys")
    (tmp_path / "library.json").write_text(json.dumps([item]), encoding="utf-8")
    (tmp_path / "library.bib").write_text(
        "@inproceedings{smith2020survey,\n  author = {Smith, John},\n  title = {A Survey of Distributed Deep"
        " Learning},\n  booktitle = {ACM Computing Surveys},\n  year = {2020},\n}\n",
        encoding="utf-8",
    )
    keys, messages = bib(tmp_path, "library.bib", "library.json")
    assert keys == ["smith2020survey"]
    [copy] = findings(messages, "duplicate-key")
    assert (
        "info [duplicate-key] entry 'smith2020survey' here is an identical copy of the entry at library.bib:1" in copy
    )
    assert not findings(messages, "duplicate-entry")


SHORT_TITLES_IN_TWO_VENUES = """@inproceedings{preface1,
  author = {Smith, John}, title = {Preface}, year = {2020},
  booktitle = {Proceedings of the 1st Workshop on Distributed Training},
}
@inproceedings{preface2,
  author = {Smith, John}, title = {Preface}, year = {2020},
  booktitle = {Proceedings of the 5th Symposium on Parallel Systems},
}
@article{nature, author = {Wang, Li}, title = {Deep Learning}, journal = {Nature}, year = {2015}}
@article{science, author = {Wang, Li}, title = {Deep Learning}, journal = {Science}, year = {2015}}
@misc{nature-again, author = {Wang, Li}, title = {Deep learning}, year = {2015}}
"""


def test_a_short_title_in_another_venue_is_another_work_even_when_merging_is_asked(tmp_path):
    (tmp_path / "short.bib").write_text(SHORT_TITLES_IN_TWO_VENUES, encoding="utf-8")
    checked = run_cli("check", "short.bib", "--checks", "duplicate-entry", cwd=tmp_path)
    assert [line.split(" [")[0] for line in findings(checked.stdout + checked.stderr, "duplicate-entry")] == [
        "short.bib:11: warning"
    ]
    keys, messages = bib(tmp_path, "short.bib", options=("--merge-duplicates",))
    # The entry without a venue could be either journal's paper: it joins neither (joining the first it matches
    # would depend on the order of the file), and it can bridge no two venues.
    assert sorted(keys) == ["nature", "nature-again", "preface1", "preface2", "science"]
    [ambiguous] = findings(messages, "suspicious-duplicate-id")
    assert ambiguous.startswith("short.bib:11: warning [suspicious-duplicate-id] 'nature-again' (short.bib:11) matches")
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert written.count("journal = {Nature}") == written.count("journal = {Science}") == 1


GSCHOLAR_PREPRINT = """@article{huang2018gpipe,
  title={Gpipe: Efficient training of giant neural networks using pipeline parallelism},
  author={Huang, Yanping and Cheng, Youlong and Bapna, Ankur},
  journal={arXiv preprint arXiv:1811.06965},
  year={2018}
}
"""
GSCHOLAR_PUBLISHED = """@article{huang2019gpipe,
  title={Gpipe: Efficient training of giant neural networks using pipeline parallelism},
  author={Huang, Yanping and Cheng, Youlong and Bapna, Ankur},
  journal={Advances in neural information processing systems},
  volume={32},
  pages={103--112},
  year={2019}
}
"""


@pytest.mark.parametrize("first", ["preprint", "published"])
def test_a_merged_preprint_and_published_pair_cites_the_published_version_alone(tmp_path, first):
    pair = [GSCHOLAR_PREPRINT, GSCHOLAR_PUBLISHED]
    (tmp_path / "scholar.bib").write_text("\n".join(pair if first == "preprint" else pair[::-1]), encoding="utf-8")
    keys, _ = bib(tmp_path, "scholar.bib", options=("--merge-duplicates",))
    assert keys == (["huang2018gpipe"] if first == "preprint" else ["huang2019gpipe"])  # the key read first
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "journal = {Advances in neural information processing systems}" in written
    assert "year = {2019}" in written and "volume = {32}" in written and "pages = {103--112}" in written
    assert "arXiv preprint" not in written and "{2018}" not in written


def test_biblatex_ids_keep_the_users_own_beside_the_keys_merged_in(tmp_path):
    title = "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer"
    (tmp_path / "a.bib").write_text(
        f"@inproceedings{{shazeer17,\n  title = {{{title}}},\n  booktitle = {{ICLR}},\n  year = 2017,\n"
        "  ids = {shazeer-old},\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "b.bib").write_text(
        f"@misc{{shazeer2017,\n  title = {{{title}}},\n  year = 2017,\n}}\n", encoding="utf-8"
    )
    merged = run_cli(
        "bib", "a.bib", "b.bib", "--merge-duplicates", "--dialect", "biblatex", "-o", "-", cwd=tmp_path, check=True
    )
    assert "  ids = {shazeer-old,shazeer2017},\n" in merged.stdout
    alone = run_cli("bib", "a.bib", "--dialect", "biblatex", "-o", "-", cwd=tmp_path, check=True)
    assert "  ids = {shazeer-old},\n" in alone.stdout
    # The preprint's own ids too, whichever record the merge prefers; never the merged entry's own key.
    (tmp_path / "b.bib").write_text(
        f"@misc{{shazeer2017,\n  title = {{{title}}},\n  year = 2017,\n  IDS = {{moe-paper, shazeer17}},\n}}\n",
        encoding="utf-8",
    )
    for order in (("a.bib", "b.bib"), ("b.bib", "a.bib")):
        merged = run_cli(
            "bib", *order, "--merge-duplicates", "--dialect", "biblatex", "-o", "-", cwd=tmp_path, check=True
        )
        kept = {"a.bib": "shazeer17", "b.bib": "shazeer2017"}[order[0]]  # the entry read first keeps its key
        [ids] = re.findall(r"  ids = \{(.*)\},\n", merged.stdout)
        assert sorted(ids.split(",")) == sorted({"moe-paper", "shazeer-old", "shazeer17", "shazeer2017"} - {kept})


def test_two_entries_of_one_work_kept_apart_under_merge_duplicates_say_why_not_to_merge_them(tmp_path):
    # b.bib's 'x' is a.bib's key too: merged, \cite{x} would change meaning, so --merge-duplicates keeps them apart;
    # the hint used to ask for --merge-duplicates, which was given.
    (tmp_path / "a.bib").write_text(
        "@article{x, title = {Attention Is All You Need}, author = {Vaswani, A.}, year = 2017}\n"
    )
    (tmp_path / "b.bib").write_text(
        "@article{x, title = {Layer Normalization}, author = {Ba, Jimmy Lei}, year = 2016}\n"
        "@misc{y, title = {Layer Normalization}, author = {Ba, Jimmy Lei}, year = 2016, eprint = {1607.06450}}\n"
    )
    merged = run_cli("parse", "a.bib", "b.bib", "--merge-duplicates", cwd=tmp_path)
    [line] = [line for line in merged.stderr.splitlines() if "[duplicate-entry]" in line]
    assert line.endswith("(not merged: 'x' is also another entry's key; give each entry its own key, then merge)")
    plain = run_cli("parse", "a.bib", "b.bib", cwd=tmp_path)
    assert "or merge them with --merge-duplicates)" in plain.stderr


def test_two_entries_of_one_key_that_differ_only_in_a_character_s_spelling_are_one_and_in_markup_two(tmp_path):
    # {\"U}ber and Über are one text; \textbf{Über} is not Über: keeping one copy would lose the other's markup.
    entry = "@article{k1,\n  title = {%s unit tests},\n  author = {Roe, Ann},\n  year = {2020},\n}\n"
    (tmp_path / "a.bib").write_text(entry % "Über", encoding="utf-8")
    for other, copies in (('{\\"U}ber', 1), ("\\textbf{Über}", 2)):
        (tmp_path / "b.bib").write_text(entry % other, encoding="utf-8")
        printed = run_cli("bib", "a.bib", "b.bib", "-o", "-", cwd=tmp_path).stdout
        assert printed.count("@article{k1") == copies, (other, printed)


CHINESE_TITLES = ("基于BERT的文本分类", "基于BERT的命名实体识别", "基于BERT的文本分类")


def _zotero_item(number: int, title: str, author: tuple[str, str], year: int) -> dict:
    """An item of a Zotero CSL-JSON export: its id a URI, no citation key."""
    return {
        "id": f"http://zotero.org/users/1/items/{number}",
        "type": "article-journal",
        "title": title,
        "author": [{"family": author[0], "given": author[1]}],
        "issued": {"date-parts": [[year]]},
    }


def test_two_titles_in_chinese_that_share_only_their_latin_words_are_two_works(tmp_path):
    # Matching kept ASCII words only: both titles were "bert", and a Zotero export's two items (no citation keys,
    # one author, one year) were merged, the second paper gone without a word.
    items = [_zotero_item(n, title, ("张", "三"), 2020) for n, title in enumerate(CHINESE_TITLES, 1)]
    (tmp_path / "library.json").write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    keys, messages = bib(tmp_path, "library.json")
    assert len(keys) == 2  # the third item is the first again: one work
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "基于BERT的文本分类" in written and "基于BERT的命名实体识别" in written


def test_a_title_with_a_greek_letter_or_an_accent_is_one_work_however_its_accents_are_written(tmp_path):
    # Compared in every script, "Rényi α-..." and "Renyi α-..." (and Größe / Grösse) kept their accents: two works.
    titles = (
        "Rényi α-divergence variational inference",
        "Renyi α-Divergence Variational Inference",
        "Größe der Straße und Verkehr",
        "Grösse der Strasse und Verkehr",
    )
    items = [_zotero_item(n, title, ("Li", "Yingzhen"), 2016) for n, title in enumerate(titles, 1)]
    (tmp_path / "library.json").write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    keys, _ = bib(tmp_path, "library.json")
    assert len(keys) == 2


PUBLISHED = (
    "@inproceedings{huang2019neurips,\n  title = {GPipe: Efficient Training of Giant Neural Networks},\n"
    "  author = {Huang, Yanping and Cheng, Youlong},\n  booktitle = {NeurIPS},\n  year = {2019},\n}\n"
)
SHARED = (
    "@article{huang2019gpipe,\n  title = {Gpipe: Efficient training of giant neural networks},\n"
    "  author = {Huang, Yanping and Cheng, Youlong},\n  year = {2019},\n}\n"
)


@pytest.mark.parametrize("order", [("mine.bib", "coauthor.bib"), ("coauthor.bib", "mine.bib")])
def test_a_pair_of_entries_of_one_work_is_reported_once_when_a_coauthors_file_shares_one_of_them(tmp_path, order):
    # The copy an earlier `bib --in-place` added to mine.bib, and the co-author's entry it came from.
    (tmp_path / "mine.bib").write_text(PUBLISHED + "\n" + SHARED, encoding="utf-8")
    (tmp_path / "coauthor.bib").write_text(SHARED, encoding="utf-8")
    checked = run_cli("check", *order, "--checks", "duplicate-entry", cwd=tmp_path)
    lines = [line for line in checked.stderr.splitlines() if "[duplicate-entry]" in line]
    assert len(lines) == 1 and "'huang2019gpipe'" in lines[0] and "'huang2019neurips' (mine.bib:1)" in lines[0]
    assert checked.stdout.endswith("1 warning: duplicate-entry 1\n")
    updated = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", cwd=tmp_path)
    assert updated.stderr.count("[duplicate-entry]") == 1


SPARSE = (
    "@article{lee2020sparse,\n  title = {Sparse Attention for Long Documents},\n  author = {Lee, Kim},\n"
    "  journal = {TACL},\n  year = {2020},\n  doi = {10.1162/tacl_a_00001},\n}\n"
)
# Another paper carrying the same DOI, copied by mistake.
DENSE = (
    "@article{park2021dense,\n  title = {Dense Retrieval at Scale with Hard Negatives},\n  author = {Park, Jin},\n"
    "  journal = {TACL},\n  year = {2021},\n  doi = {10.1162/tacl_a_00001},\n}\n"
)


@pytest.mark.parametrize("order", [("mine.bib", "coauthor.bib"), ("coauthor.bib", "mine.bib")])
def test_two_works_sharing_a_doi_are_reported_once_when_a_coauthors_file_shares_one_of_them(tmp_path, order):
    (tmp_path / "mine.bib").write_text(SPARSE, encoding="utf-8")
    (tmp_path / "coauthor.bib").write_text(DENSE + "\n" + SPARSE, encoding="utf-8")
    checked = run_cli("check", *order, "--checks", "suspicious-duplicate-id", cwd=tmp_path)
    [line] = [line for line in checked.stderr.splitlines() if "[suspicious-duplicate-id]" in line]
    # Located in the first file given; the copy of lee2020sparse in coauthor.bib is the same work, not a third.
    if order[0] == "mine.bib":
        expected = "mine.bib:1: warning [suspicious-duplicate-id] 'lee2020sparse' (mine.bib:1) and 'park2021dense' "
        assert line.startswith(expected + "(coauthor.bib:1) share the same DOI 10.1162/tacl_a_00001")
    else:
        expected = "coauthor.bib:9: warning [suspicious-duplicate-id] 'lee2020sparse' (coauthor.bib:9) and "
        assert line.startswith(expected + "'park2021dense' (coauthor.bib:1) share the same DOI")
    updated = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", cwd=tmp_path)
    assert updated.stderr.count("[suspicious-duplicate-id]") == 1

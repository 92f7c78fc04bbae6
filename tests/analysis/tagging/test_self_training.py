"""Self-training (self_training.py): a library's sure entries teach the tagger, which tags the unsure ones again."""

from __future__ import annotations

import re

from helpers import run_cli

from surveytool.analysis.tagging.exemplars import Exemplar
from surveytool.analysis.tagging.self_training import (
    MIN_SURE_SHARE,
    RETAG_FLOOR,
    TEACHING_CONFIDENCE,
    Library,
    Taught,
    tag_twice,
    teachers,
)
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger, tag_papers
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.pipeline import Options, options_taxonomy

TAXONOMY = options_taxonomy(Options())
# A system the bundled corpus has never heard of, named in titles that say what it is, and one that does not.
SURE = [
    "Zorblax: sparse mixture-of-experts routing with expert parallelism",
    "Zorblax-2: scaling mixture-of-experts language models to trillions of parameters",
    "Load balancing the experts of Zorblax with a switch router",
    "Zorblax goes multilingual: gating networks for sparse experts",
]
UNSURE = "Training Zorblax faster"
OTHER_FIELD = "Deep residual learning for image recognition"


def _papers(*titles: str) -> list[Paper]:
    return [
        Paper(Origin.BIBTEX, (SourceLocation("lib.bib", n + 1),), frozen_mapping({"title": t}), key=f"key{n}")
        for n, t in enumerate(titles)
    ]


def _twice(tagger: Tagger, papers: list[Paper]):
    return tag_twice(tagger, papers, lambda chosen: chosen.tag_each)


def test_a_librarys_sure_entries_teach_the_tagger_its_own_names():
    tagger = Tagger(TAXONOMY)
    papers = _papers(*SURE, UNSURE)
    first = tagger.tag_each(papers)
    assert all(tags[0].section == "moe" and tags[0].score >= TEACHING_CONFIDENCE for tags in first[:-1])
    assert first[-1][0].section != "moe" and RETAG_FLOOR <= first[-1][0].score < DEFAULT_THRESHOLD
    again = _twice(tagger, papers)
    assert again[:-1] == first[:-1]  # the sure ones are not tagged again
    [primary, *_] = again[-1]
    assert primary.section == "moe" and primary.score >= DEFAULT_THRESHOLD
    assert "tagged again after learning from 4 sure entries of this library" in primary.evidence


def test_a_build_gives_the_section_the_library_taught():
    tagged, findings = tag_papers(_papers(*SURE, UNSURE), TAXONOMY)
    assert tagged[-1].primary_section == "moe"
    assert not findings


def test_without_sure_entries_nothing_is_tagged_again():
    tagger = Tagger(TAXONOMY)
    papers = _papers(UNSURE, OTHER_FIELD)
    assert not teachers(papers, tagger.tag_each(papers))
    assert _twice(tagger, papers) == tagger.tag_each(papers)


def test_an_entry_of_another_field_is_not_pulled_into_the_librarys_sections():
    tagger = Tagger(TAXONOMY)
    papers = _papers(*SURE, OTHER_FIELD)
    first = tagger.tag_each(papers)
    assert first[-1][0].score < RETAG_FLOOR
    assert _twice(tagger, papers)[-1] == first[-1]


def test_the_order_of_the_library_does_not_change_its_tags():
    tagger = Tagger(TAXONOMY)
    papers = _papers(*SURE, UNSURE, OTHER_FIELD)
    forward = dict(zip([p.key for p in papers], _twice(tagger, papers), strict=True))
    backward = dict(zip([p.key for p in papers[::-1]], _twice(tagger, papers[::-1]), strict=True))
    assert forward == backward


def test_a_general_library_with_few_sure_entries_teaches_nothing():
    """Most of a lab's bibliography is of other fields: its few sure entries do not teach a second pass."""
    tagger = Tagger(TAXONOMY)
    others = [f"Electronic structure of layered graphite, sample {n}" for n in range(20)]
    papers = _papers(*SURE, UNSURE, *others)
    first = tagger.tag_each(papers)
    assert len(teachers(papers, first)) == len(SURE) < MIN_SURE_SHARE * len(papers)
    assert _twice(tagger, papers) == first


def _exemplar(key: str) -> Exemplar:
    return Exemplar(key, f"title of {key}", "", ("moe",), 4.0, "user")


def test_a_patch_that_changes_what_the_library_teaches_is_refused_while_another_entry_is_unsure():
    last = Taught((_exemplar("a"), _exemplar("b")), frozenset({"u"}), frozenset({"a", "b", "u"}))
    assert last.active
    kept = Taught((_exemplar("b"),), frozenset(), frozenset({"a", "b"}))  # "a" edited: no longer sure
    assert last.beside({"a"}) == Library((_exemplar("b"),), 2)
    assert last.after_patch({"a"}, kept) is None  # "u" was tagged again with what "a" taught
    alone = Taught(last.teachers, frozenset(), frozenset({"a", "b"}))
    assert alone.after_patch({"a"}, kept) == Taught((_exemplar("b"),), frozenset(), frozenset({"a", "b"}))
    same = Taught(last.teachers, frozenset(), frozenset({"a", "b"}))  # "a" edited, as sure of the same text
    assert last.after_patch({"a"}, same) == last
    general = Taught((_exemplar("a"),), frozenset({"u"}), frozenset({"a", *"bcdefgh", "u"}))
    assert not general.active  # nothing was tagged again: what its one sure entry teaches does not matter
    assert general.after_patch({"a"}, Taught((), frozenset(), frozenset({"a"}))) is not None


def _bib(key: str, title: str, tags: str = "") -> str:
    return f"@article{{{key},\n  title = {{{title}}},\n" + (f"  sections = {{{tags}}},\n" if tags else "") + "}\n"


def _explained(tmp_path, entries: list[str]) -> tuple[dict[str, str], str]:
    """``tag --explain`` of a library of ``entries``: each entry's block by key, and the findings."""
    (tmp_path / "lib.bib").write_text("\n".join(entries), encoding="utf-8")
    result = run_cli("tag", "lib.bib", "--explain", cwd=tmp_path)
    blocks: dict[str, str] = {}
    for line in result.stdout.splitlines():
        if line and not line.startswith(" "):
            key = line.split()[0]
        blocks[key] = blocks.get(key, "") + line + "\n"
    return blocks, result.stderr


def test_explain_shows_the_section_the_library_taught_with_the_sure_entries_that_taught_it(tmp_path):
    blocks, _ = _explained(tmp_path, [_bib(f"sure{n}", t) for n, t in enumerate(SURE)] + [_bib("unsure", UNSURE)])
    block = blocks["unsure"]
    assert "primary   moe" in block and "tagged again after learning from 4 sure entries" in block
    assert "exemplar: sure" in block  # the second tagger's neighbours: what the library taught


def test_explain_shows_the_candidate_the_build_weighed_when_the_library_taught_nothing(tmp_path):
    """The entries whose tags name no section are tagged too (nothing is known of their words): with them the sure
    ones are too few to teach."""
    others = [_bib(f"todo{n}", f"Qwxz vprt zzy {n}", "to-read") for n in range(20)]
    blocks, findings = _explained(
        tmp_path, [_bib(f"sure{n}", t) for n, t in enumerate(SURE)] + [_bib("unsure", UNSURE), *others]
    )
    [review] = [line for line in findings.splitlines() if "[needs-review]" in line and "'unsure'" in line]
    section, score = re.search(r"the likeliest section, (\S+), is only ([\d.]+) sure", blocks["unsure"]).groups()
    assert f"belongs in '{section}'" in review and f"(confidence {float(score):.2f})" in review
    assert "tagged again" not in blocks["unsure"]
    assert "exemplar: corpus: " in blocks["unsure"]  # the tagged papers that pulled it towards its candidate

"""A library's own shares of the sections (label_shift.py): estimated from its entries, weighing the second pass."""

from __future__ import annotations

import pytest

from surveytool.analysis.tagging.blend import Blend
from surveytool.analysis.tagging.exemplars import Exemplar
from surveytool.analysis.tagging.label_shift import (
    SHARE_FLOOR,
    STRENGTH,
    entry_shares,
    expected_shares,
    library_shares,
    reweighted,
)
from surveytool.analysis.tagging.self_training import Taught, tag_twice
from surveytool.analysis.tagging.tagger import Tagger
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.pipeline import Options, options_taxonomy
from surveytool.rebuild.tagging_reuse import ReusingTagger

TAXONOMY = options_taxonomy(Options())
EVEN = [0.25, 0.25, 0.25, 0.25]


def _blend(confidence: list[float], background: float = 0.0) -> Blend:
    return Blend(("a", "b", "c", "d"), {}, [0.0] * 4, confidence, background=background)


def test_a_library_mostly_of_one_section_is_estimated_to_hold_more_of_it_than_the_model_expects():
    entries = [((0.7, 0.1, 0.1, 0.1), 1.0)] * 200 + [((0.1, 0.7, 0.1, 0.1), 1.0)] * 20
    shares = library_shares(entries, EVEN)
    assert shares[0] > 0.6 and shares[1] < 0.25 and shares[2] == shares[3]
    assert all(round(s, 2) == s and s >= SHARE_FLOOR for s in shares)
    assert sum(shares) == pytest.approx(1.0, abs=0.02)


def test_a_small_library_does_not_collapse_into_one_section():
    shares = library_shares([((1.0, 0.0, 0.0, 0.0), 1.0)] * 3, EVEN)
    assert shares[0] == round((STRENGTH * 0.25 + 3) / (STRENGTH + 3), 2)
    assert min(shares) > 0.2


def test_an_entry_of_no_section_counts_for_nothing():
    of_the_field = [((0.7, 0.1, 0.1, 0.1), 1.0)] * 40
    assert library_shares([*of_the_field, ((0.0, 1.0, 0.0, 0.0), 0.0)] * 1, EVEN) == library_shares(of_the_field, EVEN)


def test_no_section_is_ruled_out_however_few_entries_it_has():
    shares = library_shares([((1.0, 0.0, 0.0, 0.0), 1.0)] * 5000, [0.97, 0.01, 0.01, 0.01])
    assert min(shares) == SHARE_FLOOR


def test_reweighting_keeps_the_background_share_and_moves_the_sections():
    blend = _blend([0.3, 0.3, 0.1, 0.1], background=0.2)
    moved = reweighted(blend, [2.0, 1.0, 1.0, 1.0])
    assert sum(moved.confidence) == pytest.approx(0.8) and moved.background == 0.2
    assert moved.confidence[0] == pytest.approx(2 * moved.confidence[1])


def test_an_entrys_part_is_its_shares_of_the_sections_and_how_much_it_is_of_the_field():
    own, weight = entry_shares(_blend([0.4, 0.2, 0.1, 0.1], background=0.2))
    assert own == (0.5, 0.25, 0.125, 0.125) and weight == 0.8


def _paper(title: str, abstract: str = "") -> Paper:
    fields = {"title": title, **({"abstract": abstract} if abstract else {})}
    return Paper(Origin.BIBTEX, (SourceLocation("lib.bib", 1),), frozen_mapping(fields), key="k")


def _shares_favouring(tagger: Tagger, section: str) -> tuple[float, ...]:
    expected = expected_shares(tagger)
    assert expected is not None
    index = tagger.model.sections.index(section)
    return tuple(e * (30.0 if i == index else 1.0) for i, e in enumerate(expected))


def test_the_second_pass_weighs_a_titles_blend_by_the_librarys_shares_and_leaves_an_abstracts_to_its_rules():
    tagger = Tagger(TAXONOMY)
    title = "Scaling distributed training across many accelerators"
    plain = tagger.taught(()).tag(_paper(title))[0]
    other = next(s for s in ("memory", "communication", "pipeline-parallel") if s != plain.section)
    weighed = tagger.taught((), _shares_favouring(tagger, other))
    [primary, *_] = weighed.tag(_paper(title))
    assert primary.section == other
    assert any(line.startswith(f"this library's shares: {other} ") for line in primary.evidence), primary.evidence
    abstract = "We reduce the activation memory of training with recomputation and offloading to the host."
    assert weighed.tag(_paper(title, abstract)) == tagger.taught(()).tag(_paper(title, abstract))


def _exemplar(key: str) -> Exemplar:
    return Exemplar(key, f"title of {key}", "", ("moe",), 4.0, "user")


def test_what_the_shares_were_estimated_from_survives_the_snapshot():
    parts = (("a", ((0.5, 0.5), 1.0)),)
    taught = Taught((_exemplar("a"),), frozenset({"u"}), frozenset({"a", "u"}), parts, (0.6, 0.4), frozenset({"u"}))
    assert Taught.from_plain(taught.to_plain()) == taught


def test_a_patch_that_moves_the_librarys_shares_is_refused_while_another_entry_is_unsure():
    teachers = (_exemplar("a"), _exemplar("b"))
    parts = (("a", ((0.9, 0.1), 1.0)), ("b", ((0.9, 0.1), 1.0)), ("u", ((0.5, 0.5), 1.0)))
    last = Taught(teachers, frozenset({"u"}), frozenset({"a", "b", "u"}), parts, (0.6, 0.4), frozenset({"u"}))
    assert last.beside({"a"}).shares == parts[1:]
    alike = Taught(teachers, frozenset(), frozenset({"a"}), parts[:1], (0.6, 0.4))  # teachers: the library's
    assert last.after_patch({"a"}, alike) == last  # "a" read again, its part and the shares as they were
    moved = alike._replace(estimate=(0.62, 0.38))
    assert last.after_patch({"a"}, moved) is None  # "u" was tagged again by the shares as they were
    settled = last._replace(unsure=frozenset(), weighed=frozenset())
    assert settled.after_patch({"a"}, moved) == settled._replace(estimate=(0.62, 0.38))
    with_abstract = last._replace(weighed=frozenset())  # "u" has an abstract: the shares do not weigh it
    assert with_abstract.after_patch({"a"}, moved) == with_abstract._replace(estimate=(0.62, 0.38))


def test_a_library_that_starts_to_teach_is_built_in_full_to_keep_every_entrys_part():
    general = Taught((_exemplar("a"),), frozenset(), frozenset({"a", *"bcdefgh"}))
    assert not general.active  # so no entry's part was kept
    parts = (("b", ((1.0, 0.0), 1.0)),)
    now = Taught((_exemplar("a"), _exemplar("b")), frozenset(), frozenset({"b"}), parts, (0.9, 0.1))  # "b" now sure
    assert general.after_patch({"b"}, now) is None


def test_tags_memoised_under_one_librarys_shares_are_not_taken_under_anothers():
    tagger = Tagger(TAXONOMY)
    digests = {
        ReusingTagger(tagger.taught((), shares)).digest
        for shares in ((), _shares_favouring(tagger, "moe"), _shares_favouring(tagger, "memory"))
    }
    assert len(digests) == 3


def test_a_library_that_stops_teaching_keeps_no_parts_as_a_build_in_full_keeps_none():
    parts = (("a", ((0.9, 0.1), 1.0)), ("b", ((0.9, 0.1), 1.0)))
    last = Taught((_exemplar("a"), _exemplar("b")), frozenset(), frozenset({"a", "b"}), parts, (0.6, 0.4))
    unsure_now = Taught((_exemplar("b"),), frozenset(), frozenset({"a", *"cdefghij"}))  # "a" and eight more, unsure
    assert last.after_patch({"a"}, unsure_now) == Taught(unsure_now.teachers, frozenset(), frozenset("abcdefghij"))


def test_a_patch_that_reads_no_part_again_keeps_the_estimate_without_estimating_it_anew():
    parts = (("a", ((0.9, 0.1), 1.0)), ("b", ((0.9, 0.1), 1.0)))
    last = Taught((_exemplar("a"), _exemplar("b")), frozenset(), frozenset({"a", "b", "c"}), parts, (0.6, 0.4))
    assert last.beside({"c"}).estimate == (0.6, 0.4)  # "c" had no part (the tagger knew nothing of it)
    assert last.beside({"a"}).estimate == ()  # one part out: estimated anew
    told: list[Taught] = []
    tagger = Tagger(TAXONOMY)
    tag_twice(tagger, [], lambda chosen: chosen.tag_each, last.beside(set()), told.append)
    assert told[0].estimate == (0.6, 0.4)  # not what the model's own shares would give for these two-section parts


def test_the_unsure_entries_the_shares_weigh_are_those_known_by_their_title_alone():
    titles = [
        "Zorblax: sparse mixture-of-experts routing with expert parallelism",
        "Zorblax-2: scaling mixture-of-experts language models to trillions of parameters",
        "Load balancing the experts of Zorblax with a switch router",
    ]
    papers = [
        Paper(Origin.BIBTEX, (SourceLocation("lib.bib", n),), frozen_mapping({"title": t}), key=f"sure{n}")
        for n, t in enumerate(titles)
    ]
    papers.append(_keyed("bare", "Training Zorblax faster"))
    papers.append(_keyed("long", "Training Zorblax faster", "We scale training of large models."))
    told: list[Taught] = []
    tag_twice(Tagger(TAXONOMY), papers, lambda chosen: chosen.tag_each, None, told.append)
    assert {"bare", "long"} <= told[0].unsure and told[0].weighed == told[0].unsure - {"long"}


def _keyed(key: str, title: str, abstract: str = "") -> Paper:
    fields = {"title": title, **({"abstract": abstract} if abstract else {})}
    return Paper(Origin.BIBTEX, (SourceLocation("lib.bib", 9),), frozen_mapping(fields), key=key)

import pytest

from surveytool.analysis.tagging.tagger import Tagger, tag_papers
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.resources import default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())

# Abstracts of other fields that use the field's words: "pipeline", "memory", "communication", "languages".
OTHER_FIELDS = [
    (
        "Gradual typing for object-oriented languages",
        "Gradual typing lets static and dynamic languages meet in one program. We give a type system and a "
        "compilation pipeline that inserts casts, and show that the casts cost little at run time.",
    ),
    (
        "Phonon transport in silicon nanowires",
        "We measure the thermal conductivity of silicon nanowires from 20 to 300 K. Boundary scattering limits "
        "the phonon mean free path, and the energy carried per mode falls with the wire's diameter.",
    ),
    (
        "Wait-free queues with multiple enqueuers and dequeuers",
        "Concurrent data structures must reclaim memory safely. We present a wait-free queue whose operations "
        "finish in a bounded number of steps and whose communication between threads uses one atomic word.",
    ),
]

PIPELINE_PAPER = (
    "GPipe: efficient training of giant networks using pipeline parallelism",
    "Scaling up model capacity is an effective way to improve quality. We split a network into stages on "
    "several accelerators and pipeline micro-batches through them, with near-linear speedup.",
)


def paper(title: str, abstract: str, origin: Origin = Origin.BIBTEX) -> Paper:
    fields = frozen_mapping({"title": title, "abstract": abstract})
    return Paper(origin, (SourceLocation("refs.bib", 4),), fields, key="k")


@pytest.mark.parametrize(("title", "abstract"), OTHER_FIELDS, ids=["types", "phonons", "queues"])
def test_an_abstract_of_another_field_with_the_fields_words_is_left_to_place(title, abstract):
    # A phrase of the vocabulary in an abstract decided the section with confidence 0.9 or more, whatever the
    # title said: the abstract's map is fitted on papers that are all of the field.
    [tagged], findings = tag_papers([paper(title, abstract)], TAXONOMY)
    assert tagged.tags == ()
    assert [f.check for f in findings] == ["needs-review"]


def test_the_same_words_in_a_paper_of_the_field_still_place_it():
    [tagged], findings = tag_papers([paper(*PIPELINE_PAPER)], TAXONOMY)
    assert [t.section for t in tagged.tags][:1] == ["pipeline-parallel"]
    assert tagged.tags[0].score >= 0.8
    assert not findings


def test_how_likely_the_title_is_of_the_field_is_part_of_the_evidence():
    tagger = Tagger(TAXONOMY)
    [primary, *_] = tagger.tag(paper(*OTHER_FIELDS[0]))
    [line] = [e for e in primary.evidence if e.startswith("of the field, by its title: ")]
    assert float(line.rsplit(" ", 1)[1]) < 0.5
    assert primary.score < 0.5


def test_an_entry_of_a_related_paper_list_is_of_the_field_by_where_it_came_from():
    # The list names papers related to one of the field: its title need not show the field.
    tagger = Tagger(TAXONOMY)
    title, abstract = OTHER_FIELDS[2]
    listed = tagger.blend(paper(title, abstract, Origin.SNIPPET))
    from_bib = tagger.blend(paper(title, abstract))
    assert listed is not None and from_bib is not None
    assert listed.in_scope == 1.0
    assert from_bib.in_scope < 0.9
    assert listed.confidence == from_bib.confidence


def test_a_title_alone_is_not_weighed_twice():
    tagger = Tagger(TAXONOMY)
    title, _ = OTHER_FIELDS[1]
    blend = tagger.blend(Paper(Origin.BIBTEX, (), frozen_mapping({"title": title}), key="k"))
    assert blend is None or blend.in_scope == 1.0

"""The bundled corpus's labels carry over to a taxonomy of the user's own only for its sections that are
the default's under another id."""

from dataclasses import replace

from surveytool.analysis.tagging.exemplars import OUT_OF_SCOPE, corpus_exemplars
from surveytool.analysis.tagging.transfer import corpus_section_map
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.model import frozen_mapping
from surveytool.resources import default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())


def renamed(taxonomy, keep=None):
    """``taxonomy`` with ids of its own and no vocabulary; sections not in ``keep`` retitled and redescribed."""
    sections = []
    for n, section in enumerate(taxonomy.sections):
        changed = replace(section, id=f"mine-{n}", keywords=frozen_mapping())
        if keep is not None and section.id not in keep:
            changed = replace(changed, title=f"Topic {n} of my own", description=f"Papers I file as group {n}.")
        sections.append(changed)
    return replace(taxonomy, sections=tuple(sections), groups=(), path="mine.toml")


def test_the_default_taxonomy_takes_the_corpus_labels_as_they_are():
    mapping = corpus_section_map(TAXONOMY)
    assert mapping == {s: s for s in TAXONOMY.section_ids}
    assert {s for e in corpus_exemplars(TAXONOMY) for s in e.sections} <= {*TAXONOMY.section_ids, OUT_OF_SCOPE}


def test_sections_renamed_but_titled_alike_take_the_corpus_labels_under_their_own_ids():
    mine = renamed(TAXONOMY)
    mapping = corpus_section_map(mine)
    assert len(mapping) == len(TAXONOMY.sections) and mapping["moe"] == "mine-4"
    labels = {s for e in corpus_exemplars(mine) for s in e.sections}
    assert labels <= {*mine.section_ids, OUT_OF_SCOPE} and "mine-4" in labels


def test_sections_of_the_users_own_words_take_no_corpus_labels():
    only = {"moe", "gnn-training"}
    mine = renamed(TAXONOMY, keep=only)
    mapping = corpus_section_map(mine)
    assert set(mapping) == only
    primaries = {e.sections[0] for e in corpus_exemplars(mine)}
    assert primaries == {mapping["moe"], mapping["gnn-training"], OUT_OF_SCOPE}
    assert corpus_exemplars(renamed(TAXONOMY, keep=set())) == ()

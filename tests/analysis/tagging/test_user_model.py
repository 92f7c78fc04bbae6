"""The user's tags as a model of their own, and models that leave one exemplar out."""

import random

import pytest
from helpers import titled_entry as entry

from surveytool.analysis.tagging.exemplars import Exemplar, corpus_path, read_corpus, user_exemplars
from surveytool.analysis.tagging.features import features
from surveytool.analysis.tagging.learned import CentroidModel
from surveytool.analysis.tagging.tagger import Tagger
from surveytool.analysis.tagging.user_model import NEIGHBOUR_WEIGHT, NEIGHBOURS, user_scores
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.resources import default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())

# A habit of the user's the bundled corpus does not share: gradient compression filed as optimization.
COMPRESSION = [
    "Gradient Compression with Error Feedback for Distributed SGD",
    "Sparsified Gradient Exchange in Data-Parallel Training",
    "Quantized Gradients for Communication-Efficient Training",
    "Top-k Gradient Sparsification with Momentum Correction",
    "Low-Rank Gradient Compression for Large Models",
    "Adaptive Gradient Quantization across Workers",
    "Error-Compensated Gradient Compression at Scale",
    "Gradient Sparsification for Federated Clients",
]
UNSEEN = [
    "Layer-wise Gradient Compression for Transformers",
    "Gradient Sparsification on Multi-GPU Servers",
    "Residual Gradient Compression for Speech Models",
]

EXPERTS = [
    "Sparsely-Gated Mixture-of-Experts Layers",
    "Expert Parallelism for Mixture-of-Experts Training",
    "Routing Tokens to Experts with Load Balancing",
    "Switch Transformers with Sparse Experts",
    "Top-2 Gating in Mixture of Experts",
    "Scaling MoE Models with Expert Parallelism",
]


def tagger_of(titles, section):
    tagged = [entry(title, f"mine{n}", [section]) for n, title in enumerate(titles)]
    return Tagger(TAXONOMY, user_exemplars(tagged, TAXONOMY))


def test_a_user_who_files_papers_unlike_the_corpus_gets_the_next_ones_filed_their_way():
    tagger = tagger_of(COMPRESSION, "optimization")
    assert tagger.user_model is not None and tagger.user_model.weight > 0
    assert {tagger.tag(entry(title))[0].section for title in UNSEEN} == {"optimization"}
    tagger.user_model = None  # the blend without it: the corpus and the rules outvote the user's habit
    assert {tagger.tag(entry(title))[0].section for title in UNSEEN} == {"communication"}


def test_a_user_whose_tags_the_corpus_already_predicts_gets_no_model_of_their_own():
    assert tagger_of(EXPERTS, "moe").user_model is None


def test_a_handful_of_tagged_entries_is_too_few_to_weigh_a_users_habits():
    assert tagger_of(COMPRESSION[:4], "optimization").user_model is None


def test_the_users_nearest_entries_vote_for_their_sections_and_a_hidden_entry_not_for_itself():
    exemplars = [Exemplar(f"c{n}", title, "", ("communication",), 4.0, "user") for n, title in enumerate(COMPRESSION)]
    exemplars += [Exemplar(f"m{n}", title, "", ("moe",), 4.0, "user") for n, title in enumerate(EXPERTS)]
    model = CentroidModel(TAXONOMY.section_ids, exemplars)
    column = TAXONOMY.section_ids.index("communication")
    query = model.vector(features(COMPRESSION[0]))
    seen = [u - c for u, c in zip(user_scores(model, query, None), model.log_scores(query), strict=True)]
    assert seen[column] > NEIGHBOUR_WEIGHT * 0.99  # its own entry, at a cosine of 1, among them
    assert 0 < sum(seen) <= NEIGHBOUR_WEIGHT * NEIGHBOURS + 1e-9
    query = model.vector(features(COMPRESSION[0]), leave_out=0)
    hidden = [u - c for u, c in zip(user_scores(model, query, 0), model.log_scores(query, 0), strict=True)]
    assert 0 < hidden[column] < seen[column]
    assert "c0" not in [e.key for _, e in model.nearest(query, NEIGHBOURS, leave_out=0)]


@pytest.mark.parametrize("index", range(0, 60, 7))
def test_a_left_out_exemplar_is_scored_as_by_a_model_that_never_saw_it(index):
    # A user's tagged entries: papers of the field (the corpus's background rows are no section of theirs).
    rows = [r for r in read_corpus(corpus_path()) if r.split == "train" and r.sections[0] != "out-of-scope"][:60]
    exemplars = [Exemplar(f"e{n}", r.title, "", r.sections, 4.0, "user") for n, r in enumerate(rows)]
    sections = TAXONOMY.section_ids
    found = features(exemplars[index].title)
    everything = CentroidModel(sections, exemplars)
    left_out = everything.log_scores(everything.vector(found, leave_out=index), index)
    others = CentroidModel(sections, exemplars[:index] + exemplars[index + 1 :])
    retrained = others.log_scores(others.vector(found))
    # Rarity weights and the complement's scale are the full model's: close to, not equal to, a retrained one.
    assert max(abs(a - b) for a, b in zip(left_out, retrained, strict=True)) < 0.1


def test_tags_drawn_at_random_get_no_model_even_when_each_entry_is_there_twice():
    # A preprint and its conference version: hiding one while its twin votes would make random tags look learnt.
    rows = [r for r in read_corpus(corpus_path()) if r.split == "train" and r.sections[0] != "out-of-scope"][:40]
    draw = random.Random(7)
    tagged = [(r.title, draw.choice(TAXONOMY.section_ids)) for r in rows]
    twice = [entry(title, f"{copy}{n}", [section]) for n, (title, section) in enumerate(tagged) for copy in "ab"]
    assert Tagger(TAXONOMY, user_exemplars(twice, TAXONOMY)).user_model is None


@pytest.mark.parametrize("count", [1, 3, 7, 50])
def test_the_nearest_exemplars_are_the_most_similar_of_all_of_them(count):
    rows = [r for r in read_corpus(corpus_path()) if r.split == "train"][:300]
    exemplars = [Exemplar(f"e{n:03d}", r.title, "", r.sections, 1.0, "user") for n, r in enumerate(rows)]
    model = CentroidModel(TAXONOMY.section_ids, exemplars)
    vectors = [model.vector(features(e.title)) for e in exemplars]
    for index in range(0, 300, 37):
        query = model.vector(features(exemplars[index].title), leave_out=index)
        every = [
            (round(sum(v * vector.get(f, 0.0) for f, v in query.items()), 4), e)
            for n, (e, vector) in enumerate(zip(exemplars, vectors, strict=True))
            if n != index and any(f in vector for f in query)
        ]
        every.sort(key=lambda item: (-item[0], item[1].key))
        assert model.nearest(query, count, leave_out=index) == every[:count]

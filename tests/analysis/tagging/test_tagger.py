import subprocess
import sys

import pytest
from helpers import BENCHMARKS

from surveytool.analysis.tagging.tagger import Tagger, tag_papers
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.model import Origin, Paper, Role, SourceLocation, frozen_mapping
from surveytool.resources import DEFAULT_TAXONOMY_NAME, default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())
BENCHMARK = BENCHMARKS / "tagging_accuracy.py"


def entry(abstract="", title="", tags=(), origin=Origin.SNIPPET):
    fields = {k: v for k, v in (("abstract", abstract), ("title", title)) if v}
    return Paper(origin, (SourceLocation("l.txt", 3),), frozen_mapping(fields), key="k", explicit_tags=tuple(tags))


def test_an_unknown_tags_hint_names_a_groups_sections_and_the_taxonomy_the_run_read(tmp_path):
    parallelism = [g for g in TAXONOMY.groups if g.id == "parallelism"][0].sections
    _, findings = tag_papers([entry("x", tags=("parallelism",), origin=Origin.BIBTEX)], TAXONOMY)
    assert findings[0].hint == f"'parallelism' is a group; name one of its sections: {', '.join(parallelism)}"
    # A hint to run `surveytool taxonomy` showed the bundled taxonomy, not the one the run read.
    mine = tmp_path / "my taxonomy.toml"
    mine.write_text('title = "T"\n[[sections]]\nid = "pipes"\ntitle = "Pipelines"\n', encoding="utf-8")
    _, findings = tag_papers([entry("x", tags=("zzz",), origin=Origin.BIBTEX)], load_taxonomy(mine, str(mine)))
    assert findings[0].hint == f"see `surveytool taxonomy --taxonomy '{mine}'` for the section ids"
    bundled = load_taxonomy(default_taxonomy(), DEFAULT_TAXONOMY_NAME)  # as a run without --taxonomy reads it
    _, findings = tag_papers([entry("x", tags=("zzz",), origin=Origin.BIBTEX)], bundled)
    assert findings[0].hint == "see `surveytool taxonomy` for the section ids"


def test_primary_and_secondary_with_evidence():
    paper = entry("We propose pipeline parallelism with micro-batches and activation recomputation to cut memory.")
    [tagged], findings = tag_papers([paper], TAXONOMY)
    assert [(t.section, t.role) for t in tagged.tags][:2] == [
        ("pipeline-parallel", Role.PRIMARY),
        ("memory", Role.SECONDARY),
    ]
    assert any("pipeline parallelism" in e for e in tagged.tags[0].evidence)
    assert not findings


def test_title_counts_more_than_abstract():
    paper = entry("Large models need large batch training.", title="Sparsely Activated Mixture-of-Experts")
    assert Tagger(TAXONOMY).tag(paper)[0].section == "moe"


@pytest.mark.parametrize(
    ("title", "section"),
    [
        # "graph" here is the program's, not a GNN's input graph.
        ("Optimizing Computation Graphs for Distributed Training", "model-parallel"),
        # Lists file a survey under surveys, whatever field its title names.
        ("Graph Neural Network Training Systems: A Survey", "surveys"),
    ],
)
def test_titles_whose_topic_word_misleads_are_given_the_section_lists_give_them(title, section):
    assert Tagger(TAXONOMY).tag(entry(title=title, origin=Origin.BIBTEX))[0].section == section


@pytest.mark.parametrize(
    ("title", "section"),
    [
        # Each names a method of its section in the field's own words, and no word of the old vocabulary.
        ("Task Arithmetic for Combining Fine-Tuned Language Models", "decentralized"),
        ("Zeroth-Order Fine-Tuning of Large Language Models", "optimization"),
        ("Training Binarized Convolutional Networks", "memory"),
        ("A Mixture of Attention Heads for Translation", "moe"),
        ("Learning Feature Interactions with Factorization Machines", "embeddings-recsys"),
    ],
)
def test_methods_named_in_the_fields_words_are_given_their_section_by_the_vocabulary(title, section):
    # The vocabulary alone: it carries to a library the bundled corpus never saw, where the model cannot.
    scores = Tagger(TAXONOMY).score(entry(title=title, origin=Origin.BIBTEX))
    assert max(scores, key=lambda s: scores[s][0]) == section
    assert Tagger(TAXONOMY).tag(entry(title=title, origin=Origin.BIBTEX))[0].section == section


@pytest.mark.parametrize(
    ("title", "section"),
    [
        # Lists file input pipelines, preprocessing and I/O stalls of training jobs with data parallelism.
        ("Removing the Data Preprocessing Bottleneck of Distributed Training Jobs", "data-parallel"),
        # A system for parallel training at large is filed with model parallelism (auto-parallel frameworks).
        ("A Unified System for Large-Scale Parallel Training", "model-parallel"),
    ],
)
def test_systems_titles_are_given_their_section_rather_than_left_to_place(title, section):
    [tagged], findings = tag_papers([entry(title=title, origin=Origin.BIBTEX)], TAXONOMY)
    assert tagged.primary_section == section and not findings


def test_explicit_tags_win_and_variants_and_typos_are_findings():
    paper = entry(
        "pipeline parallelism with micro batches", tags=("MoE", "comunication", "memory"), origin=Origin.BIBTEX
    )
    [tagged], findings = tag_papers([paper], TAXONOMY)
    assert [t.section for t in tagged.tags] == ["moe", "memory"]
    assert all(t.explicit for t in tagged.tags)
    by_check = {f.check: f for f in findings}
    assert by_check["unknown-tag"].hint == "did you mean 'communication'?"
    assert "'MoE'" in by_check["tag-variant"].message


def test_text_no_rule_matches_gets_a_learned_tag_marked_as_a_suggestion_or_nothing():
    [learned] = Tagger(TAXONOMY).tag(entry("Some real studies of jobs."))
    assert learned.suggested and learned.section in TAXONOMY.section_ids and learned.evidence
    assert Tagger(TAXONOMY).tag(entry("Lorem ipsum dolor sit amet.")) == ()
    [by_rules, *_] = Tagger(TAXONOMY).tag(entry("Scheduling clusters for recommendation workloads is hard, they say."))
    assert not by_rules.suggested and any(
        e.startswith("title: ") or e.startswith("abstract: ") for e in by_rules.evidence
    )


def test_tagging_is_deterministic():
    papers = [entry(a) for a in ("graph neural networks on large graphs", "gradient compression for all-reduce")]
    assert tag_papers(papers, TAXONOMY) == tag_papers(papers, TAXONOMY)


def test_primary_accuracy_on_the_seed_development_set():
    output = subprocess.run([sys.executable, str(BENCHMARK)], capture_output=True, text=True, check=True).stdout
    first = output.splitlines()[0]
    hits, total = map(int, first.split(": ")[1].split(" = ")[0].split("/"))
    assert total == 39 and hits / total >= 0.95, output


def test_tags_naming_no_section_are_written_back_as_the_user_wrote_them():
    from surveytool.bibtex.fields import bibtex_fields

    paper = entry(
        "pipeline parallelism with micro batches",
        title="A Title",
        tags=("MoE", "Computer Science - ML"),
        origin=Origin.BIBTEX,
    )
    [tagged], _ = tag_papers([paper], TAXONOMY)
    assert tagged.unknown_tags == ("Computer Science - ML",)
    assert dict(bibtex_fields(tagged))["sections"] == "{moe,Computer Science - ML}"
    only_unknown = entry("pipeline parallelism with micro batches", tags=("typo",), origin=Origin.BIBTEX)
    [tagged], _ = tag_papers([only_unknown], TAXONOMY)
    assert tagged.primary_section == "pipeline-parallel"  # placed in the chapter by the tagger...
    assert dict(bibtex_fields(tagged))["sections"] == "{typo}"  # ...but the user's field is left to the user


def test_a_phrase_at_the_end_of_a_system_name_counts_as_evidence():
    scores = Tagger(TAXONOMY).score(entry(title="SmartMoE: Efficient Training at Scale", origin=Origin.BIBTEX))
    assert scores["moe"][1] == ['title: "moe" (in SmartMoE)']


DOWN_WEIGHTED = """version = 1
title = "Graph Learning"

[[sections]]
id = "gnn"
title = "Graph Neural Networks"
[sections.keywords]
"graph neural network*" = 5
"recommend*" = -2

[[sections]]
id = "recsys"
title = "Recommendation"
[sections.keywords]
"recommend*" = 1
"""


def test_a_negative_keyword_weight_counts_against_its_section(tmp_path):
    # A title matching only the down-weighted phrase once stopped tagging with "math domain error".
    (tmp_path / "taxonomy.toml").write_text(DOWN_WEIGHTED, encoding="utf-8")
    taxonomy = load_taxonomy(tmp_path / "taxonomy.toml")
    recommending = entry(title="Graph neural networks for recommendation")
    rules = Tagger(taxonomy).blend(recommending).rules
    assert rules["gnn"][0] == (5 - 2) * 2 and rules["recsys"][0] == 1 * 2  # a title counts twice
    [tagged], _ = tag_papers([entry(title="Embedding tables to recommend items at scale")], taxonomy)
    assert tagged.tags[0].section == "recsys"


@pytest.mark.parametrize(
    "title",
    [
        # Papers of other fields that share a word with the taxonomy's vocabulary ("graph*", "energy", "annealing",
        # "memory", "merge*", "fault"): a general library holds many, and none belongs in a section.
        "Thermal expansion and heat capacity of graphite at low temperatures",
        "Binding energy of excitons in semiconductor quantum wells",
        "A simulated annealing heuristic for nurse rostering",
        "Register allocation by graph coloring in an optimizing compiler",
        "Lock-free memory reclamation for concurrent hash tables",
        "Merge conflicts in version control: an empirical study",
        "Fault localization in spreadsheets by program slicing",
    ],
)
def test_a_title_of_another_field_is_left_to_place(title):
    [tagged], findings = tag_papers([entry(title=title, origin=Origin.BIBTEX)], TAXONOMY)
    assert tagged.tags == ()
    assert [f.check for f in findings] == ["needs-review"]


@pytest.mark.parametrize(
    ("title", "section"),
    [
        ("Pipeline parallelism for training large transformer models on GPU clusters", "pipeline-parallel"),
        ("Reducing activation memory when training large language models", "memory"),
        ("Gradient compression for data-parallel training at scale", "communication"),
    ],
)
def test_a_title_of_the_field_in_the_same_words_is_still_placed(title, section):
    [tagged], findings = tag_papers([entry(title=title, origin=Origin.BIBTEX)], TAXONOMY)
    assert [t.section for t in tagged.tags][:1] == [section]
    assert not findings


def test_a_field_text_scored_again_gives_what_a_fresh_tagger_gives_in_lists_of_its_own():
    # What a field's text adds is kept per text: entries of one venue, and a taught tagger, share it.
    venue = "Workshop on Pipeline Parallelism and DeepSpeedMoE"

    def paper(title):
        fields = {"title": title, "booktitle": venue, "journal": venue}
        return Paper(Origin.BIBTEX, (SourceLocation("a.bib", 1),), frozen_mapping(fields), key=title)

    tagger = Tagger(TAXONOMY)
    first = tagger.score(paper("Sparse Expert Routing"))
    for _, evidence in first.values():
        evidence.append("a caller's own line")
    fresh = Tagger(TAXONOMY).score(paper("Gradient Compression"))
    assert any(line.startswith("booktitle: ") for _, evidence in fresh.values() for line in evidence)
    assert tagger.score(paper("Gradient Compression")) == fresh
    assert tagger.taught(()).score(paper("Gradient Compression")) == fresh

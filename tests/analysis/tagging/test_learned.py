"""The learned tagger beside the rules: confidence and abstention, the user's tags as exemplars,
`tag --evaluate`, the `tag-outlier` check and exemplars in `--explain`."""

import json

import pytest
from helpers import run_cli
from helpers import titled_entry as entry

from surveytool.analysis.tagging.features import paper_features
from surveytool.analysis.tagging.tagger import Tagger, tag_papers
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.config import load_tag_settings
from surveytool.errors import InputError
from surveytool.resources import default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())


def bib_entry(key, title, sections=None, year="2023"):
    tags = f"  sections = {{{sections}}},\r\n" if sections else ""
    return f"@inproceedings{{{key},\r\n  title = {{{title}}},\r\n  author = {{Doe, Jane}},\r\n{tags}  year = {{{year}}}\r\n}}\r\n\r\n"


# A deep-learning paper of no section of the field (an architecture, not how to train one at scale).
GENERAL = "Densely Connected Convolutional Networks"

# Papers about a topic the taxonomy's vocabulary does not name: the user's tags are the only teacher.
SPIKING = [
    ("spike1", "Spiking Neuromorphic Cores for Event-Driven Learning"),
    ("spike2", "A Neuromorphic Spiking Processor with On-Chip Plasticity"),
    ("spike3", "Event-Driven Spiking Neuromorphic Arrays at Wafer Scale"),
    ("spike4", "Neuromorphic Spiking Substrates: Energy per Synaptic Event"),
]


def test_a_computed_tag_carries_a_confidence_and_its_runner_up():
    [primary, *_] = Tagger(TAXONOMY).tag(entry("Sparsely-Gated Mixture-of-Experts Layers for Giant Models"))
    assert primary.section == "moe" and 0.5 < primary.score <= 1.0
    assert any(line.startswith("runner-up: ") for line in primary.evidence)


def test_names_in_a_title_that_contain_the_topic_are_split_into_words_the_model_knows():
    model = Tagger(TAXONOMY).model
    name = entry("ScalableMoE: Modeling and Optimizing Training")
    assert "scalablemoe" not in model.idf and "scalable" in model.idf  # a name of two words the model knows
    assert "moe" in model.vector(*paper_features(name))
    assert "moe" not in model.vector(paper_features(name)[0])  # only a title's words are split
    assert "moe" in model.vector(*paper_features(entry("MoE layers")))


def test_a_general_paper_is_left_to_place_with_its_two_best_candidates():
    [tagged], findings = tag_papers([entry(GENERAL)], TAXONOMY)
    assert tagged.tags == ()
    [finding] = findings
    assert finding.check == "needs-review" and finding.message.count("'") == 6  # the key and two candidates, quoted
    assert " or " in finding.message and finding.hint.startswith("add a tags field")


def test_a_lower_threshold_gives_the_best_section_anyway():
    [tagged], findings = tag_papers([entry(GENERAL)], TAXONOMY, threshold=0.0)
    assert tagged.primary_section in TAXONOMY.section_ids and not findings


def test_the_threshold_is_read_from_the_tag_table_of_the_settings_file(tmp_path):
    settings = tmp_path / "surveytool.toml"
    settings.write_text("[tag]\nthreshold = 0.8\n", encoding="utf-8")
    assert load_tag_settings(settings).threshold == 0.8
    settings.write_text("[tag]\nthreshold = 2\n", encoding="utf-8")
    with pytest.raises(InputError, match="threshold must be a number from 0 to 1"):
        load_tag_settings(settings)
    settings.write_text("[tag]\ntreshold = 0.3\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown setting"):
        load_tag_settings(settings)


def test_the_users_own_tags_teach_the_tagger_their_sections():
    untagged = entry("Spiking Neuromorphic Chips for Event-Driven Training", key="new")
    before = Tagger(TAXONOMY).tag(untagged)
    assert not before or before[0].section != "applications" or before[0].score < 0.5
    from surveytool.analysis.tagging.exemplars import user_exemplars

    # This user files neuromorphic hardware under applications, not where the corpus would put it.
    mine = [entry(title, key, ("applications",)) for key, title in SPIKING]
    [after, *_] = Tagger(TAXONOMY, user_exemplars(mine, TAXONOMY)).tag(untagged)
    assert after.section == "applications" and after.score >= 0.5


def test_bib_in_place_never_writes_a_tag_the_tagger_is_not_sure_of(tmp_path):
    mine = tmp_path / "my.bib"
    unsure = bib_entry("huang2017densely", GENERAL)
    sure = bib_entry(
        "shazeer2017outrageously", "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer"
    )
    mine.write_bytes((unsure + sure).encode("utf-8"))
    result = run_cli("bib", "--in-place", "my.bib", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = mine.read_bytes().decode("utf-8")
    assert text.startswith(unsure)  # not a byte changed: no tag written
    assert "sections = {moe" in text
    assert "[needs-review]" in result.stderr and "huang2017densely" in result.stderr


def test_the_chapter_lists_unsure_entries_to_place(tmp_path):
    (tmp_path / "my.bib").write_text(bib_entry("huang2017densely", GENERAL), encoding="utf-8")
    run_cli("build", "my.bib", "--out", "out", "-q", cwd=tmp_path, check=True)
    chapter = (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
    to_place = chapter[chapter.index("{Papers to Place}") :]
    assert "\\textbf{To place.}" in to_place and "huang2017densely" in to_place


def _tagged_library(tmp_path):
    entries = [bib_entry(key, title, "hardware-systems") for key, title in SPIKING]
    entries += [
        bib_entry(f"moe{n}", title, "moe")
        for n, title in enumerate(
            [
                "GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding",
                "Switch Transformers: Scaling to Trillion Parameter Models with Simple and Efficient Sparsity",
                "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer",
                "Tutel: Adaptive Mixture-of-Experts at Scale",
                "FasterMoE: Modeling and Optimizing Training of Large-Scale Dynamic Pre-Trained Models",
            ]
        )
    ]
    entries += [
        bib_entry(f"pipe{n}", title, "pipeline-parallel")
        for n, title in enumerate(
            [
                "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism",
                "PipeDream: Generalized Pipeline Parallelism for DNN Training",
                "Memory-Efficient Pipeline-Parallel DNN Training",
            ]
        )
    ]
    # Tagged by mistake: a mixture-of-experts paper filed under GNN training.
    entries.append(
        bib_entry(
            "wrong", "BASE Layers: Simplifying Training of Large, Sparse Mixture-of-Experts Models", "gnn-training"
        )
    )
    entries.append(bib_entry("untagged", "Neuromorphic Spiking Hardware for Event-Driven Learning at Scale"))
    (tmp_path / "lib.bib").write_text("".join(entries), encoding="utf-8")


def test_tag_evaluate_cross_validates_on_the_users_tags(tmp_path):
    _tagged_library(tmp_path)
    text = run_cli("tag", "lib.bib", "--evaluate", "-q", cwd=tmp_path, check=True).stdout
    assert "5-fold cross-validation on 13 entries you tagged (seed 0)" in text
    assert "primary accuracy: " in text and "confusions (your tag -> the tagger's):" in text
    assert "gnn-training -> moe: 1" in text
    figures = json.loads(run_cli("tag", "lib.bib", "--evaluate", "--json", "-q", cwd=tmp_path, check=True).stdout)
    assert figures["entries"] == 13 and figures["folds"] == 5
    right = sum(p["given"] == p["predicted"] for p in figures["predictions"])
    assert figures["accuracy"] == round(right / 13, 4) and right >= 10
    # The tagger gave 'gnn-training' to no entry: its precision has nothing to count.
    assert {"section": "gnn-training", "entries": 1, "precision": None, "recall": 0.0} in figures["sections"]
    again = json.loads(run_cli("tag", "lib.bib", "--evaluate", "--json", "-q", cwd=tmp_path, check=True).stdout)
    assert again == figures


def test_tag_evaluate_with_nothing_tagged_says_so_and_fails(tmp_path):
    (tmp_path / "lib.bib").write_text(bib_entry("untagged", "Pipeline parallel training"), encoding="utf-8")
    for extra in ((), ("--json",)):
        result = run_cli("tag", "lib.bib", "--evaluate", "-q", *extra, cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.startswith("lib.bib: error: no entry carries a tag naming a section")
        assert "with --tags-field" in result.stderr


def test_tag_outlier_reports_a_tag_its_neighbours_contradict(tmp_path):
    _tagged_library(tmp_path)
    result = run_cli("check", "lib.bib", "--checks", "tag-outlier", cwd=tmp_path)
    lines = [line for line in result.stderr.splitlines() if "[tag-outlier]" in line]
    assert len(lines) == 1, result.stderr
    assert "'wrong' is tagged 'gnn-training' but reads like 'moe'" in lines[0] and lines[0].startswith("lib.bib:")


def test_tag_outlier_is_silent_when_the_user_gave_the_section_it_would_suggest(tmp_path):
    """'check its tag: the tagger would put it in moe' was said of an entry the user had put in moe already."""
    _tagged_library(tmp_path)
    bib = tmp_path / "lib.bib"
    text = bib.read_bytes()  # CRLF, as written
    wrong = text.index(b"@inproceedings{wrong,")
    tagged = text[wrong:].replace(b"sections = {gnn-training}", b"sections = {gnn-training; Mixture-of-Experts}", 1)
    bib.write_bytes(text[:wrong] + tagged)
    result = run_cli("check", "lib.bib", "--checks", "tag-outlier", cwd=tmp_path)
    assert "[tag-outlier]" not in result.stderr and "Traceback" not in result.stderr


def test_explain_names_the_nearest_tagged_papers_of_each_computed_tag(tmp_path):
    _tagged_library(tmp_path)
    text = run_cli("tag", "lib.bib", "--explain", "-q", cwd=tmp_path, check=True).stdout
    block = text[text.index("untagged  (") :].split("\n\n")[0]
    assert "hardware-systems" in block.splitlines()[1]
    assert "exemplar: spike" in block


def test_the_models_digest_changes_with_anything_its_nearest_exemplars_hang_on():
    """A build reuses tags by the model's digest; ``nearest`` orders equal cosines by key, so keys count too."""
    from surveytool.analysis.tagging.exemplars import Exemplar
    from surveytool.analysis.tagging.learned import CentroidModel

    def digest(key: str) -> str:
        exemplars = [Exemplar(key, "Sparse experts", "", ("moe",), 4.0, "user")]
        return CentroidModel(("moe", "memory"), exemplars).digest

    assert digest("a") == digest("a") != digest("b")

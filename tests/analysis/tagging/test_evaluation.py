"""`tag --evaluate` on libraries too small or too odd to cross-validate as the README's example does: figures
with nothing to count, one tagged entry, tags that name no section, and options that do not go together."""

import json

from helpers import run_cli
from helpers import titled_entry as entry

from surveytool.analysis.tagging.evaluation import Evaluation, Prediction, evaluate, evaluation_report
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.resources import default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())
GPIPE = "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism"


def bib_entry(key: str, title: str, tags: str = "") -> str:
    field = f"  sections = {{{tags}}},\n" if tags else ""
    return f"@inproceedings{{{key},\n  title = {{{title}}},\n  author = {{Doe, Jane}},\n{field}  year = {{2020}}\n}}\n"


def test_a_figure_with_nothing_to_count_is_none_not_zero():
    # The tagger never gave 'gnn-training' (no precision) and the user never gave 'moe' (no recall).
    evaluation = Evaluation(
        (Prediction("a", "gnn-training", "moe", 0.95), Prediction("b", "pipeline-parallel", None, 0.0)), 2, 0.5
    )
    figures = evaluation.as_json()
    sections = {row["section"]: row for row in figures["sections"]}
    assert sections["gnn-training"]["precision"] is None and sections["gnn-training"]["recall"] == 0.0
    assert sections["moe"]["precision"] == 0.0 and sections["moe"]["recall"] is None
    bins = {(row["from"], row["to"]): row for row in figures["calibration"]}
    assert bins[(0.9, 1.0)] == {"from": 0.9, "to": 1.0, "entries": 1, "accuracy": 0.0}
    assert bins[(0.0, 0.2)]["accuracy"] is None  # an empty bin: no entry, not every entry wrong
    text = evaluation_report(evaluation)
    assert "gnn-training                   1         -    0.00" in text
    assert "moe                            0      0.00       -" in text


def test_no_sure_tag_at_all_has_no_accuracy():
    evaluation = Evaluation((Prediction("a", "moe", "moe", 0.2),), 1, 0.5)
    assert evaluation.as_json()["confident_accuracy"] is None
    assert "at confidence >= 0.5: 0 tagged, 0 right (-); 1 left to place" in evaluation_report(evaluation)


def test_one_tagged_entry_is_not_called_a_cross_validation():
    one = evaluate([entry(GPIPE, "a", ("pipeline-parallel",))], TAXONOMY)
    assert one.folds == 1 and len(one.predictions) == 1
    heading = evaluation_report(one).splitlines()[0]
    assert "cross-validation on" not in heading and "too few to cross-validate" in heading
    two = evaluate([entry(GPIPE, "a", ("pipeline-parallel",)), entry("Switch Transformers", "b", ("moe",))], TAXONOMY)
    assert evaluation_report(two).startswith("2-fold cross-validation on 2 entries you tagged (seed 0)\n")


def test_tags_that_name_no_section_are_told_at_the_first_of_them(tmp_path):
    (tmp_path / "lib.bib").write_text(
        bib_entry("a", GPIPE, "pipelines-of-mine") + bib_entry("b", "Switch Transformers", "experts-of-mine"),
        encoding="utf-8",
    )
    for extra in ((), ("--json",)):
        result = run_cli("tag", "lib.bib", "--evaluate", "-q", *extra, cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""
        last = result.stderr.splitlines()[-1]
        assert last.startswith("lib.bib:4: error: 2 entries carry tags, but none names a section of the taxonomy")
        assert "'pipelines-of-mine'" in last and "--taxonomy" in last


def test_explain_and_evaluate_together_are_refused_not_one_left_out(tmp_path):
    (tmp_path / "lib.bib").write_text(bib_entry("a", GPIPE, "pipeline-parallel"), encoding="utf-8")
    result = run_cli("tag", "lib.bib", "--evaluate", "--explain", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("error: --explain and --evaluate cannot be given together")


def test_evaluate_json_has_nulls_where_a_figure_has_nothing_to_count(tmp_path):
    (tmp_path / "lib.bib").write_text(
        bib_entry("a", GPIPE, "pipeline-parallel") + bib_entry("b", "Switch Transformers", "moe"), encoding="utf-8"
    )
    figures = json.loads(run_cli("tag", "lib.bib", "--evaluate", "--json", "-q", cwd=tmp_path, check=True).stdout)
    assert figures["entries"] == 2 and figures["folds"] == 2
    assert all(row["accuracy"] is None for row in figures["calibration"] if not row["entries"])


def test_two_entries_of_one_paper_are_held_out_together():
    """A fold that learned from a paper's other entry tagged it right by rote: the figures were too good."""
    # This user files a neuromorphic chip under surveys, twice (two keys of one paper): no other entry says so.
    spiking = "Spiking Neuromorphic Cores for Event-Driven Learning"
    papers = [
        entry(spiking, "chip2021", ("surveys",)),
        entry(spiking.upper(), "chip2021b", ("surveys",)),
        entry(GPIPE, "gpipe", ("pipeline-parallel",)),
        entry("Switch Transformers: Scaling to Trillion Parameter Models", "switch", ("moe",)),
        entry("ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", "zero", ("memory",)),
    ]
    evaluation = evaluate(papers, TAXONOMY)
    copies = [p for p in evaluation.predictions if p.key.startswith("chip")]
    assert [p.given for p in copies] == ["surveys", "surveys"]
    assert all(p.predicted != "surveys" for p in copies)
    assert evaluation.folds == 4 and len(evaluation.predictions) == 5  # four papers: a fifth fold holds none


def test_entries_of_one_paper_only_are_no_cross_validation():
    copies = [entry(GPIPE, "gpipe", ("pipeline-parallel",)), entry(GPIPE.lower(), "gpipe2", ("pipeline-parallel",))]
    evaluation = evaluate(copies, TAXONOMY)
    assert evaluation.folds == 1 and len(evaluation.predictions) == 2
    heading = evaluation_report(evaluation).splitlines()[0]
    assert heading == "2 entries you tagged, all of one paper, tagged as if you had not: too few to cross-validate"


def test_a_file_of_no_entry_is_named_when_there_is_nothing_to_evaluate(tmp_path):
    (tmp_path / "lib.bib").write_text("% nothing yet\n", encoding="utf-8")
    result = run_cli("tag", "lib.bib", "--evaluate", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("lib.bib: error: no entry was read: there is nothing to evaluate the tagger on")


SOSP = """@proceedings{DBLP:conf/sosp/2019,
  title     = {Proceedings of the 27th {ACM} Symposium on Operating Systems Principles, {SOSP} 2019},
  publisher = {{ACM}},
  year      = {2019},
  sections  = {hardware-systems},
}
"""


def dblp_child(key: str, title: str, tags: str = "") -> str:
    field = f"  sections  = {{{tags}}},\n" if tags else ""
    return f"@inproceedings{{{key},\n  title     = {{{title}}},\n  crossref  = {{DBLP:conf/sosp/2019}},\n{field}}}\n"


def test_a_volume_cited_through_its_papers_is_not_scored_as_a_paper(tmp_path):
    """The tagger places no @proceedings parent in a run: its title, scored as a miss, understated the accuracy."""
    children = dblp_child("DBLP:conf/sosp/NarayananHPSDGG19", "PipeDream: Generalized Pipeline Parallelism", "moe")
    (tmp_path / "lib.bib").write_text(
        children + bib_entry("gpipe", GPIPE, "pipeline-parallel") + SOSP, encoding="utf-8", newline="\r\n"
    )
    result = run_cli("tag", "lib.bib", "--evaluate", "--json", "-q", cwd=tmp_path, check=True)
    figures = json.loads(result.stdout)
    assert [p["key"] for p in figures["predictions"]] == ["DBLP:conf/sosp/NarayananHPSDGG19", "gpipe"]
    assert figures["entries"] == 2 and "hardware-systems" not in {row["section"] for row in figures["sections"]}


def test_tags_on_volumes_alone_are_said_to_be_on_volumes(tmp_path):
    (tmp_path / "lib.bib").write_text(dblp_child("DBLP:conf/sosp/X19", GPIPE) + SOSP, encoding="utf-8")
    result = run_cli("tag", "lib.bib", "--evaluate", "-q", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == "" and "Traceback" not in result.stderr
    assert result.stderr.startswith(
        "lib.bib:9: error: only volumes that entries name as their crossref parent carry tags "
        "(this one: 'DBLP:conf/sosp/2019')"
    )

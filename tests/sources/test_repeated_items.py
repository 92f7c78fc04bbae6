"""An item given twice in one related-paper list: read as one paper, and said so at the second one's line."""

import json

from helpers import run_cli

CHAPTER = (
    "This chapter surveys pipeline parallelism for training very large models across many accelerators, splitting "
    "each mini-batch into micro-batches that are processed by the stages of the pipeline…"
)
OTHER = "ZeRO removes the memory redundancy of data parallelism by partitioning optimizer states and gradients…"


def test_the_same_abstract_twice_in_a_list_is_reported_at_its_second_line(tmp_path):
    # A book chapter and its book share an abstract: the two items became one entry and nothing said so.
    # Windows-pasted, the second copy cut with "..." instead of "…".
    second = CHAPTER.replace("…", "...")
    text = f"Related papers: Efficient Large-Scale Training\r\n\r\n{CHAPTER}\r\n\r\n{OTHER}\r\n\r\n{second}\r\n"
    (tmp_path / "list.txt").write_bytes(text.encode("utf-8"))
    result = run_cli("parse", "list.txt", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "list.txt:7: warning [repeated-snippet] this snippet repeats the one at line 3" in result.stderr
    assert "give each its DOI or arXiv id" in result.stderr
    assert "[repeated-snippet]" not in result.stderr.replace("list.txt:7: warning [repeated-snippet]", "")
    entries = json.loads(result.stdout)
    sources = sorted(s for e in entries for s in e["sources"])
    assert sources == ["list.txt:1", "list.txt:3", "list.txt:5", "list.txt:7"]  # every item kept, none lost


def test_different_snippets_and_one_snippet_in_two_lists_are_no_repeat(tmp_path):
    # The same paper is related to two anchors: one snippet in two files is no mistake.
    for name, anchor in (("a.txt", "GShard"), ("b.txt", "GPipe")):
        (tmp_path / name).write_text(f"Related papers: {anchor}\n\n{CHAPTER}\n\n{OTHER}\n", encoding="utf-8")
    result = run_cli("parse", "a.txt", "b.txt", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "repeated-snippet" not in result.stderr
    assert len(json.loads(result.stdout)) == 4  # two anchors, two papers each listed by both


def test_two_lists_in_one_file_may_share_a_paper(tmp_path):
    # Two lists pasted into one file, each naming its anchor: a paper related to both is no repeat.
    one = f"Related papers: GShard\n\n{CHAPTER}\n\n{OTHER}\n"
    (tmp_path / "both.txt").write_text(f"{one}\n{one.replace('GShard', 'GPipe')}", encoding="utf-8")
    result = run_cli("parse", "both.txt", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "repeated-snippet" not in result.stderr
    sources = [s for e in json.loads(result.stdout) for s in e["sources"]]
    assert sorted(sources) == sorted(f"both.txt:{line}" for line in (1, 3, 5, 7, 9, 11))

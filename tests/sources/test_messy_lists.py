"""Messy related-paper lists: every paragraph read, duplicates merged across files, nothing lost."""

import json

from helpers import DATA, ROOT, run_cli

from surveytool.analysis.merge import merge_duplicates
from surveytool.sources.read import read_source

LISTS = DATA / "lists"


def test_each_variant_reads_every_paragraph_with_its_line():
    expected = {
        "crlf_bom_fullwidth.txt": (True, [3, 7, 9]),
        "cr_no_header.txt": (False, [1, 3]),
        "wrapped_dupes.txt": (True, [5, 9]),
    }
    for name, (has_anchor, lines) in expected.items():
        result = read_source(LISTS / name, name)
        snippets = [p for p in result.papers if p.origin.value == "snippet"]
        assert [p.sources[0].line for p in snippets] == lines, name
        assert any(p.origin.value == "anchor" for p in result.papers) == has_anchor
    wrapped = read_source(LISTS / "wrapped_dupes.txt", "w.txt").papers[1]
    assert "router sends each token" in wrapped.fields["abstract"] and wrapped.truncated


def test_exact_near_exact_and_differently_cut_duplicates_merge_across_files():
    papers = []
    for path in sorted(LISTS.glob("*.txt")):
        papers.extend(read_source(path, path.name).papers)
    merged = merge_duplicates(papers)
    snippets = [p for p in merged if p.origin.value == "snippet"]
    # crlf: 3 paragraphs, two of them one paper (case/punctuation); cr: 2, one the pipeline paper cut
    # differently; wrapped: 2 copies of one paper cut at different points.
    assert len(snippets) == 4
    assert sorted(len(p.sources) for p in snippets) == [1, 2, 2, 2]


def test_build_on_messy_lists_loses_nothing(tmp_path):
    result = run_cli("parse", "--json", *map(str, sorted(LISTS.glob("*.txt"))), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout)
    sources = sorted(s for e in entries for s in e["sources"])
    assert len(sources) == 7 + 2  # every paragraph and both anchors, each exactly once
    assert "cr_no_header.txt:1: info [list-header]" in result.stderr


def test_one_snippet_per_line_without_blank_lines_is_split_into_paragraphs(tmp_path):
    path = tmp_path / "dense.txt"
    path.write_text(
        "Related papers: X\nA first snippet about pipeline parallelism…\nA second one about expert routing…\n"
        "A third...\n\nA wrapped paragraph that\ncontinues on the next line…\n",
        encoding="utf-8",
    )
    snippets = [p for p in read_source(path, "dense.txt").papers if p.origin.value == "snippet"]
    assert [(p.sources[0].line, p.fields["abstract"][:8]) for p in snippets] == [
        (2, "A first "),
        (3, "A second"),
        (4, "A third."),
        (6, "A wrappe"),
    ]


def test_numbered_items_without_ellipsis_or_blank_lines_are_one_paper_each(tmp_path):
    path = tmp_path / "numbered.txt"
    path.write_text(
        "Related papers - Switch Transformers: Scaling to Trillion Parameter Models\n"
        "1. GPipe trains giant networks by splitting them into stages and pipelining\n"
        "micro-batches across accelerators.\n"
        "2. Megatron-LM splits each transformer layer across GPUs with intra-layer model parallelism.\n"
        "3. ZeRO removes the memory redundancy of data parallelism by partitioning optimizer states.\n"
        "4) Mesh-TensorFlow lets the user name the tensor dimensions to split.\n",
        encoding="utf-8",
    )
    result = read_source(path, "numbered.txt")
    snippets = [p for p in result.papers if p.origin.value == "snippet"]
    assert [(p.sources[0].line, p.fields["abstract"][:12]) for p in snippets] == [
        (2, "GPipe trains"),
        (4, "Megatron-LM "),
        (5, "ZeRO removes"),
        (6, "Mesh-TensorF"),
    ]
    assert snippets[0].fields["abstract"].endswith("pipelining micro-batches across accelerators.")
    assert result.papers[0].fields["title"] == "Switch Transformers: Scaling to Trillion Parameter Models"
    assert not result.findings


def test_a_wrapped_line_starting_with_a_number_out_of_sequence_stays_in_its_item(tmp_path):
    path = tmp_path / "wrapped.txt"
    path.write_text(
        "Related papers: X\n1. A model trained on\n7. billion tokens, the seventh of its kind.\n2. The next paper.\n",
        encoding="utf-8",
    )
    snippets = [p for p in read_source(path, "w.txt").papers if p.origin.value == "snippet"]
    assert [p.fields["abstract"] for p in snippets] == [
        "A model trained on 7. billion tokens, the seventh of its kind.",
        "The next paper.",
    ]


def test_a_paragraph_that_runs_two_cut_off_snippets_together_is_reported(tmp_path):
    path = tmp_path / "glued.txt"
    path.write_text(
        "Related papers: X\n\nWe shard the experts across devices and route each...\n"
        "Pipeline parallelism splits the layers into stages and...\n\nA normal paragraph.\n",
        encoding="utf-8",
    )
    # Every line cut off: one snippet per line, nothing to report.
    assert not read_source(path, "glued.txt").findings
    path.write_text(
        "Related papers: X\n\nWe shard the experts across devices and route each... Pipeline\n"
        "parallelism splits the layers into stages.\n",
        encoding="utf-8",
    )
    findings = read_source(path, "glued.txt").findings
    assert [(f.check, f.location.line) for f in findings] == [("glued-snippets", 3)]


def test_a_list_a_windows_editor_saved_reads_as_its_utf8_copy(tmp_path):
    # Its ellipsis (byte 0x85) was a control character: the cut-off anchor was no longer seen as cut off.
    text = (
        "Related papers: GShard: Scaling Giant Models with Conditional Comp…\r\n\r\n"
        "We study “giant” models and their naïve training – with sharding across devices and experts for long…\r\n"
    )
    papers = {}
    for encoding in ("utf-8", "cp1252"):
        (tmp_path / f"{encoding}.txt").write_bytes(text.encode(encoding))
        papers[encoding] = read_source(tmp_path / f"{encoding}.txt", "list.txt").papers
    assert papers["cp1252"] == papers["utf-8"] and papers["utf-8"][0].truncated


def test_a_second_list_pasted_below_the_first_gives_its_anchor_not_a_snippet(tmp_path):
    # Its header was read as a snippet, an unresolved placeholder, and its anchor paper was missing.
    seeds = sorted((ROOT / "seeds").glob("*.txt"))
    both = tmp_path / "both.txt"
    both.write_text("\n\n".join(path.read_text(encoding="utf-8") for path in seeds[:2]), encoding="utf-8")
    papers = read_source(both, "both.txt").papers
    alone = [read_source(path, "one.txt").papers for path in seeds[:2]]
    anchors = [p.fields["title"] for p in papers if p.origin.value == "anchor"]
    assert anchors == [next(p.fields["title"] for p in one if p.origin.value == "anchor") for one in alone]
    assert len(papers) == sum(len(one) for one in alone)
    assert not any("Related papers" in p.fields.get("abstract", "") for p in papers)


def test_an_empty_numbered_item_is_skipped_and_reported_not_glued_to_its_neighbours(tmp_path):
    # "3." alone was no item: it and item 4 were read as text of item 2, and item 4 was lost.
    first = "First snippet about pipeline parallel training with micro-batches and bubbles…"
    second = "Second snippet about expert routing in mixture of experts layers for scale…"
    fourth = "Fourth snippet about ZeRO memory optimizations for data parallel training…"
    header = "Related papers - Some anchor paper title that is long enough\n\n"
    markers = [
        ("1.", "2.", "3.", "4."),
        ("(1)", "(2)", "(3) ", "[4]"),
        ("[1]", "[2]", "(3)", "(4)"),
        ("1)", "2)", "3)", "4)"),
    ]
    for one, two, three, four in markers:
        for gap in ("\n", "\n\n"):
            items = [f"{one} {first}", f"{two} {second}", three, f"{four} {fourth}"]
            path = tmp_path / "l4.txt"
            path.write_text(header + gap.join(items) + "\n", encoding="utf-8")
            result = read_source(path, "l4.txt")
            snippets = [p for p in result.papers if p.origin.value == "snippet"]
            lines = [3, 4, 6] if gap == "\n" else [3, 5, 9]
            assert [(p.sources[0].line, p.fields["abstract"]) for p in snippets] == [
                (lines[0], first),
                (lines[1], second),
                (lines[2], fourth),
            ], (three, gap)
            assert [(f.check, f.location.path, f.location.line) for f in result.findings] == [
                ("empty-item", "l4.txt", lines[2] - len(gap))
            ], (three, gap)


def test_a_number_alone_on_its_line_starts_its_item_without_joining_the_one_before(tmp_path):
    path = tmp_path / "apart.txt"
    path.write_text(
        "Related papers: X\n1. A first paper.\n2.\nThe second paper,\nwrapped.\n3) The third.\n", encoding="utf-8"
    )
    result = read_source(path, "apart.txt")
    snippets = [p for p in result.papers if p.origin.value == "snippet"]
    assert [(p.sources[0].line, p.fields["abstract"]) for p in snippets] == [
        (2, "A first paper."),
        (3, "The second paper, wrapped."),
        (6, "The third."),
    ]
    assert not result.findings

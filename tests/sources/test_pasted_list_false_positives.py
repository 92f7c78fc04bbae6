"""Ordinary lists that the readings for lists copied from PDFs and web pages must leave as they were."""

import json

from helpers import run_cli

from surveytool.sources.read import read_source

GPIPE = "GPipe trains giant networks by splitting them into stages and pipelining micro-batches across accelerators…"
HEADER = "Related papers: Switch Transformers: Scaling to Trillion Parameter Models\n"


def _read(tmp_path, text):
    path = tmp_path / "list.txt"
    path.write_text(text, encoding="utf-8")
    result = read_source(path, "list.txt")
    snippets = [(p.sources[0].line, p.fields["abstract"]) for p in result.papers if p.origin.value == "snippet"]
    anchors = [(p.sources[0].line, p.fields["title"]) for p in result.papers if p.origin.value == "anchor"]
    return anchors, snippets, [(f.check, f.location.line) for f in result.findings]


def test_an_abstract_that_begins_with_the_words_of_a_worded_header_stays_a_snippet(tmp_path):
    # Each was read as an anchor paper named by the rest of its first line, and its wrapped rest a snippet.
    wrapped = "Papers related to federated learning have grown quickly, and we\nsurvey them by threat model…"
    inside = "Graph neural networks are powerful models. We show that\nPapers related to GCNs miss a key point…"
    cut = "Similar papers to ours use contrastive objectives; we instead use a generative one…"
    colon = "We survey the field. See the list of\nRelated papers: those we could not reproduce are marked…"
    for abstract in (wrapped, inside, cut, colon):
        anchors, snippets, _ = _read(tmp_path, f"{HEADER}\n{abstract}\n\n{GPIPE}\n")
        assert [line for line, _ in anchors] == [1], abstract
        assert snippets == [(3, abstract.replace("\n", " ")), (6 if "\n" in abstract else 5, GPIPE)], abstract
    # Nor is the first line of a list with no header.
    for abstract in (wrapped, cut):
        anchors, snippets, _ = _read(tmp_path, f"{abstract}\n\n{GPIPE}\n")
        assert anchors == [] and snippets[0] == (1, abstract.replace("\n", " ")), abstract


def test_worded_headers_still_name_their_anchor(tmp_path):
    title = "Switch Transformers: Scaling to Trillion Parameter Models"
    for header in (f"Papers related to {title}", f"Similar papers to: {title}", f"## Related to {title}"):
        anchors, snippets, _ = _read(tmp_path, f"{header}\n{GPIPE}\n\n{HEADER}1. {GPIPE}\n")
        assert anchors == [(1, title), (4, title)], header
        assert [line for line, _ in snippets] == [2, 5], header


def test_a_paper_after_a_numbered_list_of_titles_is_not_glued_to_its_last_title(tmp_path):
    # A title has no full stop, so the lower-case snippet after the list was read as the rest of title 2.
    text = (
        HEADER + "1. Demystifying Parallel and Distributed Deep Learning: An In-Depth Concurrency Analysis\n"
        "2. Whale: Efficient Giant Model Training over Heterogeneous GPUs\n\n"
        "we study how mixture-of-experts layers route tokens and show that…\n"
    )
    anchors, snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 3, 5]
    assert findings == []


def test_only_one_paragraph_after_an_item_cut_mid_sentence_is_read_as_its_rest(tmp_path):
    # Snippets cut without an ellipsis, some bulleted: every lower-case paragraph after the last bullet was glued
    # to it, as if one item ran over as many page breaks.
    text = (
        HEADER + "- GPipe trains giant networks by splitting them into stages and pipelining\n\n"
        "each micro-batch across accelerators, which keeps every stage busy, and\n\n"
        "we revisit data parallelism with sharded optimizer states and\n\n"
        "de novo protein design with diffusion models generates binders for\n"
    )
    anchors, snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 6, 8]
    assert findings == [("joined-paragraphs", 4)]


def test_a_dash_in_prose_at_a_line_start_cuts_no_paper_after_a_dash_item(tmp_path):
    # One item written "- ..." made every later line that starts with a dash a bullet: papers cut in two, silently.
    text = (
        HEADER + "- Transformers for vision: we split images into patches and feed them to an encoder…\n\n"
        "Graph neural networks are powerful models for relational data. Existing methods over-smooth and\n"
        "- as we show - lose information at depth…\n\n"
        "- Large language models are trained on web text…\n"
        "- Mixture-of-experts layers route tokens to experts…\n"
    )
    anchors, snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 7, 8]
    assert snippets[1][1].endswith("over-smooth and - as we show - lose information at depth…")
    assert findings == []


def test_an_enumeration_in_a_paper_after_a_numbered_list_does_not_cut_it(tmp_path):
    # The list's numbering ran on into the next paragraph, whose "(3)" at a wrapped line's start cut it in two.
    text = (
        HEADER + "1. " + GPIPE + "\n\n2. Megatron-LM splits each transformer layer across GPUs…\n\n"
        "We make three contributions: (1) a benchmark, (2) a recipe and\n(3) an analysis of attention heads…\n\n"
        "After a page break the list goes on\n3. ZeRO removes the memory redundancy of data parallelism…\n"
    )
    anchors, snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 6, 9, 10]
    assert snippets[2][1].endswith("a recipe and (3) an analysis of attention heads…")


def test_an_id_list_or_bibtex_whose_first_line_is_in_a_new_header_wording_is_still_read_as_such(tmp_path):
    # "# Papers related to X" is a comment of an id list: the file became a list of one snippet of every id glued.
    ids = "10.1145/3458817.3476209\narXiv:1910.02054\n1909.08053\n"
    for comment in ("# Papers related to pipeline parallelism", "## Related to my survey"):
        (tmp_path / "ids.txt").write_text(f"{comment}\n{ids}", encoding="utf-8")
        papers = read_source(tmp_path / "ids.txt", "ids.txt").papers
        assert [(p.origin.value, p.sources[0].line) for p in papers] == [("identifier", n) for n in (2, 3, 4)], comment
    # Text before BibTeX entries piped in: its entries were one snippet of a list.
    bib = tmp_path / "refs.bib"
    bib.write_text("Papers related to Pipeline Parallelism\n\n@misc{gpipe, title = {GPipe}, year = 2019}\n")
    result = run_cli("parse", "-", "--json", cwd=tmp_path, stdin=bib.read_text(encoding="utf-8"))
    assert result.returncode == 0, result.stderr
    assert [(e["key"], e["origin"]) for e in json.loads(result.stdout)] == [("gpipe", "bibtex")]


def test_an_enumeration_inside_a_numbered_item_is_not_read_as_a_skipped_number(tmp_path):
    # "3)" or "(3)" after "...;" was read as item 3 of the list, the author having taken item 2 out: the abstract
    # was cut in two and every later item glued to its second half, since the list's "2." no longer came next.
    megatron = "2. Megatron-LM splits each transformer layer across GPUs…"
    for enumeration in (
        "1) a schedule; 2) a memory policy;\n3) an analysis",
        "(1) a schedule; (2) a policy;\n(3) an analysis",
    ):
        text = f"{HEADER}1. GPipe trains giant networks. We make three contributions:\n{enumeration} of bubbles.\n"
        anchors, snippets, findings = _read(tmp_path, text + megatron + "\n3. " + GPIPE + "\n")
        assert [line for line, _ in snippets] == [2, 5, 6], enumeration
        assert snippets[0][1].endswith(f"{enumeration.replace(chr(10), ' ')} of bubbles."), enumeration
    # Written as the list writes its numbers, a number whose skipped-over item comes later is the prose's own.
    text = f"{HEADER}1. We compare with the suites of Smith et al.\n3. Results hold across scales…\n{megatron}\n"
    anchors, snippets, findings = _read(tmp_path, text)
    assert snippets == [
        (2, "We compare with the suites of Smith et al. 3. Results hold across scales…"),
        (4, megatron[3:]),
    ]


def test_a_bullet_after_a_colon_or_semicolon_inside_an_abstract_cuts_no_paper(tmp_path):
    # An abstract whose own bullets a web page ran into its text was cut into one paper per bullet.
    abstract = "GPipe trains giant networks. Our contributions: • a pipeline schedule; • a re-materialization policy…"
    anchors, snippets, findings = _read(tmp_path, f"{HEADER}• {abstract}\n• {GPIPE}\n")
    assert snippets == [(2, abstract), (3, GPIPE)]


def test_an_abstract_listing_its_contributions_one_per_line_stays_one_paper(tmp_path):
    # "(1) ...", "(2) ...", "(3) ..." on lines of their own inside item 1 of a "1." list: "(2)" came next in any
    # style and cut the abstract into three papers, and the list's own "2." and "3." were glued to the last one.
    text = (
        HEADER + "1. GPipe trains giant networks. We make three contributions:\n(1) a pipeline schedule;\n"
        "(2) a memory analysis; and\n(3) an open-source library.\n2. Megatron-LM splits each layer across GPUs.\n"
        "3. " + GPIPE + "\n"
    )
    anchors, snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 6, 7]
    assert snippets[0][1].endswith(
        "contributions: (1) a pipeline schedule; (2) a memory analysis; and (3) an open-source library."
    )
    # So is "2." after "1. a schedule;" in the item, when the list's own "2." comes later.
    text = HEADER + "1. GPipe trains giant networks. It has two parts:\n1. a schedule;\n2. an analysis.\n2. " + GPIPE
    anchors, snippets, findings = _read(tmp_path, text + "\n")
    assert [line for line, _ in snippets] == [2, 5]
    assert snippets[0][1].endswith("parts: 1. a schedule; 2. an analysis.")

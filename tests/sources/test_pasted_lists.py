"""Lists copied out of PDFs and web pages: invisible characters, bullets, page breaks, other header wordings."""

import json

from helpers import run_cli

from surveytool.sources.read import read_source

GPIPE = "GPipe trains giant networks by splitting them into stages and pipelining micro-batches across accelerators…"
MEGATRON = "Megatron-LM splits each transformer layer across GPUs with intra-layer model parallelism for large models…"
ZERO = "ZeRO removes the memory redundancy of data parallelism by partitioning optimizer states and gradients…"
HEADER = "Related papers: Switch Transformers: Scaling to Trillion Parameter Models\n"


def _read(tmp_path, text, name="list.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = read_source(path, name)
    snippets = [(p.sources[0].line, p.fields["abstract"]) for p in result.papers if p.origin.value == "snippet"]
    anchors = [(p.sources[0].line, p.fields["title"]) for p in result.papers if p.origin.value == "anchor"]
    findings = [(f.check, f.location.line) for f in result.findings]
    return anchors, snippets, findings


def test_invisible_and_typographic_characters_a_pdf_adds_are_dropped(tmp_path):
    # A zero-width space made a line that looks blank glue two papers, and a line of its own a placeholder;
    # soft hyphens, no-break spaces and ligatures stayed in the abstract ({\-}, {~} and {fi} in the .bib).
    text = (
        HEADER + "\n\u200bGPipe trains gi\u00adant net\u00adworks by split\u00ad\nting them into stages…\n\u200b\n"
        "Mega\u00adtron-LM splits\u00a0each\u00a0layer for eﬃcient conﬁgurations…\n\n\u200b\n\n" + ZERO + "\n"
    )
    anchors, snippets, findings = _read(tmp_path, text)
    assert snippets == [
        (3, "GPipe trains giant networks by splitting them into stages…"),
        (6, "Megatron-LM splits each layer for efficient configurations…"),
        (10, ZERO),
    ]
    assert findings == []


def test_bullets_start_one_paper_each_and_are_not_part_of_the_snippet(tmp_path):
    # "- " items with no blank line between were read as one paragraph: three papers glued into one.
    for bullet in ("•", "-", "*", "▪"):
        text = HEADER + f"{bullet} GPipe trains giant networks by splitting them\ninto stages.\n{bullet} {MEGATRON}\n"
        text += f"{bullet}\n{bullet} {ZERO}\n"
        anchors, snippets, findings = _read(tmp_path, text)
        assert snippets == [
            (2, "GPipe trains giant networks by splitting them into stages."),
            (4, MEGATRON),
            (6, ZERO),
        ], bullet
        assert findings == [("empty-item", 5)], bullet


def test_bullets_a_pdf_ran_into_one_line_start_one_paper_each(tmp_path):
    # A PDF's text layer put two items on one line: one snippet of two papers, tagged with both their sections.
    text = HEADER + f"• {GPIPE} • {MEGATRON}\n• {ZERO}\n• A bullet • inside a sentence stays in it…\n"
    anchors, snippets, findings = _read(tmp_path, text)
    assert snippets == [(2, GPIPE), (2, MEGATRON), (3, ZERO), (4, "A bullet • inside a sentence stays in it…")]
    assert findings == []


def test_a_number_skipped_after_a_finished_item_still_starts_a_paper(tmp_path):
    # The author took item 3 out: "4." and "5." were read as the start of their snippets' text.
    text = HEADER + f"1. {GPIPE}\n2. {MEGATRON}\n4. {ZERO}\n5. A wrapped item that goes on over\n7. lines.\n"
    anchors, snippets, findings = _read(tmp_path, text)
    assert snippets == [(2, GPIPE), (3, MEGATRON), (4, ZERO), (5, "A wrapped item that goes on over 7. lines.")]


def test_a_page_break_inside_a_numbered_list_glues_nothing_and_drops_the_page_furniture(tmp_path):
    # The rest of item 1 after the page break started a paragraph with no number, so items 2 and 3 were read
    # as its text (two papers lost), and the page number and running header became placeholders.
    text = (
        HEADER + "\n1. GPipe trains giant networks by splitting them into stages and\n\n12\n\n"
        "Related work survey — page 2\n\npipelining micro-batches across accelerators.\n2. " + MEGATRON + "\n"
        "3. ZeRO removes the memory redundancy\nPage 3 of 10\nof data parallelism.\n"
    )
    path = tmp_path / "paged.txt"
    path.write_text(text, encoding="utf-8")
    result = run_cli("parse", "--json", str(path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    abstracts = {tuple(e["sources"]): e["abstract"] for e in json.loads(result.stdout) if e.get("abstract")}
    assert abstracts == {
        (f"{path}:3",): "GPipe trains giant networks by splitting them into stages and pipelining micro-batches across "
        "accelerators.",
        (f"{path}:10",): MEGATRON,
        (f"{path}:11",): "ZeRO removes the memory redundancy of data parallelism.",
    }
    for line, check in ((5, "page-furniture"), (7, "page-furniture"), (9, "joined-paragraphs"), (12, "page-furniture")):
        assert f"{path}:{line}: info [{check}]" in result.stderr


def test_an_unnumbered_paragraph_after_a_finished_item_stays_a_paper_of_its_own(tmp_path):
    text = HEADER + "1. A first paper about pipelines.\n\nanother paper, written in lower case\n\n2. " + ZERO + "\n"
    anchors, snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 6]
    assert findings == []


def test_headers_in_other_wordings_name_the_anchor(tmp_path):
    # They were read as a snippet (a placeholder) and the list had no anchor.
    title = "Switch Transformers: Scaling to Trillion Parameter Models"
    for header in (
        f"Papers related to {title}",
        f"Similar papers for {title}",
        f"Similar papers to: {title}",
        f"## Related to {title}",
        f"## Related papers: {title}",
        f"**Related papers:** {title}",
    ):
        anchors, snippets, findings = _read(tmp_path, f"{header}\n\n{GPIPE}\n\n{MEGATRON}\n")
        assert anchors == [(1, title)], header
        assert [line for line, _ in snippets] == [3, 5], header
    # A snippet that begins with the same words is not a header.
    for sentence in ("Papers related to pipelines are surveyed in depth.", "Related to GShard, we shard experts…"):
        anchors, snippets, findings = _read(tmp_path, f"{sentence}\n\n{GPIPE}\n")
        assert anchors == [] and snippets[0] == (1, sentence), sentence


def test_a_related_papers_for_header_names_the_anchor_and_is_no_paper(tmp_path):
    # "Related papers for <title>" (a reader's own note above a pasted list) was read as the first paper's snippet:
    # an invented paper, and the list had no anchor.
    title = "GShard: Scaling Giant Models with Conditional Computation"
    for header in (f"Related papers for {title}", f"Related Papers to: {title}", f"related papers for {title}"):
        text = f"{header}\r\n\r\n{GPIPE}\r\n\r\n{MEGATRON}\r\n"
        anchors, snippets, findings = _read(tmp_path, text)
        assert anchors == [(1, title)], header
        assert [line for line, _ in snippets] == [3, 5], header
    # An abstract that begins with the words stays a snippet.
    sentence = "Related papers for this task are few, and we collect them here."
    anchors, snippets, findings = _read(tmp_path, f"{sentence}\n\n{GPIPE}\n")
    assert anchors == [] and snippets[0] == (1, sentence)


def test_a_second_header_with_no_blank_line_before_it_is_an_anchor_not_a_snippet(tmp_path):
    # Two lists run together, or two files concatenated with their byte-order marks: the second header was a
    # snippet, glued to the last snippet of the first list when a BOM hid it.
    second = "Related papers: GShard: Scaling Giant Models with Conditional Computation\n"
    for glue in ("", "\ufeff"):
        text = "\ufeff" + HEADER + GPIPE + "\n" + MEGATRON + "\n" + glue + second + "1. " + ZERO + "\n"
        anchors, snippets, findings = _read(tmp_path, text)
        assert [line for line, _ in anchors] == [1, 4], repr(glue)
        assert snippets == [(2, GPIPE), (3, MEGATRON), (5, ZERO)], repr(glue)
    # A wrapped line that begins with the words in lower case stays in its paragraph.
    anchors, snippets, findings = _read(tmp_path, HEADER + "We compare with the\nrelated papers - those on MoE.\n")
    assert snippets == [(2, "We compare with the related papers - those on MoE.")]


def test_an_item_that_is_only_a_doi_or_arxiv_id_names_its_paper_and_a_bare_link_is_reported(tmp_path):
    # Each was a snippet: an "Unresolved snippet: https://arxiv.org/abs/..." placeholder that no id resolved.
    text = (
        HEADER + "1. " + GPIPE + "\n2. https://arxiv.org/abs/1909.08053v2\n3. doi:10.1145/3458817.3476209\n"
        "4. arXiv:1910.02054\n5. https://www.semanticscholar.org/paper/abc123\n"
    )
    path = tmp_path / "ids.txt"
    path.write_text(text, encoding="utf-8")
    papers = read_source(path, "ids.txt").papers
    assert [(p.origin.value, p.sources[0].line, dict(p.fields)) for p in papers if p.origin.value == "identifier"] == [
        ("identifier", 3, {"eprint": "1909.08053v2", "archiveprefix": "arXiv"}),
        ("identifier", 4, {"doi": "10.1145/3458817.3476209"}),
        ("identifier", 5, {"eprint": "1910.02054", "archiveprefix": "arXiv"}),
    ]
    result = run_cli("parse", str(path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"{path}:6: warning [link-item]" in result.stderr
    assert "https://arxiv" not in result.stdout  # no placeholder shows the link as its snippet


def test_titles_and_a_bullet_at_a_line_end_a_pdf_ran_together_are_cut_too(tmp_path):
    # Two titles on one line were one paper (a title has no full stop), and a bullet the PDF put at the end of the
    # item before stayed at the end of its snippet.
    gpipe = "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism"
    megatron = "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism"
    anchors, snippets, findings = _read(tmp_path, f"{HEADER}• {gpipe} • {megatron}\n• {GPIPE} •\n{ZERO}\n")
    assert snippets == [(2, gpipe), (2, megatron), (3, GPIPE), (3, ZERO)]
    assert findings == []


def test_numbers_as_chinese_and_japanese_pages_write_them_start_papers(tmp_path):
    # "1、" and full-width "２．" were not read as numbers: they stayed at the start of each snippet.
    for one, two, three in (("1、", "2、", "3、"), ("１．", "２．", "３．"), ("（1）", "（2）", "（3） ")):
        text = f"相关论文: GShard\n{one}{GPIPE}\n{two}{MEGATRON}\n{three}{ZERO}\n"
        anchors, snippets, findings = _read(tmp_path, text)
        assert snippets == [(2, GPIPE), (3, MEGATRON), (4, ZERO)], one


def test_a_bare_number_inside_a_paragraph_is_left_out_with_a_warning_not_an_info(tmp_path):
    # "a batch size of" / "1024" / "sequences": the number was dropped with an info nobody reads.
    text = HEADER + "\nWe train with a batch size of\n1024\nsequences on many accelerators…\n\n" + GPIPE + "\n\n7\n"
    anchors, snippets, findings = _read(tmp_path, text, "inner.txt")
    assert snippets[0] == (3, "We train with a batch size of sequences on many accelerators…")
    path = tmp_path / "inner.txt"
    result = run_cli("parse", str(path), cwd=tmp_path)
    assert f"{path}:4: warning [page-furniture] a line of only a number inside a paragraph" in result.stderr
    assert f"{path}:9: info [page-furniture]" in result.stderr  # alone between blank lines: a page number

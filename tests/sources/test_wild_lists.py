"""Lists as the wild writes them: bullets and numbers of word processors and slides, cut marks of web pages,
numbering that restarts or skips far, a snippet cut by a page break in a list of paragraphs."""

from surveytool.sources.read import read_source

HEADER = "Related papers: Switch Transformers: Scaling to Trillion Parameter Models\n"
GPIPE = "GPipe trains giant networks by splitting them\ninto stages and pipelining micro-batches."
MEGATRON = "Megatron-LM splits each transformer layer\nacross GPUs with intra-layer model parallelism."
ZERO = "ZeRO removes the memory redundancy of data\nparallelism by partitioning optimizer states."
ONE_LINE = [" ".join(text.split("\n")) for text in (GPIPE, MEGATRON, ZERO)]


def _read(tmp_path, text, name="list.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = read_source(path, name)
    snippets = [(p.sources[0].line, p.fields["abstract"]) for p in result.papers if p.origin.value == "snippet"]
    findings = [(f.check, f.location.line) for f in result.findings]
    return snippets, findings


def test_arrowhead_diamond_tick_and_other_bullets_start_one_paper_each(tmp_path):
    # Not taken for bullets, the three wrapped items were one paragraph: three papers glued into one placeholder,
    # with no warning, and the bullet kept as the snippet's first character.
    for bullet in ("►", "➤", "▶", "◆", "♦", "✓", "✔", "∙", "⁃", "★", "→", "−"):
        text = HEADER + "".join(f"{bullet} {item}\n" for item in (GPIPE, MEGATRON, ZERO))
        snippets, findings = _read(tmp_path, text)
        assert snippets == list(zip((2, 4, 6), ONE_LINE, strict=True)), bullet
        assert findings == [], bullet


def test_circled_numbers_start_one_paper_each(tmp_path):
    text = HEADER + "".join(f"{number} {item}\n" for number, item in zip("①②③", (GPIPE, MEGATRON, ZERO), strict=True))
    snippets, _ = _read(tmp_path, text)
    assert snippets == list(zip((2, 4, 6), ONE_LINE, strict=True))
    text = HEADER + "".join(f"{number}{item}\n" for number, item in zip("❶❷❸", (GPIPE, MEGATRON, ZERO), strict=True))
    snippets, _ = _read(tmp_path, text)
    assert snippets == list(zip((2, 4, 6), ONE_LINE, strict=True))


def test_a_web_pages_show_more_or_read_more_is_the_cut_it_marks_not_the_snippets_last_words(tmp_path):
    # "Show more" stayed the snippet's last words (in the .bib's abstract and the chapter's comment), the snippet
    # was not seen as cut, "… Read more" was reported as two snippets glued together, and a list of one cut snippet
    # per line, each with its "Read more", was read as one paragraph.
    gpipe, megatron, zero = (text.rstrip(".") for text in ONE_LINE)
    text = HEADER + f"\n{gpipe} Show more\n\n{megatron}… Read more »\n\n{zero}\nShow more\n"
    snippets, findings = _read(tmp_path, text)
    assert snippets == [(3, gpipe + "…"), (5, megatron + "…"), (7, zero + "…")]
    assert findings == []
    text = HEADER + f"{gpipe}... more\n{megatron} […]\n{zero} Read more\n"
    snippets, findings = _read(tmp_path, text)
    assert snippets == [(2, gpipe + "…"), (3, megatron + "…"), (4, zero + "…")]
    assert findings == []


def test_words_an_abstract_may_stop_on_are_not_a_cut_mark(tmp_path):
    text = HEADER + "\nStudents who read more\nlearn more.\n\nWe show more results…\n"
    snippets, _ = _read(tmp_path, text)
    assert snippets == [(3, "Students who read more learn more."), (6, "We show more results…")]


def test_a_snippet_cut_by_a_page_break_in_a_list_of_paragraphs_is_one_paper(tmp_path):
    # Only numbered and bulleted items took their rest after a page break: in a list of paragraphs the rest of the
    # abstract became a placeholder of its own ("anon-their-...") and the paper was read from half its snippet.
    text = HEADER + f"\n{GPIPE}\n\nEmbedding models have been an effective paradigm. However, one open issue is that\n"
    text += "\n12\n\nRelated work survey — page 2\n\ntheir representations result in large parameter spaces.\n\n"
    text += f"{ZERO}\n"
    snippets, findings = _read(tmp_path, text)
    assert snippets == [
        (3, ONE_LINE[0]),
        (
            6,
            "Embedding models have been an effective paradigm. However, one open issue is that their representations "
            "result in large parameter spaces.",
        ),
        (14, ONE_LINE[2]),
    ]
    assert ("joined-paragraphs", 12) in findings
    # With no page number or header between them, two paragraphs are two papers, as before.
    snippets, _ = _read(tmp_path, text.replace("\n12\n\nRelated work survey — page 2\n", ""))
    assert len(snippets) == 4


def test_a_numbered_list_pasted_below_another_with_no_blank_line_restarts_at_one(tmp_path):
    # "1." again was taken for the text of the item before: the second list's papers were glued into the
    # first list's last placeholder, with no warning.
    text = HEADER + f"1. {GPIPE}\n2. {MEGATRON}\n1. {ZERO}\n2. Switch routes each token to one expert.\n"
    snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 6, 8]
    assert findings == []
    # An abstract's own enumeration, after a colon and in lower case, is no restart.
    text = HEADER + f"1. {GPIPE}\n2. We make two contributions:\n1. a schedule;\n2. a policy.\n3. {ZERO}\n"
    snippets, _ = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 7]


def test_numbers_skipped_far_ahead_start_papers_when_the_list_goes_on_from_there(tmp_path):
    # The author took items 3 to 11 out: "12." was more than 5 ahead, so 12, 13 and 14 were glued to item 2.
    text = HEADER + f"1. {GPIPE}\n2. {MEGATRON}\n12. {ZERO}\n13. Switch routes each token to one expert.\n"
    snippets, _ = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 6, 8]
    # A lone far number, with nothing after it, stays the text of the item before.
    text = HEADER + f"1. {GPIPE}\n2. {MEGATRON}\n40. {ZERO}\n"
    snippets, _ = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4]


def _anchor_fields(tmp_path, header):
    path = tmp_path / "anchor.txt"
    path.write_text(f"{header}\n\nA snippet about pipelines…\n", encoding="utf-8")
    first = read_source(path, "anchor.txt").papers[0]
    return first.origin.value, dict(first.fields)


def test_a_header_that_names_its_anchor_by_doi_or_arxiv_id_gives_that_id(tmp_path):
    # The id was taken for a title: a placeholder 'anon-arxiv200616668-...' titled 'arXiv:2006.16668', never
    # resolved by its id, though an item of the list that is only an id is read as one.
    assert _anchor_fields(tmp_path, "Related papers: arXiv:2006.16668") == (
        "identifier",
        {"eprint": "2006.16668", "archiveprefix": "arXiv"},
    )
    origin, fields = _anchor_fields(tmp_path, "Related papers: https://doi.org/10.1145/3320060")
    assert (origin, fields["doi"]) == ("identifier", "10.1145/3320060")


def test_a_headers_markdown_link_or_year_after_the_title_is_not_part_of_the_title(tmp_path):
    # "Title (2020)" and "[Title](link)" were the anchor's title as written, which no catalog title equals: the
    # anchor paper stayed a placeholder.
    title = "GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding"
    assert _anchor_fields(tmp_path, f"Related papers: {title} (2020)") == ("anchor", {"title": title, "year": "2020"})
    assert _anchor_fields(tmp_path, f"## Related papers: [{title}](https://arxiv.org/abs/2006.16668)") == (
        "anchor",
        {"title": title, "eprint": "2006.16668", "archiveprefix": "arXiv"},
    )
    assert _anchor_fields(tmp_path, "Related papers: The 2020 Survey, 2021 Edition") == (
        "anchor",
        {"title": "The 2020 Survey, 2021 Edition"},
    )


def test_a_line_end_hyphen_goes_when_the_list_writes_the_word_whole_elsewhere(tmp_path):
    # "We obs-" / "erve" was kept as "obs-erve" (in the .bib's abstract, the chapter's comment and each comparison),
    # though the list writes "observe" in another snippet: the PDF hyphenated it only to break the line.
    text = HEADER + "\nWe obs-\nerve that data-\nparallel training stalls…\n\nWe observe the same.\n"
    snippets, _ = _read(tmp_path, text)
    assert snippets[0] == (3, "We observe that data-parallel training stalls…")


def test_a_header_with_no_title_is_told_as_such_not_as_a_missing_header(tmp_path):
    # "Related papers:" alone was reported as "no 'Related papers: <title>' header", and the hint said to add one.
    snippets, findings = _read(tmp_path, "\n\nRelated papers:\n\nA snippet about pipelines…\n")
    assert snippets == [(5, "A snippet about pipelines…")]
    path = tmp_path / "list.txt"
    (finding,) = read_source(path, "list.txt").findings
    assert (finding.check, finding.location.line) == ("list-header", 3)
    assert "names no anchor paper" in finding.message and "after the colon" in finding.hint


def test_related_papers_alone_as_a_web_pages_heading_is_a_header_not_a_paper(tmp_path):
    # Semantic Scholar's heading "Related Papers", copied with the list, was a paper of its own: a placeholder entry
    # whose abstract was "Related Papers".
    for heading in ("Related Papers", "## Related papers", "**Related Papers**", "相关论文"):
        snippets, findings = _read(tmp_path, f"{heading}\r\n\r\n{GPIPE}\r\n\r\n{MEGATRON}\r\n")
        assert snippets == [(3, ONE_LINE[0]), (6, ONE_LINE[1])], heading
        assert findings == [("list-header", 1)], heading
    # Inside a list it starts a new one; the papers before and after it are kept.
    snippets, findings = _read(tmp_path, f"{HEADER}\n{GPIPE}\n\nRelated Papers\n\n{MEGATRON}\n")
    assert snippets == [(3, ONE_LINE[0]), (8, ONE_LINE[1])]


def test_a_numbered_line_out_of_sequence_read_as_text_is_reported(tmp_path):
    # "2." twice: the second paper was glued into the first "2." item's placeholder without a word.
    text = HEADER + f"1. {GPIPE}\n2. {MEGATRON}\n2. {ZERO}\n3. Switch routes each token to one expert.\n"
    snippets, findings = _read(tmp_path, text)
    assert [line for line, _ in snippets] == [2, 4, 8]
    assert findings == [("glued-snippets", 6)]


def test_a_line_that_only_draws_a_rule_separates_papers_and_is_none(tmp_path):
    # "---" between papers was a placeholder paper of its own ('anon-entry-...', snippet '---'), a Markdown
    # header's "=====" too, and "* * *" with no blank lines around it glued every paper into one.
    gpipe, megatron, zero = ONE_LINE
    text = HEADER + f"==========\n\n{gpipe}\n\n---\n\n{megatron}\n* * *\n{zero}\n———\n"
    snippets, findings = _read(tmp_path, text)
    assert snippets == [(4, gpipe), (8, megatron), (10, zero)]
    assert findings == []


def test_a_number_a_pdf_ran_into_its_text_still_starts_a_paper(tmp_path):
    # "1.GPipe ..." (the text layer lost the space) started no paper: the whole list was one paragraph.
    text = HEADER + "".join(f"{number}.{item}\n" for number, item in zip("123", (GPIPE, MEGATRON, ZERO), strict=True))
    snippets, _ = _read(tmp_path, text)
    assert snippets == list(zip((2, 4, 6), ONE_LINE, strict=True))
    # A decimal at a line start is no number: "2.5D parallelism" stays text.
    snippets, _ = _read(tmp_path, HEADER + "\n1. We split each layer in\n2.5D parallelism over GPUs.\n")
    assert snippets == [(3, "We split each layer in 2.5D parallelism over GPUs.")]


def test_a_header_run_onto_the_last_snippet_of_a_list_with_no_final_line_end_is_an_anchor(tmp_path):
    # cat a.txt b.txt, a.txt ending with no line end: "…Related papers: B" was the snippet's text, the second
    # list's anchor paper was lost and its header became words of another paper's abstract, with no warning.
    first = "Related papers: A Paper About Pipelines\n\nGPipe trains giant networks by splitting them…"
    second = "Related papers: Dive into Big Model Training\n\nZeRO removes the memory redundancy…\n"
    path = tmp_path / "both.txt"
    path.write_text(first + second, encoding="utf-8")
    papers = read_source(path, "both.txt").papers
    assert [(p.origin.value, p.sources[0].line, p.title or p.abstract) for p in papers] == [
        ("anchor", 1, "A Paper About Pipelines"),
        ("anchor", 3, "Dive into Big Model Training"),
        ("snippet", 3, "GPipe trains giant networks by splitting them…"),
        ("snippet", 5, "ZeRO removes the memory redundancy…"),
    ]


def test_the_first_paper_under_a_new_header_is_never_the_rest_of_the_list_befores_last_item(tmp_path):
    # The first list's last item stopped mid-sentence and the second list's first snippet starts in lower case: it
    # was glued to that item across the header, one paper of the second list lost into a paper of the first.
    for cut in (
        "1. GPipe trains giant networks by splitting them into\n",
        "GPipe trains giant networks by splitting them into\n",
    ):
        text = (
            HEADER
            + f"\n{cut}\nRelated papers: Dive into Big Model Training\n\n12\n\nwe pre-train a model on a corpus…\n"
        )
        snippets, findings = _read(tmp_path, text)
        assert snippets == [
            (3, "GPipe trains giant networks by splitting them into"),
            (9, "we pre-train a model on a corpus…"),
        ], cut
        assert ("joined-paragraphs", 9) not in findings


def test_line_and_paragraph_separators_and_words_manual_break_end_lines(tmp_path):
    # Copied from a web page (U+2028, U+2029) or Word (Shift+Enter, VT), the whole list was one line: the anchor's
    # title was every snippet run together, and the list had no papers.
    for sep in ("\u2028", "\u2029", "\x0b"):
        text = HEADER.rstrip("\n") + sep * 2 + (sep * 2).join(ONE_LINE) + "\n\n" + ONE_LINE[0] + "\n"
        path = tmp_path / "list.txt"
        path.write_text(text, encoding="utf-8")
        result = read_source(path, "list.txt")
        anchors = [p.fields["title"] for p in result.papers if p.origin.value == "anchor"]
        assert anchors == ["Switch Transformers: Scaling to Trillion Parameter Models"], repr(sep)
        snippets, findings = _read(tmp_path, text)
        # Each is found at the line an editor shows it on.
        assert snippets == [(1, ONE_LINE[0]), (1, ONE_LINE[1]), (1, ONE_LINE[2]), (3, ONE_LINE[0])], repr(sep)
        assert findings == [("repeated-snippet", 3)], repr(sep)  # the first paper given again, on its own line


def test_whole_abstracts_one_a_line_with_no_blank_line_between_are_reported(tmp_path):
    # Pasted from a spreadsheet's abstract column, three papers were one placeholder, read with no warning.
    abstracts = [
        "GPipe trains giant neural networks by splitting them into stages across accelerators and pipelining the "
        "micro-batches of each mini-batch through those stages.",
        "Megatron-LM splits each transformer layer across many GPUs with intra-layer model parallelism, and trains "
        "language models of billions of parameters on hundreds of devices.",
        "ZeRO removes the memory redundancy of data parallelism by partitioning optimizer states, gradients and "
        "parameters across the data-parallel processes.",
    ]
    snippets, findings = _read(tmp_path, HEADER + "\r\n".join(abstracts) + "\r\n")
    assert snippets == [(2, " ".join(abstracts))]
    assert findings == [("glued-snippets", 2)]
    # A wrapped abstract whose lines end a sentence by chance is no such paragraph: its lines are a page's width.
    wrapped = "GPipe trains giant networks. It splits them into stages\nand pipelines micro-batches. It scales well.\n"
    snippets, findings = _read(tmp_path, HEADER + "\n" + wrapped)
    assert findings == []


def test_a_bidi_control_copied_into_a_header_or_snippet_is_reported_at_its_line(tmp_path):
    # It went into the entry's title and abstract with no warning, where a .bib's value holding one is reported:
    # "exe.pdf" and "\u202efdp.exe" show alike in an editor.
    text = f"Related papers: GShard\u202e: Scaling\n\n{ONE_LINE[0]}\n\nZeRO \u2067partitions\u2069 states…\n"
    text += "\nשלום\u200f עולם, a title in Hebrew with its direction mark…\n"
    snippets, findings = _read(tmp_path, text)
    assert findings == [("bidi-control", 1), ("bidi-control", 5)]
    path = tmp_path / "list.txt"
    messages = [f.message for f in read_source(path, "list.txt").findings]
    assert "U+202E (right-to-left override)" in messages[0] and "U+2067 (right-to-left isolate)" in messages[1]
    assert snippets[1] == (5, "ZeRO \u2067partitions\u2069 states…")  # kept as written

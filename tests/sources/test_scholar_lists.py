"""Lists copied out of Google Scholar's result pages, as a browser copies them: each result's footer of links."""

from surveytool.sources.read import read_source

HEADER = "\ufeffRelated papers: Switch Transformers: Scaling to Trillion Parameter Models\r\n"
GPIPE = "GPipe trains giant networks by splitting them into stages and pipelining micro-batches across accelerators …"
ZERO = "ZeRO removes the memory redundancy of data parallelism by partitioning optimizer states and gradients …"


def _read(tmp_path, text, name="list.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    result = read_source(path, name)
    snippets = [
        (p.sources[0].line, p.fields["abstract"], p.truncated) for p in result.papers if p.origin.value == "snippet"
    ]
    findings = [(f.check, f.location.line) for f in result.findings]
    return snippets, findings


def test_scholars_footer_lines_and_source_links_are_not_snippet_text(tmp_path):
    # Kept, "Save Cite Cited by 1,204 Related articles All 14 versions" ended the abstract (in the .bib, in the
    # tagging and in matching) and the snippet was not seen as cut; a footer line between two results with no blank
    # line glued them into one paper.
    text = (
        HEADER
        + "\r\n[PDF] arxiv.org\r\n"
        + GPIPE
        + "\r\n☆ Save Cite Cited\u00a0by 1,204 Related articles All 14 versions\r\n"
    )
    text += "[HTML] sciencedirect.com\r\n" + ZERO + "\r\nCited by 87 Related articles All\u00a05 versions\r\n"
    snippets, findings = _read(tmp_path, text)
    assert snippets == [(4, GPIPE, True), (7, ZERO, True)]
    assert findings == []


def test_a_footer_run_onto_the_end_of_a_snippet_is_cut_off(tmp_path):
    text = HEADER + f"\r\n{GPIPE} Save Cite Cited by 12 Related articles\r\n\r\n{ZERO} Cited by 3 All 2 versions\r\n"
    snippets, _ = _read(tmp_path, text)
    assert snippets == [(3, GPIPE, True), (5, ZERO, True)]
    snippets, _ = _read(
        tmp_path, HEADER + "\r\n训练大模型需要把网络切分到多个设备上……被引用次数：12 相关文章 所有 3 个版本\r\n"
    )
    assert snippets == [(3, "训练大模型需要把网络切分到多个设备上……", True)]


def test_a_sentence_that_mentions_being_cited_by_others_is_kept(tmp_path):
    kept = (
        "We study papers cited by 120 related articles and find all 5 versions.",
        "The metric counts how often work is Cited by peers.",
        "Our index, cited by 3 surveys, lists related articles…",
    )
    text = HEADER + "".join(f"\r\n{sentence}\r\n" for sentence in kept)
    snippets, _ = _read(tmp_path, text)
    assert [text for _, text, _ in snippets] == list(kept)


def test_footer_links_a_browser_put_one_per_line_are_left_out_together(tmp_path):
    text = HEADER + f"{GPIPE}\r\n☆ Save\r\nCite\r\nCited by 1,204\r\nRelated articles\r\n{ZERO}\r\nCite\r\n"
    snippets, _ = _read(tmp_path, text)
    # A line of a label with no count or "Related articles" beside it may be the text's own word: kept.
    assert snippets == [(2, GPIPE, True), (7, ZERO, True), (8, "Cite", False)]

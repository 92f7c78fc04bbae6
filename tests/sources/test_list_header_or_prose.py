"""A paragraph that begins with a header's words: a header names one title; an abstract's sentences are a snippet."""

from surveytool.sources.read import read_source

HEADER = "\ufeffRelated papers: Switch Transformers: Scaling to Trillion Parameter Models\r\n"
GPIPE = "GPipe trains giant networks by splitting them into stages and pipelining micro-batches…"
ZERO = "ZeRO removes the memory redundancy of data parallelism by partitioning optimizer states…"
SURVEY = (
    "Related papers:\u00a0we survey the methods that train large models across many accelerators and compare\r\n"
    "their memory use. In this work we show that pipelines of micro-batches keep every device busy while the\r\n"
    "memory of each stays bounded, and we…"
)


def _read(tmp_path, text, name="list.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    result = read_source(path, name)
    anchors = [(p.sources[0].line, p.fields["title"]) for p in result.papers if p.origin.value == "anchor"]
    snippets = [(p.sources[0].line, p.fields["abstract"]) for p in result.papers if p.origin.value == "snippet"]
    findings = [(f.check, f.severity.value, f.location.line) for f in result.findings]
    return anchors, snippets, findings


def test_an_abstract_that_begins_with_related_papers_is_a_snippet_not_a_new_list(tmp_path):
    # Read as a header, the abstract became the title of an invented anchor paper, and the paper was lost.
    text = HEADER + f"\r\n{GPIPE}\r\n\r\n{SURVEY}\r\n\r\n{ZERO}\r\n"
    anchors, snippets, findings = _read(tmp_path, text)
    assert anchors == [(1, "Switch Transformers: Scaling to Trillion Parameter Models")]
    assert snippets == [(3, GPIPE), (5, " ".join(SURVEY.replace("\u00a0", " ").split("\r\n"))), (9, ZERO)]
    assert findings == []


def test_a_file_that_begins_with_such_an_abstract_has_no_header(tmp_path):
    anchors, snippets, findings = _read(tmp_path, f"{SURVEY}\r\n\r\n{ZERO}\r\n")
    assert anchors == []
    assert [line for line, _ in snippets] == [1, 5]
    assert ("list-header", "info", 1) in findings


def test_a_header_with_its_title_and_a_venue_after_it_still_names_its_anchor(tmp_path):
    for title in (
        "Attention is all you need. NeurIPS 2017.",
        "GPipe: Easy Scaling with Micro-Batch Pipeline Parallelism. Huang et al., 2019",
        "GShard: Scaling Giant Models with Conditional Comp…",
        "Are We There Yet? Learned Index Structures at Scale",
    ):
        anchors, snippets, findings = _read(
            tmp_path, HEADER + f"\r\n{GPIPE}\r\n\r\nRelated papers: {title}\r\n{ZERO}\r\n"
        )
        assert [line for line, _ in anchors] == [1, 5], title
        assert snippets == [(3, GPIPE), (6, ZERO)], title
        assert findings == [], title


def test_a_header_that_cannot_be_told_from_an_abstract_stays_a_header_and_is_reported(tmp_path):
    # Several sentences that say "we", but short: perhaps a title with a note after it.
    text = HEADER + f"\r\n{GPIPE}\r\n\r\nRelated papers: Pipeline Parallelism. We read it twice\r\n\r\n{ZERO}\r\n"
    anchors, snippets, findings = _read(tmp_path, text)
    assert anchors[1:] == [(5, "Pipeline Parallelism. We read it twice")]
    assert snippets == [(3, GPIPE), (7, ZERO)]
    assert findings == [("list-header", "warning", 5)]


def test_a_header_with_a_snippet_in_lower_case_on_the_next_line_still_names_its_anchor(tmp_path):
    snippet = "we show that pipelines keep every device busy. We also bound the memory of each stage, and our…"
    anchors, snippets, findings = _read(
        tmp_path, f"Related papers: GPipe: Efficient Training of Giant Networks\n{snippet}\n"
    )
    assert anchors == [(1, "GPipe: Efficient Training of Giant Networks")]
    assert snippets == [(2, snippet)]
    assert findings == []


def test_a_related_papers_header_with_its_title_in_lower_case_still_names_its_anchor(tmp_path):
    # Lower case made a short title prose: the anchor was lost, the header became a snippet and the run said
    # there was no header. Its "we" and "?" make it doubtful at most: read as a header and reported.
    title = "what do we know about bert? a primer on how bert works"
    anchors, snippets, findings = _read(tmp_path, f"Related papers: {title}\r\n\r\n{GPIPE}\r\n")
    assert anchors == [(1, title)]
    assert snippets == [(3, GPIPE)]
    assert findings == [("list-header", "warning", 1)]
    anchors, snippets, findings = _read(tmp_path, HEADER + f"\r\n{GPIPE}\r\n\r\nRelated papers: {title}\r\n")
    assert anchors[1:] == [(5, title)]
    assert snippets == [(3, GPIPE)]
    assert findings == [("list-header", "warning", 5)]

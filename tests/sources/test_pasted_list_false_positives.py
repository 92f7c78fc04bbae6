"""Ordinary lists that the readings for lists copied from PDFs and web pages must leave as they were."""

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

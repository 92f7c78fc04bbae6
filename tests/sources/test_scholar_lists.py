"""Lists copied out of Google Scholar's result pages, as a browser copies them: each result's footer of links."""

from pathlib import Path

from helpers import run_cli

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


RESULTS = (
    HEADER
    + "\r\n[PDF] PipeDream: generalized pipeline parallelism for DNN\r\ntraining\r\n"
    + "D Narayanan, A Harlap, A Phanishayee… - Proceedings of the 27th …, 2019 - dl.acm.org\r\n"
    + "DNN training is extremely time-consuming, necessitating efficient multi-accelerator parallelization. Current\r\n"
    + "approaches to parallelizing training primarily use intra-batch parallelization …\r\n"
    + "Save Cite Cited by 1204 Related articles All 12 versions\r\n"
    + "[CITATION][C] Hardware scaling trends and diminishing returns in large-scale distributed training\r\n"
    + "J Fernandez, L van der Maaten, É Müller - arXiv preprint arXiv …, 2024\r\n"
    + "\r\nDeep residual learning for image recognition\r\nK He, X Zhang… - Neurocomputing, 2016 - Elsevier\r\n"
    + "We present a residual learning framework …\r\n"
)


def _records(tmp_path, text):
    path = tmp_path / "list.txt"
    path.write_bytes(text.encode("utf-8"))
    return [dict(p.fields) | {"line": p.sources[0].line} for p in read_source(path, "list.txt").papers]


def test_a_scholar_results_title_and_byline_are_its_title_authors_and_year_not_its_snippets_first_words(tmp_path):
    # Read as one paragraph, "[PDF] PipeDream: ... - dl.acm.org" opened the snippet: the paper was matched by
    # neither its title nor its year, and its key was anon-pdf-....
    anchor, pipedream, citation, published = _records(tmp_path, RESULTS)
    assert (published["title"], published["author"]) == (
        "Deep residual learning for image recognition",
        "He, K and Zhang, X and others",
    )
    assert pipedream == {
        "title": "PipeDream: generalized pipeline parallelism for DNN training",
        "author": "Narayanan, D and Harlap, A and Phanishayee, A and others",
        "year": "2019",
        "abstract": "DNN training is extremely time-consuming, necessitating efficient multi-accelerator "
        "parallelization. Current approaches to parallelizing training primarily use intra-batch parallelization …",
        "line": 3,
    }
    # A citation Scholar has no text of: the title alone, and every author (no "…").
    assert citation == {
        "title": "Hardware scaling trends and diminishing returns in large-scale distributed training",
        "author": "Fernandez, J and van der Maaten, L and Müller, É",
        "year": "2024",
        "line": 9,
    }
    assert anchor["title"] == "Switch Transformers: Scaling to Trillion Parameter Models"


def test_a_scholar_result_is_resolved_by_its_title_and_keyed_by_it_when_unresolved(tmp_path):
    (tmp_path / "list.txt").write_bytes(RESULTS.encode("utf-8"))
    catalog = Path(__file__).parents[2] / "seeds" / "catalog.bib"
    run = run_cli("bib", "list.txt", "--catalog", str(catalog), "-o", "-", cwd=tmp_path)
    assert "@misc{fernandez2024hardware," in run.stdout  # in the catalog: found by the title the byline was under
    assert "@misc{anon-pipedream-" in run.stdout  # not in it: a placeholder named by its title
    assert "title = {Unresolved title: {PipeDream}: generalized pipeline parallelism for {DNN} training}" in run.stdout


def test_lines_that_only_look_like_a_byline_leave_a_snippet_as_it_was(tmp_path):
    for second in (
        "training - a survey, 2019 - of methods",  # no author's initials
        "J. Smith, K. Lee - Proceedings, 2019 - acm.org",  # initials with full stops: not Scholar's
        "D Narayanan, A Harlap - Proceedings of the 27th",  # no year
        "D Narayanan - Proceedings, 2019 - not 4 host",
        "D Narayanan, , A Harlap - Proceedings, 2019 - acm.org",  # an empty name
        "D - Proceedings, 2019 - acm.org",
        "GPT Models - OpenAI, 2020",  # a snippet's line: no host after it, and the title is no [CITATION]
        "J Fernandez, L van der Maaten - arXiv preprint, 2024",
    ):
        text = HEADER + f"\r\nPipeDream: generalized pipeline parallelism\r\n{second}\r\nDNN training is slow …\r\n"
        _, *snippets = _records(tmp_path, text)
        assert snippets[0]["abstract"].startswith("PipeDream: generalized"), second
        assert not any("title" in snippet or "author" in snippet for snippet in snippets), second

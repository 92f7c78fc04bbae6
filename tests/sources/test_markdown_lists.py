"""Lists pasted from Markdown: emphasis marks around words are not the snippet's text; a `*` or `_` of its own is."""

from surveytool.sources.read import read_source

HEADER = "\ufeff## Related papers: Switch Transformers: Scaling to Trillion Parameter Models\r\n"


def _read(tmp_path, text, name="list.md"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    result = read_source(path, name)
    anchors = [p.fields["title"] for p in result.papers if p.origin.value == "anchor"]
    return anchors, [p.fields["abstract"] for p in result.papers if p.origin.value == "snippet"]


def test_bold_and_italic_marks_are_dropped_and_their_words_kept(tmp_path):
    # The marks stayed in the abstract: "**GPipe**" in the .bib, a word the tagger and matching never knew.
    text = HEADER + "\r\n- **GPipe** trains giant\u00a0networks by *pipelining* micro-batches…\r\n"
    text += "- __Abstract__: _Megatron-LM_ splits each ***transformer layer*** across\r\nGPUs with **intra-layer\r\n"
    text += "parallelism**…\r\n- *Megatron*\r\n"
    _, snippets = _read(tmp_path, text)
    assert snippets == [
        "GPipe trains giant networks by pipelining micro-batches…",
        "Abstract: Megatron-LM splits each transformer layer across GPUs with intra-layer parallelism…",
        "Megatron",
    ]


def test_a_star_or_underscore_that_is_no_emphasis_stays(tmp_path):
    kept = (
        "A 2*3 mesh of devices and a * b compute units scale with max_len and batch_size tokens…",
        "Footnotes mark authors* and** equal work (*), and `**kwargs**` or __init__ load the _model state…",
        "The optimum $x^*_1$ and $y_*$ of a $2*k$ grid, and x^* and y^* in plain text, are found…",
        "We compute 2*n*m flops, 3 * 4 * 5 shards, and x**2 memory, code at https://host.org/_private_/*x*…",
    )
    text = HEADER + "".join(f"\r\n{snippet}\r\n" for snippet in kept) + "\r\n* A bullet item …\r\n"
    _, snippets = _read(tmp_path, text)
    assert snippets == [*kept, "A bullet item …"]


def test_a_header_title_in_bold_is_the_title_without_its_marks(tmp_path):
    anchors, _ = _read(
        tmp_path, "Related papers: **GPipe: Easy Scaling with Micro-Batch Pipeline Parallelism**\n\nA…\n"
    )
    assert anchors == ["GPipe: Easy Scaling with Micro-Batch Pipeline Parallelism"]


def test_a_star_in_braces_stays(tmp_path):
    # "x^{*} and y^{*}" lost both stars: read as one emphasis from the first star to the second.
    kept = "The optimum x^{*} and y^{*} and the bound x_{*} of each stage are found in closed form…"
    _, snippets = _read(tmp_path, HEADER + f"\r\n{kept}\r\n\r\n*GPipe* splits x^{{*}} into _stages_…\r\n")
    assert snippets == [kept, "GPipe splits x^{*} into stages…"]


def test_an_address_without_a_slash_stays(tmp_path):
    # "www._x_.org" became "www.x.org": links were kept as written only in text with a "/", "`" or "$".
    kept = "Code and data are at www._x_.org and at _mirror_.org/data for anyone to rerun…"
    _, snippets = _read(tmp_path, HEADER + f"\r\n{kept}\r\n\r\n*GPipe* at www._gp_.io splits _stages_.\r\n")
    assert snippets == [kept, "GPipe at www._gp_.io splits stages."]

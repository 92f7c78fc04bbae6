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

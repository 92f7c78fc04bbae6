from surveytool.sources.list_reading import read_paper_list
from surveytool.sources.paper_list import is_truncated, looks_like_paper_list, parse_paper_list, strip_ellipsis


def test_header_paragraphs_and_lines():
    text = "Related papers: GShard: Scaling Giant Models with Conditional Comp…\n\nFirst snippet…\n\n\nSecond one.\n"
    document = parse_paper_list(text)
    assert document.anchor_title == "GShard: Scaling Giant Models with Conditional Comp…"
    assert document.anchor_line == 1 and document.anchor_truncated
    assert [(p.text, p.line, p.truncated) for p in document.paragraphs] == [
        ("First snippet…", 3, True),
        ("Second one.", 6, False),
    ]


def test_header_variants():
    for header in ("相关论文: Title", "相关论文：Title", "RELATED PAPERS: Title", "related paper : Title"):
        assert parse_paper_list(header + "\n\nText").anchor_title == "Title", header
        assert looks_like_paper_list(header)


def test_missing_header_keeps_every_paragraph():
    document = parse_paper_list("Only a paragraph...\n\nAnother")
    assert document.anchor_title is None
    assert [p.line for p in document.paragraphs] == [1, 3]
    assert document.paragraphs[0].truncated


def test_bom_crlf_cr_and_whitespace_only_separators():
    for newline in ("\r\n", "\r", "\n"):
        text = (
            "\ufeffRelated papers: T"
            + newline
            + "  "
            + newline
            + "a b  "
            + newline
            + "c"
            + newline
            + " \t "
            + newline
            + "d"
        )
        document = parse_paper_list(text)
        assert document.anchor_title == "T"
        assert [(p.text, p.line) for p in document.paragraphs] == [("a b c", 3), ("d", 6)]


def test_hard_wrapped_hyphen_is_kept():
    document = parse_paper_list("x\n\ndata-\nparallel training")
    assert document.paragraphs[-1].text == "data-parallel training"


def test_text_is_kept_exactly_without_latex_interpretation():
    snippet = r"50% of \textbf{GPUs} & $x_i$ {braces} \input{evil}"
    assert parse_paper_list(f"Related papers: A\n\n{snippet}").paragraphs[0].text == snippet


def test_ellipsis_helpers():
    assert is_truncated("abc…") and is_truncated("abc...") and not is_truncated("abc.")
    assert strip_ellipsis("Conditional Comp…") == "Conditional Comp"


def test_chinese_ellipsis_in_its_own_marks_or_ascii_dots_is_all_stripped_from_an_anchor_title():
    # Six dots (Chinese's doubled ellipsis written with ASCII dots) left "..." on the title, and "……" left "…".
    for mark in ("......", "……"):
        text = f"相关论文：面向大规模模型的流水线并行训练方法{mark}\r\n\r\n我们提出一种新的流水线调度方法……\r\n"
        [anchor, snippet], _ = read_paper_list(text, "list.txt")
        assert anchor.title == "面向大规模模型的流水线并行训练方法" and anchor.truncated
        assert snippet.truncated


def test_header_written_with_a_dash_or_any_case():
    for header in (
        "Related papers - Title",
        "Related Papers — Title",
        "related papers – Title",
        "RELATED PAPERS: Title",
        "Related papers —Title",
    ):
        assert parse_paper_list(header + "\nText").anchor_title == "Title", header
        assert looks_like_paper_list(header)
    # A sentence that begins with the words is not a header.
    assert parse_paper_list("Related papers-based surveys are common.\n").anchor_title is None


def test_titles_one_per_line_are_one_paper_each_but_a_wrapped_abstract_is_one():
    titles = parse_paper_list(
        "Related papers: X\nAttention Is All You Need\nGShard: Scaling Giant Models\n"
        "Mixture-of-Experts with Expert Choice Routing\n"
    )
    assert [(p.text, p.line) for p in titles.paragraphs] == [
        ("Attention Is All You Need", 2),
        ("GShard: Scaling Giant Models", 3),
        ("Mixture-of-Experts with Expert Choice Routing", 4),
    ]
    for wrapped in (
        "We shard the experts of\nGShard across devices.",
        "Large models are trained across\nGPUs and TPUs",
        "Pipelines keep devices busy. We\nShow how",
    ):
        assert len(parse_paper_list("Related papers: X\n" + wrapped).paragraphs) == 1, wrapped

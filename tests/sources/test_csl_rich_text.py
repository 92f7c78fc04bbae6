"""CSL rich text (the tags citeproc reads) as BibTeX LaTeX."""

from surveytool.sources.csl_rich_text import rich_text


def test_a_less_than_sign_in_markup_keeps_the_command_s_braces():
    # The braces of a "<" alone in a nocase span were taken off the whole result afterwards, so a "<" in italics,
    # \textit{\textless{}}, became \textit\textless{}: a command with no braced argument.
    assert rich_text("a <i><</i> b", title=True).latex == r"a \textit{\textless{}} b"
    assert rich_text("<sup><</sup>").latex == r"\textsuperscript{\textless{}}"
    # A nocase span of no letters has no case to protect, whatever it holds; one with letters keeps its braces.
    nocase = '<span class="nocase"><</span>i> <span class="nocase">&</span> <span class="nocase">iPod</span>'
    assert rich_text(nocase, title=True).latex == r"\textless{}i\textgreater{} \& {iPod}"
    assert rich_text('<span class="nocase"><i>A</i></span>').latex == r"{\textit{A}}"

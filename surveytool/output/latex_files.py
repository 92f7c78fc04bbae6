"""The context the chapter's templates render from, and main.tex around it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from surveytool.model import Taxonomy
from surveytool.options import DraftOptions
from surveytool.output.chapter_view import PaperView, one_paragraph, publication_trend, summary_rows, view_groups
from surveytool.output.comparison import comparison_tables
from surveytool.output.notes_regions import regions
from surveytool.output.render import LEVELS, render_template
from surveytool.output.section_themes import with_themes
from surveytool.text.latex import UNKNOWN_CHAR_MACRO, char_spelling, declared_chars

if TYPE_CHECKING:
    import jinja2


#: Citations a section shows in the taxonomy figure; past it, the number of papers, so that the tree of the
#: default taxonomy stays legible on one page.
FIGURE_CITES = 8


def chapter_context(views: Sequence[PaperView], taxonomy: Taxonomy, draft: DraftOptions) -> dict[str, Any]:
    """What related_work.tex.j2 and main.tex.j2 are rendered with."""
    groups = view_groups(views, taxonomy)
    if draft.themes:
        groups = with_themes(groups)
    return {
        "title": one_paragraph(taxonomy.title),
        "levels": LEVELS[draft.level],
        "groups": groups,
        "rows": summary_rows(groups, taxonomy),
        "comparisons": comparison_tables(groups) if draft.comparisons else {},
        "trend": publication_trend(groups),
        "figure": draft.figure,
        "figure_cites": FIGURE_CITES,
        "table": draft.table,
        "plot": draft.plot,
        "document_class": "report" if draft.level == "chapter" else "article",
        "chapter_file": draft.chapter_file,
        "bibliography": draft.bibliography,
        "dialect": draft.dialect,
    }


def render_main(env: jinja2.Environment, context: dict[str, Any], declared: list[str], chapter: str = "") -> str:
    """main.tex, declaring the ``declared`` characters (``latex.declared_chars`` of the .bib) to pdfLaTeX, and
    those of the author's notes in the ``chapter`` as written (大, α in a sentence would stop the document)."""
    # The chapter as written keeps the line ends its author's editor saved it with: notes are read on "\n" lines.
    notes = regions(chapter.replace("\r\n", "\n").replace("\r", "\n")).values()
    declared = sorted({*declared, *declared_chars(*notes)})
    # The .bib keeps UTF-8 that inputenc may not know (β, ′); each is declared with its LaTeX spelling, or
    # without one (CJK, emoji) as a visible [U+XXXX] marker, instead of stopping the document.
    spellings = [(code, char_spelling(code)) for code in declared]
    fallbacks = [code for code, spelling in spellings if spelling.startswith(f"\\{UNKNOWN_CHAR_MACRO}{{")]
    return render_template(
        env, "main.tex.j2", {**context, "unicode_spellings": spellings, "unicode_fallbacks": fallbacks}
    )

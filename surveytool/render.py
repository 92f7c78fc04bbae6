"""The jinja2 environment and the LaTeX outputs: chapter, standalone document.

Every value printed by a template is escaped by ``finalize`` unless it is
:class:`LatexMarkup`; filters that build LaTeX (``cite``, ``label``) return
LatexMarkup. Templates use LaTeX-friendly delimiters: ``\\VAR{...}`` for values,
``%%`` at a line start for statements, ``%#`` for template comments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from .errors import TemplateError
from .fragments import FragmentExtension
from .latex import UNKNOWN_CHAR_MACRO, LatexMarkup, comment_text, escape_text, usable_key
from .resources import bundled_dir

LEVELS = {"chapter": ("chapter", "section", "subsection"), "section": ("section", "subsection", "subsubsection")}


def _finalize(value: Any) -> Any:
    if isinstance(value, LatexMarkup):
        return value
    if value is None:
        return ""
    return escape_text(str(value))


def cite(keys: Any, command: str = "citet") -> LatexMarkup:
    """A citation; keys LaTeX cannot cite are printed as a visible note instead of breaking the document."""
    if isinstance(keys, str):
        keys = [keys]
    usable = [k for k in keys if usable_key(k)]
    unusable = [k for k in keys if not usable_key(k)]
    parts = [f"\\{command}{{{','.join(usable)}}}"] if usable else []
    parts.extend(f"\\textbf{{[key {escape_text(k)} cannot be cited]}}" for k in unusable)
    return LatexMarkup(" ".join(parts))


def label(section_id: str, prefix: str = "sec:rw") -> LatexMarkup:
    return LatexMarkup(f"{prefix}:{section_id}")


def make_environment(templates_dir: Path | None = None) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = []
    if templates_dir is not None:
        if not templates_dir.is_dir():
            raise TemplateError("no such templates folder", path=str(templates_dir),
                                hint="give a folder holding some of the templates in templates/ to override them")
        loaders.append(jinja2.FileSystemLoader(str(templates_dir)))
    loaders.append(jinja2.FileSystemLoader(str(bundled_dir("templates"))))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        block_start_string=r"\BLOCK{",
        block_end_string="}",
        variable_start_string=r"\VAR{",
        variable_end_string="}",
        comment_start_string=r"\#{",
        comment_end_string="}",
        line_statement_prefix="%%",
        line_comment_prefix="%#",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
        undefined=jinja2.StrictUndefined,
        extensions=[FragmentExtension],
    )
    env.filters["cite"] = cite
    env.filters["citet"] = lambda k: cite(k, "citet")
    env.filters["citep"] = lambda k: cite(k, "citep")
    env.filters["citealp"] = lambda k: cite(k, "citealp")
    env.filters["label"] = label
    env.filters["comment"] = comment_text
    env.filters["latex"] = escape_text
    env.globals["UNKNOWN_CHAR_MACRO"] = LatexMarkup(UNKNOWN_CHAR_MACRO)
    return env


def render_template(env: jinja2.Environment, name: str, context: dict[str, Any]) -> str:
    """The rendered template; a template's own mistake becomes a message naming its file and line."""
    try:
        return env.get_template(name).render(**context)
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(f"template syntax: {error.message}", path=error.filename or name, line=error.lineno,
                            hint="see the template variables and delimiters in the README") from None
    except jinja2.UndefinedError as error:
        path, line = _template_position(error.__traceback__, name)
        raise TemplateError(f"template uses an unknown variable: {error.message}", path=path, line=line,
                            hint="see the template variables in the README") from None


def _template_position(traceback: Any, name: str) -> tuple[str, int | None]:
    """The innermost template file and line in a traceback (jinja2 maps its frames to them)."""
    found: tuple[str, int | None] = (name, None)
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if filename.endswith(".j2"):
            found = (filename, traceback.tb_lineno)
        traceback = traceback.tb_next
    return found

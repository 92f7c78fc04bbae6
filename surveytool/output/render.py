"""The jinja2 environment and the LaTeX outputs: chapter, standalone document.

Every value printed by a template is escaped by ``finalize`` unless it is
:class:`LatexMarkup`; filters that build LaTeX (``cite``, ``label``) return
LatexMarkup. Templates use LaTeX-friendly delimiters: ``\\VAR{...}`` for values,
``%%`` at a line start for statements, ``%#`` for template comments.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

import jinja2
from jinja2.loaders import split_template_path
from jinja2.sandbox import SecurityError

from surveytool.errors import TemplateError
from surveytool.output.fragments import FragmentExtension
from surveytool.output.sandbox import (
    RENDER_MEMORY,
    RENDER_SECONDS,
    BoundedSandbox,
    TemplateTooSlow,
    ValueTooLarge,
    bounded_output,
    memory_budget,
    time_budget,
)
from surveytool.resources import bundled_dir
from surveytool.sources.bounded import SETTINGS_LIMIT
from surveytool.text.control_chars import shown
from surveytool.text.latex import UNKNOWN_CHAR_MACRO, LatexMarkup, comment_text, escape_text, usable_key

LEVELS = {"chapter": ("chapter", "section", "subsection"), "section": ("section", "subsection", "subsubsection")}
#: LaTeX's sectioning commands, top down: a taxonomy nested deep is headed further down them.
SECTIONING = ("chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")


def heading(levels: Any, below: int, highest: str = "") -> str:
    """The sectioning command ``below`` levels under the chapter's top heading (``levels[0]``), \\subparagraph
    at the deepest (LaTeX has none further down), and no higher than ``highest``."""
    index = min(max(SECTIONING.index(str(levels[0])) + below, 0), len(SECTIONING) - 1)
    return SECTIONING[max(index, SECTIONING.index(highest))] if highest else SECTIONING[index]


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


class _UserTemplateLoader(jinja2.FileSystemLoader):
    """The --templates folder: a template there that is not a regular file (a FIFO, a link to a device) or is
    far larger than any template is refused, not passed over for the bundled one or read without end."""

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        filename = os.path.join(self.searchpath[0], *split_template_path(template))
        try:
            status = os.stat(filename)
        except OSError:
            status = None
        if status is not None and not stat.S_ISREG(status.st_mode) and not stat.S_ISDIR(status.st_mode):
            raise TemplateError("template is not a regular file", path=filename, hint="save the template as a file")
        if status is not None and status.st_size > SETTINGS_LIMIT:
            raise TemplateError(
                f"template is too large ({status.st_size:,} bytes)", path=filename, hint="is this the right file?"
            )
        return super().get_source(environment, template)


def make_environment(templates_dir: Path | None = None) -> jinja2.Environment:
    """The environment of the bundled templates, or, with ``templates_dir``, a sandboxed one that prefers its templates.

    A template folder can come with a paper's template from anyone: its templates may print
    values and call filters, but neither reach Python's internals nor run programs.
    """
    loaders: list[jinja2.BaseLoader] = []
    if templates_dir is not None:
        if not templates_dir.is_dir():
            raise TemplateError(
                "no such templates folder",
                path=str(templates_dir),
                hint="give a folder holding some of the templates in templates/ to override them",
            )
        try:
            os.listdir(templates_dir)
        except OSError as error:
            raise TemplateError(
                f"templates folder cannot be read ({error.strerror})",
                path=str(templates_dir),
                hint="check its permissions",
            ) from None
        loaders.append(_UserTemplateLoader(str(templates_dir)))
    loaders.append(jinja2.FileSystemLoader(str(bundled_dir("templates"))))
    kind = jinja2.Environment if templates_dir is None else BoundedSandbox
    env = kind(
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
    env.filters["heading"] = heading
    env.filters["comment"] = shown_comment
    env.filters["latex"] = escape_text
    env.globals["UNKNOWN_CHAR_MACRO"] = LatexMarkup(UNKNOWN_CHAR_MACRO)
    env.extend(user_templates=None if templates_dir is None else os.path.abspath(templates_dir))
    if isinstance(env, BoundedSandbox):
        env.bound_filters()
    return env


def shown_comment(text: str) -> LatexMarkup:
    """Plain text for a ``%`` comment, its control and bidi control characters written as ``\\x1b``, ``\\u202e``:
    the file is read in terminals and editors, where an escape sequence would run and a bidi override reorder
    the line ("Trojan Source")."""
    return LatexMarkup(shown(comment_text(text)))


def render_template(env: jinja2.Environment, name: str, context: dict[str, Any]) -> str:
    """The rendered template; a template's own mistake becomes a message naming its file and line."""
    try:
        if not isinstance(env, BoundedSandbox):
            return env.get_template(name).render(**context)
        with time_budget(RENDER_SECONDS), memory_budget(RENDER_MEMORY):
            return bounded_output(env.get_template(name).generate(**context))
    except TemplateError:
        raise
    except TemplateTooSlow as error:
        path, line = _template_position(error.__traceback__, name, getattr(env, "user_templates", None))
        raise TemplateError(
            f"template is too slow: {error}",
            path=path,
            line=line,
            hint="a loop that never ends, or loops nested too deep?",
        ) from None
    except ValueTooLarge as error:
        path, line = _template_position(error.__traceback__, name, getattr(env, "user_templates", None))
        raise TemplateError(
            f"template asks for too much: {error}",
            path=path,
            line=line,
            hint="a template prints the survey; it need not make values this large",
        ) from None
    except MemoryError:
        path, line = _template_position(sys.exc_info()[2], name, getattr(env, "user_templates", None))
        raise TemplateError(
            f"template asks for too much: more than {RENDER_MEMORY >> 30} GB of memory",
            path=path,
            line=line,
            hint="a template prints the survey; it need not make values this large",
        ) from None
    except jinja2.TemplateSyntaxError as error:
        raise TemplateError(
            f"template syntax: {error.message}",
            path=error.filename or name,
            line=error.lineno,
            hint="see the template variables and delimiters in the README",
        ) from None
    except jinja2.UndefinedError as error:
        path, line = _template_position(error.__traceback__, name)
        raise TemplateError(
            f"template uses an unknown variable: {error.message}",
            path=path,
            line=line,
            hint="see the template variables in the README",
        ) from None
    except SecurityError as error:
        path, line = _template_position(error.__traceback__, name)
        raise TemplateError(
            f"template is not allowed to do this: {error}",
            path=path,
            line=line,
            hint="templates may print values and use filters, not reach Python's internals",
        ) from None
    except jinja2.TemplateNotFound as error:
        path, line = _template_position(error.__traceback__, name)
        raise TemplateError(
            f"template not found: {error.name}",
            path=path,
            line=line,
            hint="name a template of the --templates folder or of templates/",
        ) from None
    except UnicodeDecodeError as error:
        raise TemplateError(
            f"template is not UTF-8 (byte {error.start})", path=_failed_file(error, name), hint="save it as UTF-8"
        ) from None
    except OSError as error:
        raise TemplateError(
            f"template cannot be read ({error.strerror})", path=error.filename or name, hint="check its permissions"
        ) from None
    except Exception as error:
        user = getattr(env, "user_templates", None)
        path, line = _template_position(error.__traceback__, name, user)
        if user is None or not os.path.abspath(path).startswith(user + os.sep):
            raise  # in surveytool's own templates or code: a bug
        raise TemplateError(
            f"template failed: {type(error).__name__}: {_one_line(error)}",
            path=path,
            line=line,
            hint="fix the template; see the template variables in the README",
        ) from None


def _template_position(traceback: Any, name: str, folder: str | None = None) -> tuple[str, int | None]:
    """The innermost template file and line in a traceback (jinja2 maps its frames to them).

    With ``folder``, the innermost frame of a template in it: a template's mistake, though a filter raised it.
    """
    # The budget can run out outside the template's own frames (compiling it, joining its output): its file then.
    own = os.path.join(folder, name) if folder else ""
    found: tuple[str, int | None] = (own if own and os.path.isfile(own) else name, None)
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if os.path.abspath(filename).startswith(folder + os.sep) if folder else filename.endswith(".j2"):
            found = (filename, traceback.tb_lineno)
        traceback = traceback.tb_next
    return found


def _failed_file(error: UnicodeDecodeError, name: str) -> str:
    """The template file whose reading raised ``error`` (a frame of jinja2's loader names it)."""
    traceback = error.__traceback__
    found = name
    while traceback is not None:
        filename = traceback.tb_frame.f_locals.get("filename")
        found = filename if isinstance(filename, str) else found
        traceback = traceback.tb_next
    return found


def _one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:199] + "…"

"""Errors a user can fix. The CLI prints them as one line; anything else is a bug."""

from __future__ import annotations

import re


class SurveyToolError(Exception):
    """A problem with the user's input or options, with a hint on how to fix it."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.hint = hint

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = f"{self.path}:{self.line}: " if self.line else f"{self.path}: "
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}error: {self.message}{hint}"


class InputError(SurveyToolError):
    """A source file is missing, unreadable or not of a kind we can read."""


class TaxonomyError(SurveyToolError):
    """A taxonomy file is malformed; ``more`` are its other problems, each told on a line of its own."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        hint: str = "",
        more: tuple[TaxonomyError, ...] = (),
    ):
        super().__init__(message, path=path, line=line, hint=hint)
        self.more = more

    @property
    def problems(self) -> tuple[TaxonomyError, ...]:
        return (self, *self.more)

    def __str__(self) -> str:
        return "\n".join(SurveyToolError.__str__(problem) for problem in self.problems)


class OutputError(SurveyToolError):
    """An output file could not be written."""


class TemplateError(SurveyToolError):
    """A template (bundled or the user's, with --templates) cannot be rendered."""


_TOML_POSITION = re.compile(r" ?\((?:at line (\d+), column \d+|(at end of document))\)")


def toml_problem(error: ValueError, text: str) -> tuple[str, int | None]:
    """What tomllib says is wrong, without its position, and the line it names: the last one when it read to the
    end of the file (an unclosed string or array) and says only "at end of document"."""
    said = str(error)
    where = _TOML_POSITION.search(said)
    message = _TOML_POSITION.sub("", said).strip()
    if "\r" in text.replace("\r\n", ""):  # classic Mac OS line ends: tomllib says what it expected, not why
        message += " (the file has carriage returns alone: save it with LF or CRLF line ends, as TOML asks)"
    if where is None:
        return message, None
    if where.group(2):
        return f"{message} at the end of the file", len(text.rstrip("\n").split("\n"))
    return message, int(where.group(1))

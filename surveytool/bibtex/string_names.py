"""What is wrong with a @string's name: one defined twice, one holding a control character."""

from __future__ import annotations

from surveytool.model import Finding, RawBlock, Severity, SourceLocation
from surveytool.text.control_chars import CONTROL_CHARS, escaped
from surveytool.text.latex import without_control_chars


def string_block(name: str, value: str, where: SourceLocation) -> tuple[RawBlock, Finding | None]:
    """The block kept for the .bib surveytool writes of ``@string{name = value}`` read at ``where``, and an
    ``unusable-key`` error when its name holds a control character: written raw, an escape sequence would run in
    the terminal that shows the file. The name is written without them, as the fields that use it are (their
    control characters are dropped), and so is the value, as a field's is. A bidi control is kept in both, as
    the fields that use the name keep it (``bidi_controls.block_bidi_findings`` warns)."""
    value = without_control_chars(value)
    hidden = next((char for char in name if char in CONTROL_CHARS), "")
    if not hidden:
        return RawBlock("string", f"@string{{{name} = {value}}}", where, name), None
    kept = "".join(char for char in name if char not in CONTROL_CHARS) or "unnamed"
    message = (
        f"@string name '{name}' has the control character {escaped(hidden)}, which terminals and editors act on; "
        f"bib -o and build write it as '{kept}'"
    )
    hint = "delete the character where the @string is defined and where it is used"
    found = Finding("unusable-key", Severity.ERROR, message, where, hint, name)
    return RawBlock("string", f"@string{{{kept} = {value}}}", where, kept), found


def duplicate_string(name: str, first_line: int, where: SourceLocation) -> Finding:
    first = SourceLocation(where.path, first_line)
    return Finding(
        "duplicate-key",
        Severity.WARNING,
        f"@string '{name}' is defined again here (first at {first}); surveytool uses the first "
        "definition and writes this one back as it is",
        where,
        "delete or rename one of the definitions",
        name,
        (first,),
    )

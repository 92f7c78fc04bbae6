"""A brace or quote after ``\\\\`` (a line break), read as BibTeX and TeX read it.

bibtexparser takes any brace or quote after a backslash for text, so ``title = {A\\\\{\\em x} y}`` ends, for it,
at the ``}`` after ``x``; BibTeX counts that brace, as TeX does after a line break, and reads the value whole.
The ``\\\\`` before such a mark is masked by two characters of the same length, which no backslash precedes, for
bibtexparser to read the chunk, and put back in every value and raw text it gives.
"""

from __future__ import annotations

import re

from bibtexparser import model

# An even run of backslashes, then a brace or a quote: its last \\ is masked.
_LINE_BREAK_MARK = re.compile(r'(?<!\\)(?:\\\\)*(\\\\)(?=[{}"])')
_MASK = "\ue000\ue001"  # private-use characters: a chunk that holds them is not masked


def masked_line_breaks(text: str) -> str | None:
    """``text`` with the ``\\\\`` before each brace or quote masked (offsets and lines kept); None where none is."""
    if "\\\\" not in text or _MASK[0] in text or _MASK[1] in text:
        return None
    masked = _LINE_BREAK_MARK.sub(lambda m: m.group()[: m.start(1) - m.start()] + _MASK, text)
    return masked if masked != text else None


def unmasked(block: model.Block) -> model.Block:
    """``block`` as read from the masked text, with each ``\\\\`` put back."""

    def back(text: str) -> str:
        return text.replace(_MASK, "\\\\") if _MASK[0] in text else text

    line, raw = block.start_line, back(block.raw) if block.raw is not None else None
    if isinstance(block, model.Entry):
        fields = [model.Field(f.key, back(f.value), f.start_line, f.enclosing) for f in block.fields]
        return model.Entry(block.entry_type, block.key, fields, line, raw)
    if isinstance(block, model.String):
        return model.String(block.key, back(block.value), line, raw, block.enclosing)
    if isinstance(block, model.Preamble):
        return model.Preamble(back(block.value), line, raw)
    if isinstance(block, model.ExplicitComment):
        return model.ExplicitComment(back(block.comment), line, raw)
    if isinstance(block, model.ImplicitComment):
        return model.ImplicitComment(back(block.comment), line, raw)
    return block  # a failed block: reader.py reads its region from the file's own text

"""The heading filter: a nested taxonomy's headings go down LaTeX's sectioning commands and stop at the last."""

import pytest

from surveytool.output.render import LEVELS, heading


@pytest.mark.parametrize(
    ("level", "below", "highest", "expected"),
    [
        ("section", 1, "", "subsection"),
        ("section", 3, "", "paragraph"),
        ("section", 9, "", "subparagraph"),  # LaTeX has nothing below
        ("chapter", 2, "", "subsection"),
        ("chapter", 3, "paragraph", "paragraph"),  # a theme stays a \paragraph under a \subsection
        ("section", 4, "paragraph", "subparagraph"),
        ("section", -5, "", "chapter"),
    ],
)
def test_heading_counts_down_from_the_top_level_within_latexs_commands(level, below, highest, expected):
    assert heading(LEVELS[level], below, highest) == expected

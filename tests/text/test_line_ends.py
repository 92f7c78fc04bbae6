"""Line endings as users' editors write them: LF, CRLF and old Mac's lone CR, alone or mixed."""

import pytest

from surveytool.text.line_ends import line_breaks_at_end, line_start, newline_of, next_line_break


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\nb\n", "\n"),
        ("a\r\nb\r\n", "\r\n"),
        ("a\rb\r", "\r"),
        ("a\rb\rc\r\nd\n", "\r"),  # a CRLF is one ending, not a CR and an LF
        ("a\r\nb\n", "\n"),  # a tie keeps LF
        ("one line", "\n"),
    ],
)
def test_the_ending_most_lines_have_is_the_text_s(text, expected):
    assert newline_of(text) == expected


def test_a_text_without_a_line_break_takes_the_default():
    assert newline_of("@misc{k, title = {T}}", "\r") == "\r"
    assert newline_of("a\nb", "\r") == "\n"


def test_lines_are_found_by_all_three_endings():
    text = "ab\rcd\r\nef\ngh"
    assert [line_start(text, text.index(c)) for c in "bdfh"] == [0, 3, 7, 10]
    found = next_line_break(text, 4)
    assert found is not None and found.group() == "\r\n" and found.start() == 5
    assert next_line_break(text, 11) is None


@pytest.mark.parametrize(
    ("text", "count"),
    [("x", 0), ("x\r\n", 1), ("x\r", 1), ("x\n\r\n", 2), ("x\r\r", 2), ("x\r\n\r\n\r\n", 2), ("", 0)],
)
def test_the_line_breaks_a_text_ends_with_are_counted_a_crlf_once(text, count):
    assert line_breaks_at_end(text) == count

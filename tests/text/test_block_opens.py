"""Where BibTeX reads an @ as opening a block: the same answer as a plain search, in linear time."""

from hypothesis import given, settings
from hypothesis import strategies as st

from surveytool.text.block_opens import BIBTEX_BLOCK_OPENS, block_opens


def searched(text: str) -> list[tuple[int, int, str, str]]:
    """The answer of the plain search, retried after each block it finds."""
    found, position = [], 0
    while (opened := BIBTEX_BLOCK_OPENS.search(text, position)) is not None:
        found.append((opened.start(), opened.end(), opened.group(1), opened.group(2)))
        position = opened.end()
    return found


def opens(text: str) -> list[tuple[int, int, str, str]]:
    return [(m.start(), m.end(), m.group(1), m.group(2)) for m in block_opens(text)]


@settings(max_examples=1000)
@given(st.text(alphabet="@a9- \t\n{}()=,\u00a0\u3000é", max_size=60))
def test_the_blocks_opened_are_the_plain_searchs(text):
    assert opens(text) == searched(text)


def test_an_at_in_a_name_and_a_digit_after_an_at_are_read_as_bibtex_does():
    # "@a@b{": one block of type "a@b"; "@9x@b{": no name starts with a digit, so the block is "@b{".
    assert opens("% @a@b{k,") == [(2, 7, "a@b", "{")]
    assert opens("@9x@b{k,") == [(3, 6, "b", "{")]
    assert opens("@a@b x @c (") == [(7, 11, "c", "(")]
    assert opens("@@ @(") == [(1, 5, "@", "(")]  # the first @'s name is "@", which opens nothing; the second's opens


def test_white_space_is_bibtex_s_own_a_no_break_space_is_part_of_a_name():
    assert opens("@\u00a0x {") == [(0, 5, "\u00a0x", "{")]
    assert opens("@a@\u00a0 x{") == []  # the names "a@\u00a0" and "\u00a0" are each followed by " x"

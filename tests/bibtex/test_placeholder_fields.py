from dataclasses import replace

from surveytool.bibtex.fields import bibtex_entry
from surveytool.bibtex.placeholders import is_placeholder_key
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping


def test_a_placeholder_key_is_recognised_in_the_old_shared_form_and_the_new_per_entry_form():
    # Files written before placeholders had labels of their own still say just "Unresolved".
    assert is_placeholder_key("Unresolved")
    assert is_placeholder_key("Unresolved anon-gain-85bb")
    assert not is_placeholder_key("Unresolvedness")
    assert not is_placeholder_key("Microsoft Research")


def placeholder(name, **fields):
    return Paper(
        Origin.SNIPPET,
        (SourceLocation("list.txt", 3),),
        frozen_mapping({"abstract": "We pipeline the stages…", **fields}),
        key=name,
    )


def test_a_placeholder_label_is_escaped_once():
    written = bibtex_entry(placeholder("pipe_snippet"))
    assert "key = {Unresolved pipe\\_snippet}," in written


def test_a_placeholder_written_with_the_old_shared_label_gets_a_label_of_its_own():
    read_back = replace(
        placeholder("anon-pipe-1a2b", title="Unresolved snippet: We pipeline the stages…", key="Unresolved"),
        origin=Origin.BIBTEX,
    )
    assert "key = {Unresolved anon-pipe-1a2b}," in bibtex_entry(read_back)

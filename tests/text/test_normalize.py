"""Comparing texts: where the ASCII words of ``normalize`` stand for a text, and where its letters in any script."""

from __future__ import annotations

import pytest

from surveytool.analysis.merge import merge_duplicates
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.text.normalize import drops_letters, normalize, normalize_any_script


@pytest.mark.parametrize(
    "text", ["Deep Things", "Rényi divergence", "Ｆｕｌｌｗｉｄｔｈ", "ﬁne-tuning", "H₂O at 25 °C"]
)
def test_a_text_whose_letters_all_have_an_ascii_spelling_is_compared_by_its_ascii_words(text):
    assert not drops_letters(text)
    assert normalize_any_script(text) == normalize(text)


@pytest.mark.parametrize("text", ["基于BERT的文本分类", "Rényi α-divergence", "Straße", "Eﬃcient α-divergence", "⑪ α"])
def test_a_text_with_letters_normalize_drops_is_compared_by_its_words_in_any_script(text):
    assert drops_letters(text)
    assert normalize_any_script(text) != normalize(text)


def test_two_titles_told_apart_by_a_greek_letter_beside_a_ligature_are_two_papers():
    # Copied from a PDF, "ffi" is one ligature: its three ASCII letters hid the α and β from a count of letters,
    # and the two papers were merged into one.
    titles = ["Eﬃcient α-divergence training for deep models", "Eﬃcient β-divergence training for deep models"]
    papers = [
        Paper(Origin.ANCHOR, (SourceLocation("list.txt", n),), frozen_mapping({"title": t, "year": "2021"}))
        for n, t in enumerate(titles, 1)
    ]
    assert normalize_any_script(titles[0]) == normalize_any_script(titles[0].replace("ﬃ", "ffi"))
    assert [p.title for p in merge_duplicates(papers)] == titles

"""Comparing texts: where the ASCII words of ``normalize`` stand for a text, and where its letters in any script."""

from __future__ import annotations

import pytest

from surveytool.analysis.merge import merge_duplicates
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.text.normalize import drops_letters, normalize, normalize_any_script, strip_truncation


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


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("大规模模型的流水线并行训练方法研究…", "大规模模型的流水线并行训练方法研"),  # the last character may be cut
        ("大规模模型的流水线并行训练方法研究……", "大规模模型的流水线并行训练方法研"),  # Chinese's own ellipsis
        ("大规模模型。流水线并行训练...", "大规模模型。流水线并行训"),
        ("分布式训练。…", "分布式训练。"),  # ends in punctuation: nothing cut
        ("分布式训练GPT…", "分布式训练"),  # a Latin word cut after Chinese goes whole
        ("ผลการทดลอง…", "ผลการทดลอ"),  # Thai is written without spaces too
        ("基于 Transformer 的大规模模型训练…", "基于 Transformer 的大规模模型训"),  # a space before the last piece
        ("我们在 1024 张 GPU 上训练GPT…", "我们在 1024 张 GPU 上训练"),
        ("大规模模型的流水线并行训练方法研究......", "大规模模型的流水线并行训练方法研"),  # "……" in ASCII dots
        ("a cut wor......", "a cut"),
        ("a cut wor…", "a cut"),
        ("Transformers…", ""),  # one Latin word, cut: nothing known of it
    ],
)
def test_a_cut_text_without_spaces_loses_its_last_character_not_all_of_it(text, kept):
    # The whole unspaced text was read as one cut word and thrown away: a Chinese snippet had no words left.
    assert strip_truncation(text) == kept

from surveytool.analysis.tagging.vocabulary import PhraseMatcher, name_parts


def found(phrases: list[str], text: str) -> list[str]:
    return [matched for _, matched in PhraseMatcher(phrases).find(text)]


def test_the_longest_phrase_wins_and_a_phrase_inside_it_is_not_found_again():
    assert found(["parallel*", "pipeline parallel*"], "Pipeline Parallelism at Scale") == ["pipeline parallelism"]


def test_phrases_that_only_overlap_are_both_found():
    # "model" is the end of one phrase and the start of the other: neither is inside the other.
    phrases = ["performance model", "model merging"]
    assert found(phrases, "Tuning-Free High-Performance Model Merging") == ["performance model", "model merging"]


def test_a_wildcard_matches_any_ending_but_only_at_a_word_start():
    assert found(["moe*"], "MoEs and FasterMoE") == ["moes"]


def test_compound_names_are_written_apart_at_their_seams_and_acronyms_are_not():
    text = "FasterMoE: DeepSpeed-MoE, ZeRO and LoRA on PyTorch"
    assert name_parts(text) == ["Faster MoE", "Deep Speed", "Py Torch"]
    assert name_parts("MoE, GPT-3 and BERT") == []

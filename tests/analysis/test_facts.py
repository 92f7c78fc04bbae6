"""Fact extraction: what each rule reads, how it normalises it, and the numbers it must leave alone."""

from __future__ import annotations

import time

import pytest

from surveytool.analysis.facts import READ_CHARS, extract_facts, fact_record


def facts(text: str, title: str | None = None) -> list[tuple]:
    return [(f.kind, f.value, f.detail, f.unit) for f in extract_facts(title, text)]


def phrases(text: str) -> list[str]:
    return [f.phrase for f in extract_facts(None, text)]


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("We train a model with 1.6 trillion parameters.", 1_600_000_000_000),
        ("We present Megatron-Turing NLG 530B, a language model.", 530_000_000_000),
        ("We train a 175 billion-parameter language model.", 175_000_000_000),
        ("We train a 8.3B parameter transformer.", 8_300_000_000),
        ("It fits a 13B-parameter model.", 13_000_000_000),
        ("Our 557-million-parameter AmoebaNet reaches state of the art.", 557_000_000),
        ("The largest model has 1.2T params.", 1_200_000_000_000),
        ("We scale to one trillion parameters.", 1_000_000_000_000),
        ("We train a 530B model on the cluster.", 530_000_000_000),
        ("The network has 340,000,000 parameters.", 340_000_000),
    ],
)
def test_model_sizes_in_their_many_spellings_are_normalised_to_a_count(text, size):
    assert facts(text) == [("parameters", size, "", "")]


def test_both_ends_of_a_range_of_model_sizes_are_sizes():
    found = facts("We train models ranging from 70 million to over 16 billion parameters.")
    assert found == [("parameters", 70_000_000, "", ""), ("parameters", 16_000_000_000, "", "")]


@pytest.mark.parametrize(
    ("text", "count", "device"),
    [
        ("The model is trained on 2048 TPU v3 cores in four days.", 2048, "TPU v3 core"),
        ("We train on 3,072 A100 GPUs.", 3072, "A100"),
        ("Training uses 1024 GPUs.", 1024, "GPU"),
        ("Each node has 8 V100 accelerators.", 8, "V100"),
        ("We run on 512 NVIDIA V100 GPUs.", 512, "V100"),
        ("We trained on 6144 TPU v4 chips.", 6144, "TPU v4 chip"),
        ("Results on 2048 Cloud TPUv3 cores.", 2048, "TPU v3 core"),
        ("A job on a 1024-GPU cluster.", 1024, "GPU"),
        ("We use 8x A100 80GB GPUs per node.", 8, "A100"),
        ("It trains the model on a single GPU.", 1, "GPU"),
    ],
)
def test_device_counts_keep_the_device_name(text, count, device):
    assert facts(text) == [("hardware", count, device, "")]


@pytest.mark.parametrize(
    ("text", "value", "measure", "unit"),
    [
        ("Our system achieves a 3.5x speedup over the baseline.", 3.5, "speedup", "x"),
        ("The method reduces memory by 8x.", 8.0, "memory reduction", "x"),
        ("We sustain up to 76% scaling efficiency.", 76.0, "scaling efficiency", "%"),
        ("Training is 2.3 times faster.", 2.3, "speedup", "x"),
        ("It yields a speedup of up to 1.7× on BERT.", 1.7, "speedup", "x"),
        ("We see 1.7x-3.2x speedup end to end.", 3.2, "speedup", "x"),
        ("This needs 8x less memory.", 8.0, "memory reduction", "x"),
        ("It improves training throughput by 35%.", 35.0, "throughput", "%"),
        ("We reach 52% of theoretical peak FLOPs.", 52.0, "utilization", "%"),
        ("It reduces the communication volume by up to 5x.", 5.0, "communication reduction", "x"),
        ("It enables 10x larger models.", 10.0, "model size", "x"),
        ("It gives a 40% reduction in memory.", 40.0, "memory reduction", "%"),
        ("We obtain up to 7x increases in pre-training speed.", 7.0, "speedup", "x"),
        ("Serving is 9x cheaper.", 9.0, "cost reduction", "x"),
    ],
)
def test_gains_keep_their_factor_and_what_it_measures(text, value, measure, unit):
    assert facts(text) == [("gain", value, measure, unit)]


@pytest.mark.parametrize(
    "text",
    [
        "Each layer is an 8x8 grid of processing elements.",
        "In 2021 we released the system; in 2019 the first version.",
        "Figure 3 shows the results of Section 4 and Table 2.",
        "Attention costs O(n^2) memory and O(sqrt(n)) time.",
        "The system improves by 3x.",  # a factor that says not what it measures
        "It uses 14% more memory.",  # more memory is no gain
        "We train billions to trillions of parameters on thousands of GPUs.",  # no number
        "It is trained on 300B tokens.",  # tokens are data, not model size
        "We used 64 parameter servers and 8 GPU servers.",  # machines, not parameters or GPUs
        "It took 1000 GPU hours.",
        "Models too large to fit on a single GPU are split.",  # what the paper overcomes
        "Reaching 84.4% top-1 accuracy with a batch of 8192 images.",  # accuracy and batch size are no gains here
        "The 1x baseline.",
    ],
)
def test_numbers_that_state_no_fact_give_none(text):
    assert facts(text) == []


def test_named_datasets_and_benchmarks_are_read_by_their_canonical_names():
    text = (
        "We evaluate on ImageNet-2012, Cifar10, GLUE, SQuAD v1.1, WMT'14, WikiText103 and LAMBADA, "
        "and pre-train on the Colossal Clean Crawled Corpus and The Pile."
    )
    names = [value for kind, value, _, _ in facts(text)]
    assert names == ["ImageNet", "CIFAR-10", "GLUE", "SQuAD", "WMT", "WikiText-103", "LAMBADA", "C4", "The Pile"]


def test_dataset_names_inside_other_words_and_common_words_are_not_datasets():
    assert facts("The pile of work glued together; GLUEd layers; a C4-like corpus; MNIST-like digits.") == []


def test_a_list_of_parallelism_dimensions_gives_each_dimension():
    found = facts("Alpa unifies data, operator, and pipeline parallelism.")
    assert [value for _, value, _, _ in found] == ["data", "tensor", "pipeline"]


@pytest.mark.parametrize(
    ("text", "dimensions"),
    [
        ("We implement an intra-layer model parallel approach.", ["tensor"]),
        ("It trains with 3D parallelism.", ["data", "tensor", "pipeline"]),
        ("Memory redundancies in data- and model-parallel training are removed.", ["data", "model"]),
        ("We add sequence parallelism and expert-parallel layers.", ["sequence", "expert"]),
        ("ZeRO-Offload and FSDP shard the states.", ["zero"]),
        ("We present Fully Sharded Data Parallel.", ["zero"]),
        ("Embarrassingly parallel training of experts.", []),
    ],
)
def test_parallelism_dimensions_are_normalised(text, dimensions):
    assert [value for _, value, _, _ in facts(text)] == dimensions


def test_a_sentence_about_other_work_gives_no_facts():
    text = (
        "Existing systems use data and model parallelism on 1024 GPUs. "
        "However, prior work reaches only 30% scaling efficiency. "
        "Unlike these, we use pipeline parallelism."
    )
    assert facts(text) == []


def test_a_comparison_late_in_a_sentence_keeps_the_papers_own_facts():
    text = (
        "It trains models of up to 13B parameters (larger than Megatron GPT 8.3B) on 400 GPUs, "
        "a 4x speedup over existing systems."
    )
    assert facts(text) == [
        ("parameters", 13_000_000_000, "", ""),
        ("hardware", 400, "GPU", ""),
        ("gain", 4.0, "speedup", "x"),
    ]


def test_a_dimension_the_paper_sets_itself_apart_from_is_not_its_own():
    text = "Our approach is orthogonal to pipeline model parallelism and is compared with Distributed Data Parallel."
    assert facts(text) == []
    assert facts("It performs comparably to Distributed Data Parallel.") == []


def test_each_fact_keeps_its_phrase_and_span_in_the_field_it_came_from():
    title = "Scaling to 1.6 Trillion Parameters"
    abstract = "We train on 2048 TPU v3 cores and reach a 3.5x speedup. We train 1.6 trillion parameters."
    found = extract_facts(title, abstract)
    assert [(f.field, f.phrase) for f in found] == [
        ("title", "1.6 Trillion Parameters"),
        ("abstract", "2048 TPU v3 cores"),
        ("abstract", "3.5x speedup"),
    ]  # the size again in the abstract is the same fact, kept once
    for fact in found:
        text = title if fact.field == "title" else abstract
        assert text[fact.start : fact.end] == fact.phrase


def test_a_fact_record_names_its_value_by_kind_and_its_evidence():
    hardware, gain = extract_facts(None, "On 3,072 A100 GPUs we reach up to 76% scaling efficiency.")
    assert fact_record(hardware) == {
        "kind": "hardware",
        "count": 3072,
        "device": "A100",
        "evidence": {"field": "abstract", "span": [3, 18], "phrase": "3,072 A100 GPUs"},
    }
    assert fact_record(gain) == {
        "kind": "gain",
        "value": 76.0,
        "unit": "%",
        "measure": "scaling efficiency",
        "evidence": {"field": "abstract", "span": [28, 56], "phrase": "up to 76% scaling efficiency"},
    }


def test_hostile_text_is_only_read_and_no_text_is_no_fact():
    assert extract_facts(None, None) == ()
    assert extract_facts("", "") == ()
    hostile = "\\input{/etc/passwd} 8x \\write18{rm} 1024 $GPUs$ " + "9" * 5000 + "x " + "data, " * 2000
    assert all(f.phrase in hostile for f in extract_facts(hostile, hostile))


def test_a_field_longer_than_any_abstract_is_read_only_as_far_as_an_abstract_goes():
    # Numbers everywhere, runs of spaces and long lists: each rule reads such a field in linear time,
    # and only its first READ_CHARS characters are read at all.
    for unit in ("1x ", "1% ", "1 TPU v3 ", "data, ", "1" + " " * 500, "a.", "Aa-"):
        text = unit * (2 * READ_CHARS // len(unit))
        started = time.perf_counter()
        found = extract_facts(text, text)
        assert time.perf_counter() - started < 10
        assert all(f.end <= READ_CHARS for f in found)

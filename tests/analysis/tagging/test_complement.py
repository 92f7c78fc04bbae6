"""The complement naive Bayes model: its weights kept per section that saw a word, and a taxonomy of thousands
of sections tagged in the memory of a few."""

import json
import math
import os
import subprocess
import sys

import pytest

from surveytool.analysis.tagging.complement import ALPHA, ComplementModel

VECTORS = [
    ({"pipe": 0.8, "stage": 0.6}, 0, 1.0),
    ({"pipe": 0.6, "bubble": 0.8}, 0, 1.0),
    ({"expert": 0.8, "rout": 0.6}, 1, 1.0),
    ({"expert": 0.6, "pipe": 0.8}, 1, 2.0),
    ({"shard": 1.0}, 2, 0.5),
]


def dense_weights(sections, vectors, features, vocabulary):
    """Rennie et al.'s complement weights written out for every (feature, section): the log of the section's
    complement mass less the log of the feature's mass outside the section, each smoothed."""
    mass = {
        (f, c): sum(w * v.get(f, 0.0) for v, col, w in vectors if col == c) for f in features for c in range(sections)
    }
    outside = {(f, c): sum(mass[f, k] for k in range(sections) if k != c) for f in features for c in range(sections)}
    complements = [sum(outside[f, c] for f in features) for c in range(sections)]
    return {
        (f, c): math.log(complements[c] + ALPHA * vocabulary) - math.log(outside[f, c] + ALPHA)
        for f in features
        for c in range(sections)
    }


def centred(sections, weights, norms, query):
    found = [sum(v * weights[f, c] for f, v in query.items() if (f, c) in weights) / norms[c] for c in range(sections)]
    return [f - sum(found) / sections for f in found]


FEATURES = sorted({f for vector, _, _ in VECTORS for f in vector})
WEIGHTS = dense_weights(3, VECTORS, FEATURES, len(FEATURES))
# A section's mean absolute weight: no section wins by having larger weights.
NORMS = [sum(abs(WEIGHTS[f, c]) for f in FEATURES) / len(FEATURES) for c in range(3)]


@pytest.mark.parametrize("query", [{"pipe": 0.7, "expert": 0.7}, {"shard": 0.5, "bubble": 0.5, "unknown": 0.7}, {}])
def test_the_weights_kept_per_section_that_saw_a_word_score_as_the_full_table_would(query):
    found = ComplementModel(3, VECTORS).scores(query)
    assert found == pytest.approx(centred(3, WEIGHTS, NORMS, query), abs=1e-12)


@pytest.mark.parametrize("left", range(len(VECTORS)))
def test_leaving_an_exemplar_out_weighs_the_words_as_if_it_had_not_been_seen(left):
    # Of the same vocabulary and the same normalisation; a word of the query that is left unseen still counts.
    query = {"pipe": 0.7, "shard": 0.4, "stage": 0.3, "unknown": 0.2}
    rest = VECTORS[:left] + VECTORS[left + 1 :]
    weights = dense_weights(3, rest, [*FEATURES, "unknown"], len(FEATURES))
    found = ComplementModel(3, VECTORS).scores(query, VECTORS[left])
    assert found == pytest.approx(centred(3, weights, NORMS, query), abs=1e-12)


LETTERS = "bcdfghjklmnpqrstvwxz"


def made_up_word(number):
    """One word per number below 8,000 that no dictionary has ("babob", "bavoc")."""
    return f"{LETTERS[number // 400 % 20]}a{LETTERS[number // 20 % 20]}o{LETTERS[number % 20]}"


def test_a_taxonomy_of_two_thousand_sections_tags_in_the_memory_of_a_few(tmp_path):
    # With a weight kept per (word, section), memory grew with the vocabulary times the sections.
    count = 2000
    lines = ['title = "Many sections"']
    for number in range(count):
        word, other = made_up_word(number), made_up_word((number * 7 + 3) % count)
        lines += [
            "[[sections]]",
            f'id = "s{number}"',
            f'title = "{word.title()} {other.title()} Methods"',
            f'description = "Training {word} models with {other} and parallel pipelines."',
            f'keywords = {{ "{word}" = 4 }}',
        ]
    (tmp_path / "taxonomy.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    wanted = 321
    (tmp_path / "papers.bib").write_text(
        f"@article{{doe2020, title = {{Training {made_up_word(wanted).title()} Models at Scale}}, year = 2020}}\n",
        encoding="utf-8",
    )
    with open(tmp_path / "out.json", "w") as out, open(tmp_path / "err.txt", "w") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "surveytool", "tag", "--json", "--taxonomy", "taxonomy.toml", "papers.bib"],
            cwd=tmp_path,
            stdout=out,
            stderr=err,
        )
        # wait4 tells this child's own peak memory (the tests' other children aside).
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, (tmp_path / "err.txt").read_text()
    [tagged] = json.loads((tmp_path / "out.json").read_text())
    assert tagged["tags"][0] == f"s{wanted}"
    assert usage.ru_maxrss < 300 * 1024  # kilobytes on Linux: about 60 MB are needed

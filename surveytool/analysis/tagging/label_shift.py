"""A library's own shares of the sections (label shift), by which self-training's second pass weighs its blends.

A library is mostly one survey's papers: a list about mixture-of-experts is mostly ``moe``, while the corpus
the tagger learned from files papers in every section. The library's shares are estimated by EM over the first
tagger's blends of its entries (Saerens, Latinne & Decaestecker 2002): each blend's section shares times the
library's share of each section over the share the model expects, renormalised; the library's shares the mean
of these, each entry counting as much as it is of the field (one less its background share), with
``STRENGTH`` entries at the expected shares beside them, so that a small library does not collapse into one
section. The entries the second pass tags again then have their shares times the library's over the second
tagger's expected ones; the background's share of each blend is kept, the sections share the rest.

The shares the model expects are not the corpus's counts (a cosine does not favour a section with many
exemplars) but its mean shares over corpus exemplars it is asked about as if it had not seen them
(``expected_shares``). Each entry's shares and the estimate are rounded, so that a patched rebuild, which
keeps them in its snapshot, estimates what a build in full does. Measured in BENCHMARKS.md (session 26).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from surveytool.analysis.tagging.blend import Blend
from surveytool.model import Origin, Paper, frozen_mapping

if TYPE_CHECKING:
    from surveytool.analysis.tagging.tagger import Tagger

#: How many entries at the shares the model expects the library's shares are estimated beside (a Dirichlet prior).
STRENGTH = 50.0
#: How many corpus exemplars (drawn with a fixed seed) the model's expected shares are the mean over.
SAMPLE = 600
SAMPLE_SEED = 21
ITERATIONS = 100
#: No section's share of a library is estimated below this: a share of 0 would rule the section out.
SHARE_FLOOR = 0.01

#: An entry's part in the estimate: its blend's section shares (summing to 1) and how much it is of the field.
EntryShares = tuple[tuple[float, ...], float]


def normalised(values: Sequence[float]) -> list[float]:
    total = sum(values) or 1.0
    return [v / total for v in values]


def entry_shares(blend: Blend) -> EntryShares:
    """What ``blend`` brings to the estimate, rounded as a snapshot keeps it."""
    return tuple(round(x, 3) for x in normalised(blend.confidence)), round(1.0 - blend.background, 3)


def expected_shares(tagger: Tagger) -> list[float] | None:
    """The mean share of each section in the tagger's blends of corpus exemplars, each left out; None without a
    corpus."""
    model = tagger.model
    chosen = [i for i, e in enumerate(model.exemplars) if e.origin == "corpus"]
    random.Random(SAMPLE_SEED).shuffle(chosen)
    sums: list[float] = []
    for i in sorted(chosen[:SAMPLE]):
        exemplar = model.exemplars[i]
        paper = Paper(Origin.BIBTEX, (), frozen_mapping({"title": exemplar.title}), key=exemplar.key)
        blend = tagger.blend(paper, leave_out=i)
        if blend is not None:
            sums = [a + b for a, b in zip(sums, blend.confidence, strict=True)] if sums else list(blend.confidence)
    return normalised([max(s, 1e-3 * sum(sums)) for s in sums]) if sums else None


def library_shares(entries: Sequence[EntryShares], expected: Sequence[float]) -> tuple[float, ...]:
    """The library's share of each section by EM over its ``entries`` (in a fixed order: a patch sums as a build
    does), to 2 decimals and none below ``SHARE_FLOOR``."""
    # Entry i's reweighted share of section s is own[i][s] * ratio[s] / its total: summed over the entries, each
    # section's column times ratio[s], with entry i weighed by weight[i] / total[i] (sums in C, not per share).
    rows = [own for own, _ in entries]
    weights = [weight for _, weight in entries]
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in expected]
    mass = STRENGTH + sum(weights)
    shares = list(expected)
    for _ in range(ITERATIONS):
        ratio = [p / e for p, e in zip(shares, expected, strict=True)]
        scales = [w / (sum(map(operator.mul, own, ratio)) or 1.0) for own, w in zip(rows, weights, strict=True)]
        new = [
            (STRENGTH * e + r * sum(map(operator.mul, column, scales))) / mass
            for e, r, column in zip(expected, ratio, columns, strict=True)
        ]
        done = max(abs(a - b) for a, b in zip(new, shares, strict=True)) < 1e-6
        shares = new
        if done:
            break
    return tuple(max(round(x, 2), SHARE_FLOOR) for x in shares)


def reweighted(blend: Blend, ratio: Sequence[float]) -> Blend:
    """``blend`` with each section's share times ``ratio``; the sections share what the background leaves."""
    inside = sum(blend.confidence)
    shares = normalised([x * r for x, r in zip(blend.confidence, ratio, strict=True)])
    return blend._replace(confidence=[x * inside for x in shares])


def ratio_to(tagger: Tagger, shares: Sequence[float]) -> list[float] | None:
    """The library's ``shares`` over those ``tagger`` expects; None when it expects none (no corpus)."""
    expected = expected_shares(tagger)
    if expected is None:
        return None
    return [s / e for s, e in zip(shares, expected, strict=True)]


def weighing_note(
    sections: Sequence[str], chosen: Sequence[int], shares: Sequence[float], ratio: Sequence[float]
) -> str:
    """The evidence that a blend was weighed: the library's share of each ``chosen`` section against the model's."""
    each = (f"{sections[i]} {shares[i]:.2f} (the model expects {shares[i] / ratio[i]:.2f})" for i in chosen)
    return "this library's shares: " + ", ".join(each)

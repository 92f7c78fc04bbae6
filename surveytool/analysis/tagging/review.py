"""Tags seen against the tagged papers nearest to them: outliers among the user's tags, exemplars for --explain."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import NamedTuple

from surveytool.analysis.tagging.exemplars import Exemplar, user_exemplars
from surveytool.analysis.tagging.features import features, paper_text
from surveytool.analysis.tagging.learned import CentroidModel
from surveytool.analysis.tagging.self_training import Tagging, second_tagger, tags_as_built
from surveytool.analysis.tagging.tagger import Tagger
from surveytool.analysis.tagging.user_tags import tags_location
from surveytool.bibtex.crossref import cited_through_children
from surveytool.model import Finding, Paper, Severity, Tag, Taxonomy

#: The model trained without the entry must be this sure of another section...
OUTLIER_CONFIDENCE = 0.6
#: ...and give the user's own section less than this.
OUTLIER_REJECTS_BELOW = 0.1
NEIGHBOURS = 3


def _label(exemplar: Exemplar, width: int = 58) -> str:
    """A user's entry by its key and title, a corpus paper by its title."""
    title = " ".join(exemplar.title.split())
    title = title[: width - 1] + "…" if len(title) > width else title
    if exemplar.origin == "user":
        return f"{exemplar.key} ({title})" if title else exemplar.key
    return f"{exemplar.origin}: {title}"


def tag_outliers(papers: Sequence[Paper], taxonomy: Taxonomy) -> Iterator[Finding]:
    """Entries whose own primary tag the tagger, trained without them, rejects with high confidence.

    Reported only when the entry's nearest tagged papers also sit elsewhere:
    a paper that merely has little text is not called an outlier.
    """
    by_key = {p.key: p for p in papers}
    tagger = Tagger(taxonomy, user_exemplars(papers, taxonomy))
    model = tagger.model
    for index, exemplar in enumerate(model.exemplars):
        if exemplar.origin != "user":
            continue
        paper = by_key[exemplar.key]
        blend = tagger.blend(replace(paper, explicit_tags=()), leave_out=index)
        if blend is None or exemplar.sections[0] not in blend.sections:
            continue
        best = blend.ranked()[0]
        own = blend.sections.index(exemplar.sections[0])
        if blend.confidence[best] < OUTLIER_CONFIDENCE or blend.confidence[own] >= OUTLIER_REJECTS_BELOW:
            continue
        nearest = model.nearest(features(exemplar.title, exemplar.body), NEIGHBOURS, leave_out=index)
        if not nearest or any(exemplar.sections[0] in e.sections for _, e in nearest):
            continue
        likely = blend.sections[best]
        if likely in exemplar.sections:  # the user gave it that section too: "would put it in" it says nothing new
            continue
        yield Finding(
            "tag-outlier",
            Severity.WARNING,
            f"'{paper.key}' is tagged '{exemplar.sections[0]}' but reads like '{likely}' "
            f"({blend.confidence[best]:.2f} against {blend.confidence[own]:.2f}); nearest tagged papers: "
            + "; ".join(_label(e, 40) for _, e in nearest),
            tags_location(paper),
            f"check its tag: the tagger would put it in '{likely}'",
            paper.key,
        )


class Explained(NamedTuple):
    """A paper for --explain: its tags with their nearest exemplars, and for an entry left to place, the section
    the tagger was not sure enough of (with its evidence)."""

    paper: Paper
    candidate: Tag | None = None
    lender: bool = False  # a volume or @xdata entry cited through the entries that name it: not placed itself


def with_exemplars(papers: Sequence[Paper], tagging: Tagging, count: int = NEIGHBOURS) -> list[Explained]:
    """``papers`` with, for each computed tag, the nearest tagged papers of that section added to its evidence;
    an entry left to place, with the candidate the build computed (``tagging``: what tagged ``papers``)."""
    tagger, taught = tagging
    left = [p for p in papers if not p.tags and p.key in taught.computed]
    second = second_tagger(tagger, taught)  # trained once: for the tags as built and for their exemplars
    candidates = dict(zip((p.key for p in left), tags_as_built(tagger, second, left, taught), strict=True))
    lenders = cited_through_children(papers)
    explained = []
    for paper in papers:
        if not paper.tags:
            found = candidates.get(paper.key, ())
            candidate = found[0] if found else None
            if candidate is not None:
                model = second.model if paper.key in taught.tagged_again else tagger.model
                candidate = _with_exemplars(candidate, model, paper, count)
            explained.append(Explained(paper, candidate, paper.key.lower() in lenders))
            continue
        if all(t.explicit for t in paper.tags):
            explained.append(Explained(paper))
            continue
        model = second.model if paper.key in taught.tagged_again else tagger.model
        tags = tuple(tag if tag.explicit else _with_exemplars(tag, model, paper, count) for tag in paper.tags)
        explained.append(Explained(replace(paper, tags=tags)))
    return explained


def _with_exemplars(tag: Tag, model: CentroidModel, paper: Paper, count: int) -> Tag:
    """``tag`` with the tagged papers of its section nearest ``paper`` added to its evidence: what pulled it there."""
    nearest = [e for _, e in model.nearest(features(*paper_text(paper)), 50) if e.key != paper.key]
    same = [e for e in nearest if e.sections[0] == tag.section][:count]
    lines = tuple(f"exemplar: {_label(e)}" for e in same) or ("exemplar: no tagged paper of this section is near",)
    return replace(tag, evidence=(*tag.evidence, *lines))

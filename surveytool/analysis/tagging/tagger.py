"""Papers x taxonomy -> tags: a primary section, secondary ones, and the evidence for each.

Two kinds of evidence, blended per section: the taxonomy's weighted field
vocabulary (rules), matched in the title, abstract, venue and keywords, and a
TF-IDF centroid model (``learned.py``) trained on the user's tagged entries,
the bundled labelled corpus and the taxonomy's text. Rules are precise where a
phrase fires; the model knows the field's words where none does. The blend's
softmax is the primary tag's confidence; below a threshold the entry gets no
section and a ``needs-review`` finding naming its two best candidates. Tags the
user gave are kept as they are and never overwritten.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import NamedTuple

from surveytool.analysis.tagging import calibration, user_model
from surveytool.analysis.tagging.blend import Blend
from surveytool.analysis.tagging.exemplars import Exemplar
from surveytool.analysis.tagging.features import has_body, paper_features
from surveytool.analysis.tagging.label_shift import ratio_to, reweighted, weighing_note
from surveytool.analysis.tagging.learned import softmax, train
from surveytool.analysis.tagging.rules import FIELD_WEIGHTS, Rules
from surveytool.analysis.tagging.self_training import RETAG_FLOOR, Library, TagAllBy, Taught, tag_twice
from surveytool.analysis.tagging.user_model import UserModel, fit_user_model
from surveytool.analysis.tagging.user_tags import explicit_tags, shares_names
from surveytool.bibtex.crossref import cited_through_children
from surveytool.model import Finding, Origin, Paper, Role, Severity, Tag, Taxonomy, frozen_mapping

SECONDARY_RATIO = 0.5
MIN_SECONDARY_SCORE = 2.5
MAX_SECONDARIES = 2
#: The blend of the learned model's log posterior and the rules' score (capped), per section. Chosen with
#: each list of the corpus left out in turn: phrases carry over to a list's own way of filing better than
#: the model does.
LEARNED_WEIGHT = 10.0
RULE_WEIGHT = 1.5
#: The same for an entry with an abstract or keywords: the model learned from titles, and phrases found in a
#: longer text are more evidence than in a title alone.
BODY_LEARNED_WEIGHT = 3.0
BODY_RULE_WEIGHT = 5.0
RULE_CAP = 30.0
#: Below this confidence a computed primary tag is not given: the entry is left for the user to place.
DEFAULT_THRESHOLD = 0.5
RUNNER_UP = "runner-up: "


def blend_settings() -> tuple[object, ...]:
    """Everything besides the model that a computed tag depends on: a memo of tags is keyed on it."""
    weights = (LEARNED_WEIGHT, RULE_WEIGHT, BODY_LEARNED_WEIGHT, BODY_RULE_WEIGHT, RULE_CAP, DEFAULT_THRESHOLD)
    return (
        *weights,
        calibration.CONFIDENCE_WEIGHTS,
        calibration.CONFIDENCE_KNOTS,
        calibration.BODY_CONFIDENCE_WEIGHTS,
        calibration.SCOPE_WEIGHTS,
        user_model.RELATIVE_WEIGHTS,
        (user_model.NEIGHBOURS, user_model.NEIGHBOUR_WEIGHT),
    )


def text_of(paper: Paper) -> tuple[str, ...]:
    """The fields tags are computed from."""
    return tuple(paper.fields.get(f, "") for f, _ in FIELD_WEIGHTS)


class _Logits(NamedTuple):
    scores: dict[str, tuple[float, list[str]]]
    learned: list[float]
    blended: list[float]
    body: bool
    scale: float  # the learned part's weight
    features: tuple[frozenset[str], list[str]]  # the paper's (``paper_features``), for the user model


class Tagger:
    """The taxonomy's vocabulary compiled once into a phrase matcher, and a model learned from tagged exemplars."""

    def __init__(
        self,
        taxonomy: Taxonomy,
        exemplars: Sequence[Exemplar] = (),
        corpus: Sequence[Exemplar] | None = None,
        rules: Rules | None = None,
    ):
        """``exemplars``: the user's tagged entries; ``corpus``: labelled papers instead of the bundled corpus;
        ``rules``: the taxonomy's, compiled by another tagger of it."""
        self.taxonomy = taxonomy
        self.order = {s.id: i for i, s in enumerate(taxonomy.sections)}
        self.rules = rules or Rules(taxonomy)
        self.model = train(taxonomy, exemplars, corpus=corpus)
        self.support = 1.0 if any(e.origin == "corpus" for e in self.model.exemplars) else 0.0
        self._given = (tuple(exemplars), corpus)
        self.library_shares: tuple[float, ...] = ()  # what its blends are weighed by (``label_shift.py``)

    def taught(self, teachers: Sequence[Exemplar], library_shares: Sequence[float] = ()) -> Tagger:
        """This tagger learning from ``teachers`` too, the library's sure entries (``self_training.py``), its
        blends weighed by the library's own shares of the sections when given."""
        exemplars, corpus = self._given
        tagger = Tagger(self.taxonomy, [*exemplars, *teachers], corpus, self.rules)  # what they found, kept
        tagger.library_shares = tuple(library_shares)
        return tagger

    @cached_property
    def _ratio(self) -> list[float] | None:
        """The library's shares over this tagger's own, when first needed (not in a rebuild with every tag memoised)."""
        return ratio_to(self, self.library_shares) if self.library_shares else None

    @cached_property
    def user_model(self) -> UserModel | None:
        """Fitted when first needed: a rebuild whose tags all come from its memo never needs it."""
        users = [e for e in self.model.exemplars if e.origin == "user"]  # the model's first exemplars
        return fit_user_model(self.taxonomy.section_ids, users, self._exemplar_logits)

    def tag_each(self, papers: Sequence[Paper]) -> list[tuple[Tag, ...]]:
        """``tag(paper)`` for each paper, in this process."""
        return [self.tag(paper) for paper in papers]

    def score(self, paper: Paper) -> dict[str, tuple[float, list[str]]]:
        """Section id -> (score, evidence phrases) from the vocabulary."""
        return self.rules.score(paper.fields)

    def logits(self, paper: Paper, leave_out: int | None = None) -> _Logits | None:
        """The corpus model's and the rules' part of the blend; None when nothing in the text is known to either."""
        scores = self.score(paper)
        features = paper_features(paper)
        query = self.model.vector(*features, leave_out=leave_out)
        if not scores and not query:
            return None
        body = has_body(paper)
        learned_weight, rule_weight = (BODY_LEARNED_WEIGHT, BODY_RULE_WEIGHT) if body else (LEARNED_WEIGHT, RULE_WEIGHT)
        learned = [learned_weight * score for score in self.model.log_scores(query, leave_out)]
        blended = list(learned)
        for section_id, (score, _) in scores.items():
            blended[self.order[section_id]] += rule_weight * rule_strength(score)
        return _Logits(scores, learned, blended, body, learned_weight, features)

    def _exemplar_logits(self, exemplar: Exemplar, index: int) -> tuple[list[float], float] | None:
        fields = {"title": exemplar.title, **({"abstract": exemplar.body} if exemplar.body else {})}
        found = self.logits(Paper(Origin.BIBTEX, (), frozen_mapping(fields), key=exemplar.key), index)
        return None if found is None else (found.blended, found.scale)

    def blend(self, paper: Paper, leave_out: int | None = None) -> Blend | None:
        """Per section: the rules' score and evidence, the model's probability and the blend's confidence.

        None when nothing in the text is known to either. ``leave_out``: the model as if that exemplar
        (an index into ``self.model.exemplars``) had not been seen.
        """
        found = self.logits(paper, leave_out)
        if found is None:
            return None
        blended = found.blended
        if self.user_model is not None:
            own = self.user_model.logits(*found.features, found.scale, leave_out)
            blended = [x + u for x, u in zip(blended, own, strict=False)] + blended[len(own) :]
        shares = softmax(blended)
        count = len(self.order)  # the model's columns after the taxonomy's sections are its background
        title = paper.fields.get("title")
        in_scope = 1.0
        # A related-paper list's entry is related work of a paper of the field: it is of the field, whatever its title.
        if found.body and title and len(self.model.sections) > count and paper.origin is not Origin.SNIPPET:
            titled = self.blend(replace(paper, fields=frozen_mapping({"title": title})), leave_out)
            in_scope = calibration.in_scope(titled.background if titled else None)
        return Blend(
            self.model.sections[:count],
            found.scores,
            found.learned[:count],
            shares[:count],
            self.support,
            found.body,
            sum(shares[count:]),
            in_scope,
            bool(title),
        )

    def tag(self, paper: Paper) -> tuple[Tag, ...]:
        """The primary tag (score: its confidence) and rule-backed secondaries; () when nothing in the text is known."""
        blend = self.blend(paper)
        if blend is None:
            return ()
        ratio = None if blend.body else self._ratio  # with an abstract the rules speak, with no corpus's shares
        blend = blend if ratio is None else reweighted(blend, ratio)
        sections, scores, confidence = blend.sections, blend.rules, blend.confidence
        ranked = blend.ranked()
        best, second = sections[ranked[0]], sections[ranked[1]] if len(ranked) > 1 else None
        rule_score, rule_evidence = scores.get(best, (0.0, []))
        evidence = [
            *rule_evidence,
            f"rules: score {rule_score:g}; learned: {blend.learned[ranked[0]]:.2f}; blend: {confidence[ranked[0]]:.2f}",
            *([] if ratio is None else [weighing_note(sections, ranked[:2], self.library_shares, ratio)]),
        ]
        if blend.body and blend.in_scope < 1.0:
            evidence.append(f"of the field, by its title: {blend.in_scope:.2f}")
        if second is not None:
            evidence.append(f"{RUNNER_UP}{second} {confidence[ranked[1]]:.2f}")
        sure = blend.sureness(ranked[0])
        tags = [Tag(best, Role.PRIMARY, round(sure, 3), tuple(evidence), suggested=not rule_evidence)]
        by_rules = sorted(scores.items(), key=lambda item: (-item[1][0], self.order[item[0]]))
        top = by_rules[0][1][0] if by_rules else 0.0
        for section_id, (score, phrases) in by_rules:
            if len(tags) > MAX_SECONDARIES or score < max(MIN_SECONDARY_SCORE, SECONDARY_RATIO * top):
                break
            if section_id != best:
                share = confidence[sections.index(section_id)]
                tags.append(Tag(section_id, Role.SECONDARY, round(share, 3), (*phrases, f"rules: score {score:g}")))
        return tuple(tags)


def rule_strength(score: float) -> float:
    """A rule score as blended: grows slower than the score, so one more phrase counts less than the first.
    A taxonomy's negative weights (a down-weight) give a negative score, which counts against the section."""
    return math.copysign(math.sqrt(min(abs(score), RULE_CAP)), score)


def candidates(tags: Sequence[Tag]) -> list[str]:
    """The best two sections of a computed primary tag."""
    primary = tags[0]
    found = [primary.section]
    found += [line[len(RUNNER_UP) :].rsplit(" ", 1)[0] for line in primary.evidence if line.startswith(RUNNER_UP)]
    return found


#: The findings ``tag_papers`` gives an entry whose tags it computes and cannot give: left to the user to place.
TAGGING_FINDINGS = frozenset({"needs-review", "no-section"})


def tag_papers(
    papers: Sequence[Paper],
    taxonomy: Taxonomy,
    tagger: Tagger | None = None,
    *,
    tag_all_by: TagAllBy | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    tags_field: str = "sections",
    beside: Library | None = None,
    on_taught: Callable[[Taught], None] | None = None,
) -> tuple[list[Paper], list[Finding]]:
    """Every paper with tags: the user's when given (read from ``tags_field``), the tagger's otherwise, each
    unsure one tagged again after the sure ones taught it (``self_training.tag_twice``, whose arguments the
    last three are; ``tag_all_by`` asks only for the papers the user gave no tags).

    A computed primary tag less sure than ``threshold`` is not given: the entry gets no section and a
    ``needs-review`` finding with its two best candidates.
    """
    tagger = tagger or Tagger(taxonomy)
    by = tag_all_by or (lambda chosen: chosen.tag_each)
    given = [explicit_tags(paper, taxonomy, tags_field) for paper in papers]
    # A volume cited through its children, and an @xdata entry, is no work to place (unless the user places it).
    lenders = cited_through_children(papers)
    todo = [p for p, (tags, _, _) in zip(papers, given, strict=True) if not tags and p.key.lower() not in lenders]
    computed = iter(tag_twice(tagger, todo, by, beside, on_taught))
    tagged: list[Paper] = []
    findings: list[Finding] = []
    for paper, (tags, unknown, problems) in zip(papers, given, strict=True):
        findings.extend(problems)
        if paper.origin is Origin.CSL_JSON and unknown:  # subjects of the keyword field, not sections: no tags
            paper = replace(paper, explicit_tags=tuple(t for t in paper.explicit_tags if t not in unknown))
            unknown = ()
        if not tags and paper.key.lower() not in lenders:
            tags = next(computed)
            if tags and tags[0].score < threshold:
                findings.append(needs_review(paper, tags, tags_field))
                tags = ()
            # Unknown tags the user gave are reported as unknown-tag, and an unresolved id, with no text to tag,
            # as unresolved-entry: placing it by hand is not what it needs.
            elif not tags and not problems and (paper.resolved or any(text_of(paper))):
                findings.append(
                    Finding(
                        "no-section",
                        Severity.WARNING,
                        f"no section could be chosen for '{paper.key}'",
                        min(paper.sources),
                        placing_hint(paper, None, tags_field),
                        paper.key,
                    )
                )
        unchanged = tags == paper.tags and unknown == paper.unknown_tags  # most of a general bibliography's: none
        tagged.append(paper if unchanged else replace(paper, tags=tags, unknown_tags=unknown))
    return tagged, findings


def needs_review(paper: Paper, tags: Sequence[Tag], tags_field: str = "sections") -> Finding:
    """An entry left for the user to place: the tagger's best section was not sure enough."""
    named = " or ".join(f"'{section_id}'" for section_id in candidates(tags))
    # Too little of the field was found to suggest the section: a paper of another field, most likely.
    best = tags[0].section if tags[0].score >= RETAG_FLOOR else None
    return Finding(
        "needs-review",
        Severity.WARNING,
        f"no section given to '{paper.key}': the tagger is not sure whether it belongs in {named} "
        f"(confidence {tags[0].score:.2f})",
        min(paper.sources),
        placing_hint(paper, best, tags_field),
        paper.key,
    )


def placing_hint(paper: Paper, section: str | None = None, tags_field: str = "sections") -> str:
    """Where the user can give ``paper`` its section: its .bib entry, or an overrides file for a line of a list."""
    if paper.origin is Origin.BIBTEX and shares_names(tags_field):  # the field may hold other names already
        return (
            f"add '{section}' to its {tags_field} field"
            if section
            else f"add its section's id to its {tags_field} field"
        )
    if paper.origin is Origin.BIBTEX:
        return (
            f"add a tags field, e.g. {tags_field} = {{{section}}}" if section else "add a tags field naming its section"
        )
    return f'name its section in an overrides file (--overrides): [tags] {paper.key} = ["{section or "section-id"}"]'

"""The taxonomy's weighted vocabulary as rules: the phrases found in an entry's fields, summed per section.

A phrase counts once per field, weighed by the field it was found in (``FIELD_WEIGHTS``), and is also
looked for in the words of a compound name ("FasterMoE" -> "Faster MoE"). What a field's text
adds is kept per distinct text: a library's venues repeat (thousands of entries name a few hundred
journals), and a tagger scores an entry's title again on its own (``Tagger.blend``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from surveytool.analysis.tagging.vocabulary import PhraseMatcher, name_parts
from surveytool.model import Taxonomy

# How much a phrase counts, by the field it was found in.
FIELD_WEIGHTS = (("title", 2.0), ("abstract", 1.0), ("keywords", 1.5), ("booktitle", 0.5), ("journal", 0.5))

#: What a field's text adds: (section id, its share of the score, the evidence line), in the order found.
Found = tuple[tuple[str, float, str], ...]


class Rules:
    """The taxonomy's vocabulary compiled once into a phrase matcher."""

    def __init__(self, taxonomy: Taxonomy):
        by_phrase: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for section in taxonomy.sections:
            for phrase, weight in section.keywords.items():
                by_phrase[phrase.strip().lower()].append((section.id, weight))
        self.weights = {phrase: tuple(sections) for phrase, sections in by_phrase.items()}
        self.matcher = PhraseMatcher(sorted(by_phrase))
        self._found: dict[tuple[str, str], Found] = {}  # (field, text) -> what it adds

    def score(self, fields: Mapping[str, str]) -> dict[str, tuple[float, list[str]]]:
        """Section id -> (score, evidence phrases) of an entry's ``fields``."""
        totals: dict[str, float] = defaultdict(float)
        evidence: dict[str, list[str]] = defaultdict(list)
        known = self._found
        for field, field_weight in FIELD_WEIGHTS:
            text = fields.get(field)
            if not text:
                continue
            found = known.get((field, text))
            if found is None:
                found = known[field, text] = self._in_field(field, field_weight, text)
            for section_id, amount, line in found:
                totals[section_id] += amount
                evidence[section_id].append(line)
        return {s: (round(totals[s], 3), evidence[s]) for s in totals}

    def _in_field(self, field: str, field_weight: float, text: str) -> Found:
        seen: set[str] = set()
        found = [(phrase, f'"{matched}"') for phrase, matched in self.matcher.find(text)]
        for name in name_parts(text):
            found += [
                (phrase, f'"{matched}" (in {name.replace(" ", "")})') for phrase, matched in self.matcher.find(name)
            ]
        added = []
        for phrase, matched in found:
            if phrase.text in seen:
                continue  # a phrase counts once per field
            seen.add(phrase.text)
            added += [
                (section_id, weight * field_weight, f"{field}: {matched}")
                for section_id, weight in self.weights[phrase.text]
            ]
        return tuple(added)

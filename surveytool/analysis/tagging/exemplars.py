"""Tagged papers the learned tagger learns from: the user's own tagged entries, the bundled corpus, the taxonomy's text."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from surveytool.analysis.tagging.features import paper_text
from surveytool.model import Paper, Taxonomy
from surveytool.resources import bundled_dir


@dataclass(frozen=True)
class Settings:
    """How much each kind of exemplar counts; tuned on the corpus's train split."""

    user_weight: float = 4.0  # a user's tagged entry counts this many corpus rows
    taxonomy_weight: float = 2.0
    taxonomy_weight_alone: float = 16.0  # with no corpus the taxonomy's own text is most of what is known
    secondary_weight: float = 0.25  # a secondary tag of an exemplar, relative to its primary
    complement_weight: float = 5.0  # the complement model's scores beside the centroids' cosines


SETTINGS = Settings()


#: The corpus label of papers that belong in no section of the default taxonomy (deep learning at large):
#: the learned model's background class, so that such a paper is left to place rather than forced in.
OUT_OF_SCOPE = "out-of-scope"


class Exemplar(NamedTuple):
    """A tagged paper the model learns from."""

    key: str
    title: str
    body: str
    sections: tuple[str, ...]  # primary first
    weight: float
    origin: str  # "user", "corpus" or "taxonomy"


def corpus_path() -> Path:
    return bundled_dir("seeds") / "labelled" / "corpus.tsv"


class CorpusRow(NamedTuple):
    title: str
    year: str
    venue: str
    sections: tuple[str, ...]
    split: str
    provenance: str


def read_corpus(path: Path | None = None) -> list[CorpusRow]:
    """The labelled corpus's rows (header skipped); nothing when it is not installed."""
    path = path or corpus_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    rows = []
    for line in lines[1:]:
        parts = line.split("\t")
        if len(parts) < 6 or not parts[0].strip():
            continue
        sections = tuple(s.strip() for s in parts[3].split(",") if s.strip())
        rows.append(
            CorpusRow(
                parts[0].strip(), parts[1].strip(), parts[2].strip(), sections, parts[4].strip(), parts[5].strip()
            )
        )
    return rows


@lru_cache(maxsize=4)
def _corpus_exemplars(path: str, mapping: tuple[tuple[str, str], ...]) -> tuple[Exemplar, ...]:
    rows = read_corpus(Path(path))
    named = {**dict(mapping), OUT_OF_SCOPE: OUT_OF_SCOPE}
    exemplars = []
    for n, row in enumerate(rows):
        sections = tuple(dict.fromkeys(named[s] for s in row.sections if s in named))
        if row.split == "train" and row.sections and row.sections[0] in named:
            exemplars.append(Exemplar(f"corpus:{n + 2}", row.title, "", sections, 1.0, "corpus"))
    return tuple(exemplars)


def corpus_exemplars(taxonomy: Taxonomy, path: Path | None = None) -> tuple[Exemplar, ...]:
    """The corpus's train split, labelled with ``taxonomy``'s ids where its sections are the default's
    (``transfer.py``); nothing when none is."""
    from surveytool.analysis.tagging.transfer import corpus_section_map

    mapping = corpus_section_map(taxonomy)
    return _corpus_exemplars(str(path or corpus_path()), tuple(sorted(mapping.items()))) if mapping else ()


def taxonomy_exemplars(taxonomy: Taxonomy, settings: Settings = SETTINGS, alone: bool = False) -> tuple[Exemplar, ...]:
    """Each section's title, description, aliases and vocabulary as one document (``alone``: no corpus applies)."""
    weight = settings.taxonomy_weight_alone if alone else settings.taxonomy_weight
    exemplars = []
    for section in taxonomy.sections:
        phrases = [k.replace("*", "") for k in section.keywords]
        body = " ".join([section.description, *section.aliases, *phrases])
        exemplars.append(Exemplar(f"taxonomy:{section.id}", section.title, body, (section.id,), weight, "taxonomy"))
    return tuple(exemplars)


def user_exemplars(papers: Iterable[Paper], taxonomy: Taxonomy, settings: Settings = SETTINGS) -> tuple[Exemplar, ...]:
    """The entries the user tagged (their tags as section ids), in key order."""
    from surveytool.analysis.section_names import canonical_section

    exemplars = []
    for paper in papers:
        if not paper.explicit_tags:
            continue
        sections = tuple(dict.fromkeys(s for s in (canonical_section(t, taxonomy) for t in paper.explicit_tags) if s))
        title, body = paper_text(paper)
        if sections and (title or body):
            exemplars.append(Exemplar(paper.key, title, body, sections, settings.user_weight, "user"))
    return tuple(sorted(exemplars, key=lambda e: (e.key, e.title, e.sections)))

"""Paths of the bundled templates and seeds, in a checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def bundled_dir(name: str) -> Path:
    """``templates`` or ``seeds``: inside the package when installed, beside it in a checkout."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled folder '{name}' is missing from this installation of surveytool")


def seed_lists() -> list[Path]:
    return sorted(bundled_dir("seeds").glob("*.txt"))


#: How messages name the bundled taxonomy.
DEFAULT_TAXONOMY_NAME = "seeds/taxonomy.toml"


def default_taxonomy() -> Path:
    return bundled_dir("seeds") / "taxonomy.toml"


def default_catalog() -> Path:
    return bundled_dir("seeds") / "catalog.bib"

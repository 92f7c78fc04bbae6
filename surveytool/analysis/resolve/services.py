"""The online services by name: which resolver class asks which base URL."""

from __future__ import annotations

from collections.abc import Sequence

from surveytool.analysis.resolve.dblp import DblpResolver
from surveytool.analysis.resolve.http import HttpClient
from surveytool.analysis.resolve.online import ArxivResolver, CrossrefResolver, OpenAlexResolver, _OnlineResolver
from surveytool.analysis.resolve.semantic_scholar import SemanticScholarResolver


def online_resolvers(settings, client: HttpClient, services: Sequence[str] | None = None) -> list[_OnlineResolver]:
    """The resolvers named in ``services`` (default: the settings' ``services``), in their order."""
    classes: dict[str, tuple[type[_OnlineResolver], str]] = {
        "openalex": (OpenAlexResolver, settings.openalex_url),
        "crossref": (CrossrefResolver, settings.crossref_url),
        "arxiv": (ArxivResolver, settings.arxiv_url),
        "dblp": (DblpResolver, settings.dblp_url),
        "semantic_scholar": (SemanticScholarResolver, settings.semantic_scholar_url),
    }
    names = settings.services if services is None else services
    return [classes[name][0](client, classes[name][1], settings.contact) for name in names]

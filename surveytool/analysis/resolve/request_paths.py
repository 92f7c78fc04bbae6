"""An identifier put into a request's path, so that it names one record and never another path."""

from __future__ import annotations

import urllib.parse

from surveytool.text.identifiers import parse_identifier


def path_part(identifier: str) -> str:
    """``identifier`` percent-encoded for a URL path, its slashes kept (a DOI's suffix has them).

    A segment of dots is encoded too: ``10.1145/../../admin`` is a valid DOI string, and a server or
    proxy that resolves dot segments would otherwise be asked for another path of the same host.
    """
    segments = urllib.parse.quote(identifier, safe="/").split("/")
    return "/".join(segment.replace(".", "%2E") if segment.strip(".") == "" else segment for segment in segments)


def doi_part(field: str) -> str:
    """The DOI a ``doi`` field holds, for a request's path ('' if it holds none).

    A .bib writes it as a link (``https://doi.org/10.1145/...``, ``%2F`` for its slash) or after ``doi:``;
    sent as written, the service is asked for a record that no DOI names.
    """
    identifier = parse_identifier(field)
    return path_part(identifier.value) if identifier is not None and identifier.kind == "doi" else ""

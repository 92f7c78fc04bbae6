"""Tagging the entries a patched rebuild reads again (``patch.py``), as a build in full would tag them."""

from __future__ import annotations

from collections.abc import Sequence

from surveytool.analysis.section_checks import tags_field_hints
from surveytool.analysis.tagging.exemplars import user_exemplars
from surveytool.analysis.tagging.self_training import Taught
from surveytool.analysis.tagging.tagger import Tagger, tag_papers
from surveytool.model import Finding, Paper, Taxonomy
from surveytool.pipeline import Options, tag_threshold
from surveytool.rebuild.exemplars import stored_exemplars


def tag_read_again(
    options: Options,
    taxonomy: Taxonomy,
    last: Taught,
    gone: set[str],
    papers: Sequence[Paper],
    changed: Sequence[Paper],
) -> tuple[list[Paper], list[Finding], Taught] | None:
    """``papers`` (those read again: the changed ones and their family) tagged, with their findings and what the
    library now teaches the tagger's second pass; None when a build in full would tag other entries anew.

    ``last``: what it taught in the last build; ``gone``: the keys of the entries changed or removed since;
    ``changed``: the entries changed, as read now.
    """
    # The tagger learns from the user's tagged entries: an edit to one of them may move the tags of every other;
    # so may one that changes what the library's sure entries teach its second pass (``Taught.after_patch``).
    exemplars = stored_exemplars(options.build_cache) if options.build_cache else None
    if exemplars is None or gone & {e.key for e in exemplars} or user_exemplars(changed, taxonomy):
        return None  # the changed ones, read again, teach what they taught
    tagger = Tagger(taxonomy, exemplars)
    keys = gone | {p.key for p in papers}
    taught: list[Taught] = []
    tagged, findings = tag_papers(
        papers,
        taxonomy,
        tagger,
        threshold=tag_threshold(options.config),
        tags_field=options.tags_field,
        beside=last.beside(keys),
        on_taught=taught.append,
    )
    now = last.after_patch(keys, taught[0])
    hinted = tags_field_hints(findings, papers, taxonomy, options.tags_field)  # as ``pipeline._analyse`` gives them
    return None if now is None else (tagged, hinted, now)

"""surveytool: related-paper lists, .bib files and ids in; a tagged bibliography and a related-work chapter out.

The public API (imported lazily, so that the command line starts fast)::

    from surveytool import Options, analyse, build
    survey = analyse(Options(sources=(Path("related.txt"),)))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:  # the same names, typed for library users and checkers; at run time they load on first use
    from surveytool.analysis.taxonomy import load_taxonomy as load_taxonomy
    from surveytool.build import build as build
    from surveytool.build import render_outputs as render_outputs
    from surveytool.draft import draft_chapter as draft_chapter
    from surveytool.errors import SurveyToolError as SurveyToolError
    from surveytool.maintain import check_sources as check_sources
    from surveytool.maintain import update_bib as update_bib
    from surveytool.maintain import write_bib as write_bib
    from surveytool.model import Finding as Finding
    from surveytool.model import Paper as Paper
    from surveytool.model import SourceLocation as SourceLocation
    from surveytool.model import Tag as Tag
    from surveytool.model import Taxonomy as Taxonomy
    from surveytool.options import DraftOptions as DraftOptions
    from surveytool.options import Options as Options
    from surveytool.output.entries_json import entries_json as entries_json
    from surveytool.pipeline import Survey as Survey
    from surveytool.pipeline import analyse as analyse

_API = {
    "Options": "options",
    "Survey": "pipeline",
    "analyse": "pipeline",
    "DraftOptions": "options",
    "build": "build",
    "draft_chapter": "draft",
    "render_outputs": "build",
    "entries_json": "output.entries_json",
    "write_bib": "maintain",
    "update_bib": "maintain",
    "check_sources": "maintain",
    "Paper": "model",
    "Tag": "model",
    "Finding": "model",
    "Taxonomy": "model",
    "SourceLocation": "model",
    "SurveyToolError": "errors",
    "load_taxonomy": "analysis.taxonomy",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str) -> object:
    if name in _API:
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'surveytool' has no attribute {name!r}")

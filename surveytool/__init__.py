"""surveytool: related-paper lists, .bib files and ids in; a tagged bibliography and a related-work chapter out.

The public API (imported lazily, so that the command line starts fast)::

    from surveytool import Options, analyse, build
    survey = analyse(Options(sources=(Path("related.txt"),)))
"""

from __future__ import annotations

__version__ = "0.1.0"

_API = {
    "Options": "pipeline", "Survey": "pipeline", "analyse": "pipeline", "DraftOptions": "build",
    "build": "build", "draft_chapter": "build", "render_outputs": "build", "entries_json": "output.entries_json",
    "write_bib": "maintain", "update_bib": "maintain", "check_sources": "maintain", "Paper": "model", "Tag": "model", "Finding": "model", "Taxonomy": "model",
    "SourceLocation": "model", "SurveyToolError": "errors", "load_taxonomy": "analysis.taxonomy",
}
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'surveytool' has no attribute {name!r}")

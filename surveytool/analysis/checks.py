"""Named consistency checks: the registry with every check registered (``check_registry.py`` holds the machinery).

Some checks report what earlier stages found (unknown tags, duplicate keys, unresolved
entries); the others look at the whole bibliography (``entry_checks.py``, ``field_checks.py``, ``section_checks.py``, ``cite_checks.py``, ``url_checks.py``, ``coverage.py``).
"""

from __future__ import annotations

# Importing a module of checks registers them.
from surveytool.analysis import (  # noqa: F401
    cite_checks,
    coverage,
    entry_checks,
    field_checks,
    section_checks,
    url_checks,
)
from surveytool.analysis.check_registry import REGISTRY, Check, CheckContext, register, run_checks
from surveytool.analysis.section_checks import COVERAGE_CHECKS

__all__ = ["COVERAGE_CHECKS", "REGISTRY", "Check", "CheckContext", "register", "run_checks"]

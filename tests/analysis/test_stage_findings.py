"""Every finding the code can make is a check or a stage's finding: `check --explain` explains each name printed."""

import ast
from pathlib import Path

from helpers import ROOT, run_cli

from surveytool.analysis.checks import REGISTRY
from surveytool.analysis.stage_findings import STAGE_FINDINGS


def _finding_names() -> dict[str, str]:
    """Each name passed to ``Finding`` as a string or a module-level string constant -> a file that makes it."""
    found: dict[str, str] = {}
    for path in sorted((ROOT / "surveytool").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            for target in node.targets
            if isinstance(target, ast.Name) and isinstance(node.value.value, str)
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding"):
                continue
            given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "check"), None)
            name = given.value if isinstance(given, ast.Constant) else constants.get(getattr(given, "id", ""))
            if isinstance(name, str):
                found.setdefault(name, str(Path(path).relative_to(ROOT)))
    return found


def test_every_finding_name_is_a_check_or_a_stage_finding():
    names = _finding_names()
    assert len(names) > 40  # the scan sees the findings (a broken scan would pass with none)
    unknown = {name: path for name, path in names.items() if name not in REGISTRY and name not in STAGE_FINDINGS}
    assert not unknown, unknown
    assert not set(REGISTRY) & set(STAGE_FINDINGS)


def test_explain_knows_a_stage_finding_and_checks_refuse_it_with_the_reason(tmp_path):
    explained = run_cli("check", "--explain", "glued-snippets", cwd=tmp_path)
    assert explained.returncode == 0 and explained.stdout.startswith("glued-snippets (warning, found while reading")
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}, year = 2020}\n", encoding="utf-8")
    refused = run_cli("check", "refs.bib", "--disable", "page-furniture", cwd=tmp_path)
    assert refused.returncode == 2 and "always reported: it cannot be chosen or left out" in refused.stderr
    typo = run_cli("check", "--explain", "unknowntag", cwd=tmp_path)
    assert typo.returncode == 2 and "did you mean 'unknown-tag'?" in typo.stderr

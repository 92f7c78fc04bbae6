"""The package's layout keeps its promises (docs/architecture.md): which folders may import what, and no import circles."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "surveytool"

#: Folder -> what its modules never import: the core reads, analyses and writes as if every run
#: were the first; memos, snapshots and forked children stay behind the reuse seam.
NEVER_IMPORTS = {
    "text": (
        "surveytool.sources",
        "surveytool.bibtex",
        "surveytool.analysis",
        "surveytool.output",
        "surveytool.rebuild",
        "surveytool.cli",
        "surveytool.parallel",
        "surveytool.pipeline",
        "surveytool.build",
    ),
    "sources": ("surveytool.output", "surveytool.rebuild", "surveytool.parallel", "surveytool.cli", "surveytool.build"),
    "bibtex": (
        "surveytool.sources",
        "surveytool.analysis",
        "surveytool.output",
        "surveytool.drafting",
        "surveytool.rebuild",
        "surveytool.parallel",
        "surveytool.cli",
        "surveytool.build",
    ),
    "analysis": ("surveytool.rebuild", "surveytool.parallel", "surveytool.cli", "surveytool.build"),
    "output": ("surveytool.rebuild", "surveytool.parallel", "surveytool.cli", "surveytool.build"),
    "drafting": ("surveytool.rebuild", "surveytool.parallel", "surveytool.cli", "surveytool.build"),
}
#: Imports that break a rule above, each with what is left to do. Keep this list short.
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("surveytool")}


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def test_core_folders_never_import_the_rebuild_machinery_or_the_commands():
    broken = []
    for name, path in MODULES.items():
        folder = name.split(".")[1] if name.count(".") >= 1 else ""
        for imported in _imports(path, top_level_only=False):
            for forbidden in NEVER_IMPORTS.get(folder, ()):
                if (
                    (imported == forbidden or imported.startswith(forbidden + "."))
                    and (name, imported.rsplit(".", 1)[0] if imported not in MODULES else imported)
                    not in KNOWN_EXCEPTIONS
                    and (name, imported) not in KNOWN_EXCEPTIONS
                ):
                    broken.append(f"{name} imports {imported}")
    assert broken == []


def test_every_known_exception_is_still_needed():
    used = {(name, imported) for name, path in MODULES.items() for imported in _imports(path, top_level_only=False)}
    assert {pair for pair in KNOWN_EXCEPTIONS if pair not in used} == set()


def test_no_two_modules_import_each_other_in_a_circle():
    graph = {
        name: {i for i in _imports(path, top_level_only=True) if i in MODULES and i != name}
        for name, path in MODULES.items()
    }
    # Tarjan's strongly connected components: any component of more than one module is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert circles == []


def test_no_module_is_much_over_three_hundred_lines():
    long = {
        name: n for name, path in MODULES.items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > 330
    }
    assert long == {}

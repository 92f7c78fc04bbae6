"""Start-up: each command imports only what it needs (issue #9).

Every command pays for its imports before it reads a byte; jinja2 is for the
commands that render, the network clients for --online, and pydantic for none.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Runs one command in a fresh interpreter, then reports which of the watched modules it imported.
_PROBE = """
import json, sys
from surveytool.cli.app import app
try:
    app(sys.argv[2:], standalone_mode=False)
except SystemExit:
    pass
with open(sys.argv[1], "w") as report:
    json.dump(sorted(sys.modules), report)
"""

_NETWORK = {"http.client", "urllib.request", "sqlite3"}
_NEVER = {"pydantic"}
_TRANSLITERATION = {"anyascii"}  # its tables load only for a key made of text the accent fold cannot spell

_ENTRY = "@article{vaswani2017, title={Attention Is All You Need}, author={Vaswani, Ashish}, year={2017}}\n"


def _imported(tmp_path, *args: str) -> set[str]:
    report = tmp_path / "modules.json"
    subprocess.run(
        [sys.executable, "-c", _PROBE, str(report), *args],
        cwd=tmp_path,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return set(json.loads(report.read_text()))


def test_help_imports_neither_parsers_nor_templates(tmp_path):
    imported = _imported(tmp_path, "--help")
    assert "typer" in imported  # the probe ran the command line
    assert imported.isdisjoint({"bibtexparser", "pylatexenc", "jinja2", *_NETWORK, *_NEVER, *_TRANSLITERATION})


@pytest.mark.parametrize(
    "args",
    [
        ("check",),  # the bundled seeds
        ("bib", "mine.bib", "-o", "out.bib"),
        ("tag", "mine.bib"),
        ("parse", "mine.bib", "--json"),
        ("resolve", "mine.bib", "--json"),
    ],
)
def test_analysing_commands_import_no_templates_or_network_clients(tmp_path, args):
    (tmp_path / "mine.bib").write_text(_ENTRY, encoding="utf-8")
    imported = _imported(tmp_path, *args)
    assert "bibtexparser" in imported  # the command really read its sources
    assert imported.isdisjoint({"jinja2", *_NETWORK, *_NEVER, *_TRANSLITERATION})


def test_checking_the_online_and_llm_tables_imports_no_network_client(tmp_path):
    (tmp_path / "mine.bib").write_text(_ENTRY, encoding="utf-8")
    (tmp_path / "surveytool.toml").write_text('[online]\ntimeout = 5\n[llm]\nmodel = "m"\n', encoding="utf-8")
    imported = _imported(tmp_path, "parse", "mine.bib", "--json")
    assert "surveytool.settings_check" in imported and "bibtexparser" in imported
    assert imported.isdisjoint({*_NETWORK, *_NEVER})


def test_build_imports_templates_but_not_network_clients(tmp_path):
    imported = _imported(tmp_path, "build", "--out", "out")
    assert (tmp_path / "out" / "related_work.tex").exists()
    assert "jinja2" in imported
    assert imported.isdisjoint({*_NETWORK, *_NEVER})

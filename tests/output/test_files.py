"""What a command says when it cannot write its output names an option that command has."""

import pytest
from helpers import run_cli

LOREM = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"


@pytest.mark.parametrize(
    ("command", "to", "name"),
    [
        ("draft", "ro.tex", "ro.tex"),
        ("bib", "ro.bib", "ro.bib"),
        ("export", "ro.md", "ro.md"),
        ("build", "out", "out/related_work.tex"),
    ],
)
def test_a_read_only_output_is_refused_with_a_hint_naming_the_commands_own_option(tmp_path, command, to, name):
    (tmp_path / "lorem.bib").write_text(LOREM, encoding="utf-8")
    run_cli(command, "lorem.bib", "-o", to, cwd=tmp_path, check=True)
    protected = tmp_path / name
    written = protected.read_bytes()
    protected.chmod(0o444)
    refused = run_cli(command, "lorem.bib", "-o", to, cwd=tmp_path)
    assert refused.returncode == 2
    assert f"{name}: error: is read-only" in refused.stderr
    assert "(make it writable (chmod u+w), or write elsewhere with -o)" in refused.stderr
    assert "--out" not in refused.stderr  # build's option alone: draft named it
    assert protected.read_bytes() == written
    # Doing as the hint says works.
    assert run_cli(command, "lorem.bib", "-o", f"elsewhere-{to}", cwd=tmp_path).returncode == 0

"""The settings file: every mistake in it is one line naming the file, the line and a fix; every command reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

MINE = "@article{smith2020,\n  author = {Ann Smith},\n  title = {Pipeline parallel training},\n  year = 2020,\n}\n"


@pytest.mark.parametrize(
    "settings, line, message",
    [
        ("[tag]\nthreshold = 5\n", 3, "[tag] threshold must be a number from 0 to 1, not 5 (threshold = 0.5)"),
        (
            "[tag]\ntreshold = 0.3\n",
            3,
            "unknown setting(s) in [tag]: treshold (did you mean threshold? known: threshold)",
        ),
        ("[Tag]\nthreshold = 0.3\n", 2, "unknown table(s): [Tag] (did you mean [tag]? known: [bib], [check]"),
        # An array of tables is a misspelt table too, not "a setting outside any table".
        ("[[tagg]]\nthreshold = 0.3\n", 2, "unknown table(s): [tagg] (did you mean [tag]? known: [bib], [check]"),
        # urllib's ValueError on a broken IPv6 host crashed every command; a port out of range or a space in
        # the host failed only once a request was made.
        ('[online]\ncrossref_url = "http://[::1"\n', 3, "[online] crossref_url must be an http:// or https:// address"),
        ('[online]\ndblp_url = "https://dblp.org:99999"\n', 3, "[online] dblp_url must be an http:// or https://"),
        ('[online]\narxiv_url = "http://export arxiv.org"\n', 3, "[online] arxiv_url must be an http:// or https://"),
        # Two resolvers of one service: an entry it cannot resolve was asked for twice.
        ('[online]\nservices = ["crossref", "arxiv", "crossref"]\n', 3, "[online] services names crossref twice (name"),
        # A check misspelt in [check] disable was blamed on --checks/--disable, an option not given.
        (
            '[check]\ndisable = ["thin-sectoin"]\n',
            3,
            "[check] disable names 'thin-sectoin', which is no check (did you",
        ),
        ('[duplicates]\nmerge = "yes"\n', 3, "[duplicates] merge must be true or false, not 'yes' (merge = true)"),
        ('[latex]\nallow = "\\\\mycmd"\n', 3, "[latex] allow must be a list of command names, not '\\\\mycmd'"),
        ("[check]\nthin = 2\ncolour = 1\n", 4, "unknown setting(s) in [check]: colour (known: disable, thin)"),
        ("[bogus]\nx = 1\n", 2, "unknown table(s): [bogus] (known: [bib], [check], [duplicates], [keys], [latex]"),
        ('[bib]\nomit = ["abstract"\nwrap = 80\n', 4, "not valid TOML: Unclosed array"),
        # tomllib says only "at end of document" of an array or string left open to the end: its last line.
        ('[bib]\nwrap = 80\nomit = ["abstract",\n\n', 4, "not valid TOML: Invalid value at the end of the file"),
        # Line ends of classic Mac OS: tomllib said what it expected, not why.
        (
            "[tag]\rthreshold = 0.5\r",
            2,
            "not valid TOML: Expected newline or end of document after a statement (the file has carriage returns alone",
        ),
        # A setting above every header belongs to no table; a sub-table or an array of tables is no setting.
        ("threshold = 0.5\n[tag]\n", 2, "setting 'threshold' is outside any table (write it below the header"),
        ("[tag]\nthreshold = 0.5\n[tag.extra]\nx = 1\n", 4, "unknown setting(s) in [tag]: extra (known: threshold)"),
        ("[[tag]]\nthreshold = 0.5\n", 2, "tag must be a table (write [tag] on a line of its own"),
        # TOML's other spellings of a table's setting.
        ("tag.threshold = 2\n", 2, "[tag] threshold must be a number from 0 to 1, not 2"),
        ('"check" . thin = -1\n', 2, "[check] thin must be a whole number of papers, 0 or more, not -1"),
        ("tag = { threshold = 2 }\n", 2, "[tag] threshold must be a number from 0 to 1, not 2"),
        ('[ "tag" ]\n"threshold" = 2\n', 3, "[tag] threshold must be a number from 0 to 1, not 2"),
        # A dotted key below the setting makes it a table: the line is still the one that set it.
        ("[tag]\nthreshold.x = 0.3\n", 3, "[tag] threshold must be a number from 0 to 1, not {'x': 0.3}"),
        ("tag.threshold.x = 0.3\n", 2, "[tag] threshold must be a number from 0 to 1, not {'x': 0.3}"),
    ],
)
def test_a_wrong_setting_is_one_line_with_its_file_and_line(tmp_path: Path, settings: str, line: int, message: str):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "surveytool.toml").write_text("# my settings\n" + settings, encoding="utf-8")
    # parse reads [duplicates] (check does not merge), check reads [check]; both read the rest.
    result = run_cli("parse" if "[duplicates]" in settings else "check", "mine.bib", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"surveytool.toml:{line}: error: {message}"), result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "command",
    [
        ("bib", "mine.bib", "-o", "out.bib"),
        ("export", "mine.bib", "-o", "out.md"),
        ("rekey", "mine.bib", "--tex", "paper.tex"),
        ("taxonomy", "--sources", "mine.bib"),
        ("tag", "mine.bib"),
        ("parse", "mine.bib"),
    ],
)
def test_every_command_that_reads_sources_reads_the_settings_file_it_is_given(tmp_path: Path, command: tuple):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "paper.tex").write_text("\\cite{smith2020}\n", encoding="utf-8")
    (tmp_path / "elsewhere.toml").write_text("[tag]\nthreshold = 7\n", encoding="utf-8")
    result = run_cli(*command, "--config", "elsewhere.toml", cwd=tmp_path)
    assert result.returncode == 2, (command, result.stderr)
    assert result.stderr.startswith("elsewhere.toml:2: error: [tag] threshold must be a number from 0 to 1")


#: The commands the settings file's mistakes were once invisible to unless the command used the table.
_READERS = {
    "build": ("build", "mine.bib", "--out", "out"),
    "bib": ("bib", "mine.bib", "-o", "out.bib"),
    "check": ("check", "mine.bib"),
    "parse": ("parse", "mine.bib"),
}


def _run_with_settings(tmp_path: Path, command: str, settings: str):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "surveytool.toml").write_text("# my settings\n" + settings, encoding="utf-8")
    result = run_cli(*_READERS[command], cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, (command, result.stderr)
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.bib").exists()  # stopped before it wrote
    return result.stderr


@pytest.mark.parametrize("command", _READERS)
@pytest.mark.parametrize(
    "settings, message",
    [
        ("[online]\nfoo = 1\n", "unknown setting(s) in [online]: foo (known: contact, services,"),
        # The README says contact is sent "as mailto": the name OpenAlex and Crossref give it.
        (
            '[online]\nmailto = "me@example.org"\n',
            "unknown setting(s) in [online]: mailto (did you mean contact? known: contact,",
        ),
        ("[llm]\nfoo = 1\n", "unknown setting(s) in [llm]: foo (known: base_url, model,"),
        ("[check]\nfoo = 1\n", "unknown setting(s) in [check]: foo (known: disable, thin)"),
        ("[bib]\nfoo = 1\n", "unknown setting(s) in [bib]: foo (known: "),
    ],
)
def test_every_command_refuses_a_typo_in_any_table_it_knows(tmp_path: Path, command: str, settings: str, message: str):
    assert _run_with_settings(tmp_path, command, settings).startswith(f"surveytool.toml:3: error: {message}")


@pytest.mark.parametrize(
    "command, settings, message",
    [
        ("check", '[bib]\nalign = "x"\n', "[bib] align must be a column from 0 to 40 (0: no column), not 'x'"),
        ("parse", '[bib]\nalign = "x"\n', "[bib] align must be a column from 0 to 40 (0: no column), not 'x'"),
        ("build", "[check]\nthin = -1\n", "[check] thin must be a whole number of papers, 0 or more, not -1"),
        ("bib", '[check]\ndisable = "thin-section"\n', "[check] disable must be a list of check names, not"),
        (
            "check",
            "[online]\ntimeout = 0\n",
            "[online] timeout must be a number of seconds above 0, a day at most, not 0",
        ),
        ("bib", '[online]\nservices = ["bogus"]\n', "unknown service(s): bogus (use openalex, crossref, arxiv"),
        # --online with no service asked none, unsaid: an identifier stayed unresolved, told to run with --online.
        ("build", "[online]\nservices = []\n", "[online] services must be a list of one service or more, not []"),
        ("check", "[online]\ncomplete_services = []\n", "[online] complete_services must be a list of one service"),
        ("bib", '[online]\nservices = ["OpenAlex"]\n', "unknown service(s): OpenAlex (did you mean 'openalex'? use"),
        ("parse", '[llm]\nbase_url = "ftp://x"\n', "[llm] base_url must be an http:// or https:// address"),
        ("check", "[keys]\nformula = 5\n", "[keys] formula must be a quoted formula, not 5"),
        ("parse", "[tag]\nthreshold = 2\n", "[tag] threshold must be a number from 0 to 1, not 2"),
    ],
)
def test_a_wrong_value_stops_a_command_that_does_not_use_its_table(
    tmp_path: Path, command: str, settings: str, message: str
):
    assert _run_with_settings(tmp_path, command, settings).startswith(f"surveytool.toml:3: error: {message}")


def test_every_table_a_settings_file_may_have_is_checked_by_every_command():
    from surveytool.config import TABLES
    from surveytool.settings_check import LOADERS

    assert sorted(LOADERS) == sorted(TABLES)


def test_a_settings_file_that_is_not_utf8_is_named_at_the_line_of_its_first_stray_byte(tmp_path: Path):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "surveytool.toml").write_bytes(b"[tag]\nthreshold = 0.5\n# r\xe9glages\n")
    result = run_cli("tag", "mine.bib", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr == "surveytool.toml:3: error: not UTF-8 text (save the settings file as UTF-8)\n"


def test_a_check_misspelt_in_check_disable_stops_every_command_not_only_check(tmp_path: Path):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "surveytool.toml").write_text('[check]\ndisable = [\n  "tag-variant",\n  "unknown-key",\n]\n')
    result = run_cli("tag", "mine.bib", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "surveytool.toml:2: error: [check] disable names 'unknown-key', which is no check (leave it out: it is found "
        "while the sources are read, and always reported)\n"
    )
    (tmp_path / "surveytool.toml").write_text('[check]\ndisable = ["tag-variant ", "needs-review"]\n')
    assert run_cli("tag", "mine.bib", cwd=tmp_path).returncode == 0


def test_a_settings_file_in_the_folder_that_links_to_nowhere_is_told_not_passed_over(tmp_path: Path):
    # The link to a moved settings file was not is_file(): the run went on with the defaults, unsaid.
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "surveytool.toml").symlink_to(tmp_path / "moved" / "surveytool.toml")
    result = run_cli("tag", "mine.bib", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("surveytool.toml: error: config file is a symbolic link to ")


def test_a_taxonomy_given_as_the_settings_file_is_told_so(tmp_path: Path):
    # The bundled taxonomy as --config was "setting 'title' is outside any table", which sent the user into it.
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    taxonomy = 'title = "My Survey"\n\n[[groups]]\nid = "g"\ntitle = "G"\n\n[[sections]]\nid = "a"\ntitle = "A"\n'
    (tmp_path / "tax.toml").write_text(taxonomy, encoding="utf-8")
    result = run_cli("check", "mine.bib", "--config", "tax.toml", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(
        "tax.toml:3: error: this is a taxonomy (it has [[groups]] tables), not a settings file "
        "(give it with --taxonomy tax.toml;"
    )


def test_a_settings_file_given_as_the_taxonomy_is_told_so(tmp_path: Path):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "settings.toml").write_text("[tag]\nthreshold = 0.4\n", encoding="utf-8")
    result = run_cli("taxonomy", "validate", "settings.toml", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0] == (
        "settings.toml:1: error: unknown key 'tag' ([tag] is a table of the settings file: give that file with "
        "--config, a taxonomy with --taxonomy)"
    )

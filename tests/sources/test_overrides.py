"""An overrides file ([tags] key = [section ids]): each mistake in it is told at its line, with what was meant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from surveytool.errors import InputError
from surveytool.sources.overrides import load_overrides

MINE = (
    "@article{smith2020pipe,\n  author = {Ann Smith},\n  title = {Pipeline parallel training},\n  year = 2020,\n"
    "  sections = {pipeline-parallel},\n}\n"
)


def test_an_empty_list_of_tags_is_refused_at_its_line(tmp_path: Path):
    # [] put the entry's own tags (from its .bib) aside without a word and left it to the tagger.
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "overrides.toml").write_text("[tags]\n# to do\nsmith2020pipe = []\n", encoding="utf-8")
    result = run_cli("tag", "mine.bib", "--overrides", "overrides.toml", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "overrides.toml:3: error: tags of 'smith2020pipe' must be a list of section ids, not empty "
        '(smith2020pipe = ["moe", "model-parallel"], or leave the line out)\n'
    )


def test_a_key_written_in_another_case_or_misspelt_is_told_the_key_meant(tmp_path: Path):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "overrides.toml").write_text(
        '[tags]\nSmith2020Pipe = ["moe"]\nsmith2020pip = ["moe"]\nnobody1999 = ["moe"]\n', encoding="utf-8"
    )
    result = run_cli("tag", "mine.bib", "--overrides", "overrides.toml", cwd=tmp_path)
    said = [line for line in result.stderr.splitlines() if "[unknown-key]" in line]
    assert said == [
        "overrides.toml:2: warning [unknown-key] overrides name 'Smith2020Pipe', which is not an entry "
        "(did you mean 'smith2020pipe'?)",
        "overrides.toml:3: warning [unknown-key] overrides name 'smith2020pip', which is not an entry "
        "(did you mean 'smith2020pipe'?)",
        "overrides.toml:4: warning [unknown-key] overrides name 'nobody1999', which is not an entry "
        "(name an entry by the key `surveytool tag` lists for it)",
    ]


def test_an_overrides_file_that_is_not_utf8_names_the_line_of_the_first_such_byte(tmp_path: Path):
    path = tmp_path / "overrides.toml"
    path.write_bytes('[tags]\n# Müller\'s papers\nmuller2020 = ["moe"]\n'.encode("latin-1"))
    with pytest.raises(InputError) as raised:
        load_overrides(path)
    assert raised.value.line == 2 and "not UTF-8 text" in str(raised.value)


@pytest.mark.parametrize(
    "line, said",
    [
        # TOML splits a bare key at its dots: this was "tags of 'smith' must be a list", at no line.
        ("smith.2020 = ['moe']", "overrides.toml:3: error: key 'smith.2020' is read as a table: TOML splits a key"),
        ("smith.2020.b = ['moe']", "overrides.toml:3: error: key 'smith.2020.b' is read as a table"),
        # A DBLP key is no bare key: the TOML error says to quote it.
        ("DBLP:conf/nips/X17 = ['moe']", 'quote a key of other characters: "DBLP:conf/x" = ["moe"])'),
    ],
)
def test_a_key_toml_reads_otherwise_is_told_how_to_quote_it(tmp_path: Path, line: str, said: str):
    path = tmp_path / "overrides.toml"
    path.write_text(f"[tags]\njones2019 = ['moe']\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_overrides(path)
    assert said in str(raised.value).replace(str(path), "overrides.toml")


def test_an_entry_named_twice_by_its_key_and_a_key_merged_into_it_is_told_and_its_own_key_wins(tmp_path: Path):
    # Sorted by key, 'Kwon2023vllm' came before 'kwon2023paged': one line's tags were dropped without a word.
    entry = "@{kind}{{{key},\n  title = {{Memory Management for Model Serving}},\n  author = {{Kwon, Woosuk}},\n"
    entry += "  year = {{2023}},\n  doi = {{10.1145/3600006.3613165}},\n}}\n"
    (tmp_path / "mine.bib").write_text(
        entry.format(kind="article", key="kwon2023paged") + entry.format(kind="inproceedings", key="Kwon2023vllm")
    )
    (tmp_path / "overrides.toml").write_text('[tags]\nKwon2023vllm = ["moe"]\nkwon2023paged = ["memory"]\n')
    result = run_cli(
        "build", "mine.bib", "--merge-duplicates", "--overrides", "overrides.toml", "--out", "out", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert (
        "overrides.toml:2: warning [override-twice] overrides name 'kwon2023paged' again as 'Kwon2023vllm', with other "
        "tags: those of 'kwon2023paged' are taken (keep one line for the entry, under 'kwon2023paged')"
    ) in result.stderr.splitlines()
    [paper] = json.loads((tmp_path / "out" / "entries.json").read_text())
    assert paper["key"] == "kwon2023paged" and paper["tags"] == ["memory"]


@pytest.mark.parametrize(
    "text, said",
    [
        # Each was "an overrides file has one table, [tags]" at no line, whatever was wrong.
        (
            '# mine\n[tag]\nsmith2020 = ["moe"]\n',
            ":2: error: unknown table [tag]: an overrides file has one table, [tags] (did you mean [tags]?)",
        ),
        (
            'smith2020 = ["moe"]\n[tags]\n',
            ":1: error: 'smith2020' is outside the [tags] table (write [tags] on a line above it)",
        ),
        ('tags = ["moe"]\n', ":1: error: tags must be a table (write [tags] on a line of its own"),
        ('[tags]\na = ["moe"]\n[notes]\nb = 1\n', ":3: error: unknown table [notes]: an overrides file has one table"),
    ],
)
def test_what_is_not_under_tags_is_told_at_its_line(tmp_path: Path, text: str, said: str):
    path = tmp_path / "overrides.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_overrides(path)
    assert str(raised.value).startswith(f"{path}{said}")

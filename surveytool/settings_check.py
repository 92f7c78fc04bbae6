"""The whole settings file (surveytool.toml) checked at once, whichever of its tables a command uses.

A command reads only some tables; left to those, a typo in ``[online]`` would pass every run without
--online unseen. So every command that reads the file checks every table first (cli/options.make_options),
each by the loader that gives its settings, with that loader's one-line message.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from surveytool.config import (
    TABLES,
    load_bib_format,
    load_check_settings,
    load_key_formula,
    load_latex_allow,
    load_llm_settings,
    load_merge_duplicates,
    load_tag_settings,
)
from surveytool.online_settings import load_online_settings

#: Table -> the loader that checks it (and every table's name): one for each of config.TABLES.
LOADERS: dict[str, Callable[[Path], object]] = {
    "bib": load_bib_format,
    "check": load_check_settings,
    "duplicates": load_merge_duplicates,
    "keys": load_key_formula,
    "latex": load_latex_allow,
    "llm": load_llm_settings,
    "online": load_online_settings,
    "tag": load_tag_settings,
}


def check_settings(path: Path | None) -> None:
    """Stop (InputError, exit 2) at the first mistake anywhere in the settings file at ``path``."""
    if path is None:
        return
    for table in TABLES:
        LOADERS[table](path)

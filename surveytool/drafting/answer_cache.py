"""The model's answers, kept by content in one sealed file, so that a rebuild drafts the same text offline.

The key is a digest of the request (model and prompt, see ``llm_client.answer_key``); the value is
the answer's text as the model gave it (less a reasoning model's thinking), checked again on every use
(so a bibliography that lost a key drops the sentences citing it). The file is sealed like the rebuild cache
(``sealed.py``): one this user's surveytool did not write is never read.
"""

from __future__ import annotations

from pathlib import Path

from surveytool.drafting.llm_client import MAX_CONTENT_CHARS
from surveytool.options import CACHE_FOLDER
from surveytool.output.files import writes_into_device
from surveytool.regular_files import Unusable
from surveytool.sealed import read_sealed, write_sealed

CACHE_NAME = "llm-answers"
#: Answers kept at most (each at most MAX_CONTENT_CHARS): those of the last runs' chapters, the latest first.
MAX_ANSWERS = 1000


def answers_folder(chapter: Path) -> Path:
    """Where the answers drafting ``chapter`` are kept: the cache folder beside it. A chapter printed (``-o -``,
    or ``-o /dev/stdout``, a pipe) has them in the current folder's, where draft writes its chapter by default:
    the two share them."""
    streamed = chapter == Path("-") or writes_into_device(chapter)
    return (Path() if streamed else chapter.parent) / CACHE_FOLDER


class AnswerCache:
    """Answers by request digest; ``folder`` None keeps them in memory only."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.problem = ""  # why the file on disk could not be used, for an info line
        self._answers: dict[str, str] = {}
        self._changed = False
        if folder is not None:
            self._answers = self._load(folder / CACHE_NAME)

    def _load(self, path: Path) -> dict[str, str]:
        try:
            value = read_sealed(path)
        except FileNotFoundError:
            return {}
        except (Unusable, OSError) as problem:
            self.problem = f"{path}: {problem}; the answers will be asked for again"
            return {}
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and len(v) <= MAX_CONTENT_CHARS for k, v in value.items()
        ):
            self.problem = f"{path}: not a cache of answers; the answers will be asked for again"
            return {}
        return value

    def get(self, key: str) -> str | None:
        return self._answers.get(key)

    def put(self, key: str, answer: str) -> None:
        if self._answers.get(key) != answer:
            self._answers[key] = answer
            self._changed = True

    def drop(self, key: str) -> None:
        """Forget an answer that turned out to be of no use, so that the model is asked again."""
        if self._answers.pop(key, None) is not None:
            self._changed = True

    def __len__(self) -> int:
        return len(self._answers)

    def save(self, used: set[str] | None = None) -> str:
        """Write the answers, those in ``used`` first; the problem as text when it cannot, else ''.

        The others stay after them, most recently used first, up to :data:`MAX_ANSWERS` in all: another chapter
        beside this one, or this one with other options (``--no-themes``), has its answers still.
        """
        if used is not None:
            order = sorted(k for k in self._answers if k in used) + [k for k in self._answers if k not in used]
            order = order[:MAX_ANSWERS]
            if order != list(self._answers):
                self._answers = {k: self._answers[k] for k in order}
                self._changed = True
        if self.folder is None or not self._changed:
            return ""
        try:
            write_sealed(self.folder, CACHE_NAME, self._answers)
        except Unusable as problem:  # the folder (a link, a file), or the user's key: not this file
            return f"{self.folder}: {problem}; the model's answers are not kept"
        except OSError as problem:  # the error's own text names the temporary file
            return f"{self.folder / CACHE_NAME}: cannot be written ({problem.strerror or problem}); the model's answers are not kept"
        self._changed = False
        return ""

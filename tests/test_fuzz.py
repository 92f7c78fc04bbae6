"""Every reader survives mutated real inputs: no traceback and no hang, whatever the bytes.

A seeded mutator starts from real files (biber's test .bib files, the bench file when it is there, the
seed lists and taxonomy, a CSL-JSON export, a chapter) and deletes, duplicates, splices and repeats
pieces of them, inserts the characters each format is made of, and breaks their encoding. A reader
may refuse an input with a user-facing error (one line, exit 2); anything else it raises is a crash,
and an input that takes longer than a bound (a few seconds, more for a large input) is a hang. Each target runs for a time budget in
the test suite; run it longer by hand (failing inputs are saved for a regression test):

    python tests/test_fuzz.py --inputs 4000 --save /tmp/fuzz-failures
    python tests/test_fuzz.py --targets csl-json taxonomy --seed 7 --inputs 2000
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

import pytest
from helpers import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(ROOT))

from surveytool.analysis.taxonomy import load_taxonomy  # noqa: E402
from surveytool.bibtex.reader import read_bibtex  # noqa: E402
from surveytool.errors import SurveyToolError  # noqa: E402
from surveytool.output.export import to_csl_json  # noqa: E402
from surveytool.output.notes_regions import carry_over, edited_outside_regions, regions, stamp  # noqa: E402
from surveytool.sources.csl_json import csl_to_papers  # noqa: E402
from surveytool.sources.read import read_source  # noqa: E402
from surveytool.text.citations import citations  # noqa: E402

SEED = 20261203
# A hang: more CPU time than this, plus a time per byte that linear readers meet with room to spare
# (40,000 empty @a{ blocks take 2 s to report) and quadratic ones miss by far on inputs of this size.
# CPU time of this process, not wall time: a machine busy with other work does not make a hang.
PER_INPUT_SECONDS = 2.0
PER_INPUT_BYTE_SECONDS = 30e-6
BUDGET_SECONDS = 2.5  # per target in the test suite: seven targets stay under half a minute
MIN_INPUTS, MAX_INPUTS = 25, 600  # per target in the test suite, whatever the machine's speed
MAX_INPUT_CHARS = 200_000
DATA = ROOT / "tests" / "data"
BENCH = ROOT.parent / "shared" / "bench" / "medium-refdb.bib"

# fmt: off
# What the formats are made of, and what has broken readers before.
TOKENS = [
    "{", "}", "@", '"', "\\", "%", "#", ",", "=", "(", ")", "[", "]", ":", "\n", "\r\n", "\r", "\n\n", "\t", " ",
    "\ufeff", "…", "...", "-\n", "é", "\u00a0", "\u2028", "😀", "中文", "相关论文：", "Related papers: ", "\\cite{",
    "\\citep[see][p. 2]{", "\\foo", "\\'", "$", "^^", "@string{x = ", "@comment{", "@preamble{", "@article{k,",
    " # ", "title = ", "sections = {", '"id": ', '"date-parts": [[', "null", "true", "-1e999", "[[sections]]",
    "[[groups]]", 'id = "', 'parent = "', "keywords = {", '"""', "10.1000/x#y", "arXiv:2104.14830v2",
    "hep-th/9901001", "% surveytool: begin notes a\n", "% surveytool: end notes a\n",
    "% surveytool: begin notes orphaned\n", "% surveytool: end notes orphaned\n", "% surveytool: begin notes moe\n",
    "% surveytool: end notes moe\n", "% surveytool: checksum 0123456789abcdef0123456789abcdef01234567\n",
]
# Repeated thousands of times: long runs are where readers turn quadratic.
RUNS = [
    " ", "{", "}", "[", "(", "\\cite", "@a{", "…", "\n", "-", "a", ",", "\\", '"', "% surveytool: begin notes x\n",
]
# fmt: on


def _mutate(text: str, rng: random.Random, donors: list[str]) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(text))
        end = min(len(text), at + rng.choice((1, 8, 64, 512, 4096)))
        choice = rng.randrange(9)
        if choice == 0:
            text = text[:at] + text[end:]
        elif choice == 1:
            text = text[:at] + text[at:end] * rng.choice((2, 3, 50)) + text[at:]
        elif choice in (2, 3):
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif choice == 4:  # a long run, often just after a character that opens something
            opener = rng.choice(("\\", "{", "[", ":", '"', "@", "\n", "=", "cite", "papers:", '"id":'))
            found = text.find(opener, at)
            at = found + len(opener) if found >= 0 and rng.random() < 0.5 else at
            text = (
                text[:at]
                + rng.choice(("", rng.choice(TOKENS)))
                + rng.choice(RUNS) * rng.choice((100, 1000, 40_000))
                + text[at:]
            )
        elif choice == 5:
            donor = rng.choice(donors)
            start = rng.randint(0, len(donor))
            text = text[:at] + donor[start : start + rng.choice((20, 200, 2000))] + text[at:]
        elif choice == 6:
            text = text[: rng.randint(0, len(text))]
        elif choice == 7:
            lines = text.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        else:
            text = text[:at] + rng.choice((text[at:end].upper(), text[at:end][::-1], "")) + text[end:]
    return text[:MAX_INPUT_CHARS]


def _encode(text: str, rng: random.Random) -> bytes:
    """UTF-8, or now and then Latin-1 or UTF-8 with a few bytes broken."""
    data = text.encode("utf-8", errors="surrogatepass")
    roll = rng.random()
    if roll < 0.1:
        data = text.encode("latin-1", errors="replace")
    elif roll < 0.2 and data:
        broken = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            broken[rng.randrange(len(broken))] = rng.choice((0x80, 0xC3, 0xE2, 0xFF, 0x00, 0x0D))
        data = bytes(broken)
    return data


# ---- seed inputs -------------------------------------------------------------------------------


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


@cache
def bib_seeds() -> tuple[str, ...]:
    seeds = [_read(p) for p in sorted((DATA / "corpus" / "biber").glob("*.bib"))]
    seeds.append(_read(ROOT / "seeds" / "catalog.bib"))
    if BENCH.is_file():  # a window of the real bench file (CI has a copy beside the repository)
        text = _read(BENCH)
        start = text.find("\n@", len(text) // 3)
        seeds.append(text[start : start + 30_000])
    return tuple(seeds)


@cache
def list_seeds() -> tuple[str, ...]:
    paths = sorted((ROOT / "seeds").glob("*.txt")) + sorted((DATA / "lists").glob("*.txt"))
    return tuple(_read(p) for p in paths)


@cache
def csl_seeds() -> tuple[str, ...]:
    catalog = read_bibtex(_read(ROOT / "seeds" / "catalog.bib"), "catalog.bib")
    return (to_csl_json(catalog.papers[:12]), _read(DATA / "online" / "crossref_work.json"))


ID_LIST = """# DOIs and arXiv ids, one a line
10.1145/3458817.3476209
https://doi.org/10.48550/arXiv.2006.16668   # GShard
arXiv:1909.08053v2
hep-th/9901001
doi:10.1109/SC41405.2020.00024
2104.14830
"""

TEX = r"""\section{Intro}
As shown by \citet{lepikhin2021gshard} and \citep[see][p.~2]{shoeybi2019megatron, narayanan2021efficient},
biblatex \cites[a]{x}[b]{y} and \parencite*{z} and \nocite{*}. % \cite{commented}
\textcite{a,b}\footcite(vol)[p]{c} \Citeauthor{d}.
"""


@cache
def tex_seeds() -> tuple[str, ...]:
    return (TEX, _read(ROOT / "tests" / "golden" / "seeds" / "related_work.tex"))


@cache
def taxonomy_seeds() -> tuple[str, ...]:
    return (_read(ROOT / "seeds" / "taxonomy.toml"),)


@cache
def chapter_seeds() -> tuple[str, ...]:
    chapter = _read(ROOT / "tests" / "golden" / "seeds" / "related_work.tex")
    marker = "% surveytool: begin notes moe\n"
    removed = "% surveytool: begin notes removed-section\nProse of a section since removed.\n% surveytool: end notes removed-section\n"
    return (chapter, chapter.replace(marker, marker + "My prose on MoE \\citep{x}.\n") + removed)


# ---- targets -------------------------------------------------------------------------------------


def _source(suffix: str, kind: str | None) -> Callable[[bytes, Path], None]:
    def run(data: bytes, folder: Path) -> None:
        path = folder / f"input{suffix}"
        path.write_bytes(data)
        read_source(path, kind=kind)

    return run


def _taxonomy(data: bytes, folder: Path) -> None:
    path = folder / "taxonomy.toml"
    path.write_bytes(data)
    load_taxonomy(path)


def _tex(data: bytes, folder: Path) -> None:
    citations(data.decode("utf-8", errors="replace"))


def _chapter(data: bytes, folder: Path) -> None:
    """The author's chapter, mangled: merging it into a fresh one never loses prose, and merging the
    result again changes nothing (no prose copied on every rebuild)."""
    old = data.decode("utf-8", errors="replace")
    edited_outside_regions(old)
    fresh = stamp(chapter_seeds()[0])
    merged = carry_over(fresh, old)
    # A line that would end the parking region is commented out once more when parked (parked_notes.py), and
    # parked notes go back to their region when it is generated: each piece is kept, here or there.
    unescaped = partial(re.compile(r"(?m)^(% )+(?=% surveytool: end notes orphaned)").sub, "")
    for region_id, prose in regions(old).items():
        pieces = re.split(r"(?m)^% \(from notes \S+\)[ \t]*\n", prose) if region_id == "orphaned" else [prose]
        for piece in pieces:
            if piece.strip():
                assert unescaped(piece) in unescaped(merged.text), f"prose of region {region_id!r} was lost"
    assert carry_over(fresh, stamp(merged.text)).text == merged.text, "a second rebuild changed the chapter"


@dataclass(frozen=True)
class Target:
    name: str
    seeds: Callable[[], tuple[str, ...]]
    run: Callable[[bytes, Path], None]


TARGETS = (
    Target("bibtex", bib_seeds, _source(".bib", "bib")),
    Target("paper-list", list_seeds, _source(".txt", None)),  # detection decides: a list, or an id list
    Target("csl-json", csl_seeds, _source(".json", "csl-json")),
    Target("id-list", lambda: (ID_LIST,), _source(".ids", "ids")),
    Target("taxonomy", taxonomy_seeds, _taxonomy),
    Target("check-tex", tex_seeds, _tex),
    Target("chapter-regions", chapter_seeds, _chapter),
)


# ---- the loop ------------------------------------------------------------------------------------


class _Hang(Exception):
    pass


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def interrupt(signum, frame):
        raise _Hang()

    previous = signal.signal(signal.SIGVTALRM, interrupt)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


@dataclass(frozen=True)
class Failure:
    target: str
    index: int
    what: str  # "crash: <exception>" or "hang: <seconds>"
    data: bytes


def fuzz(
    target: Target, seed: int, inputs: int, budget: float | None = None, at_least: int = 0
) -> tuple[int, list[Failure]]:
    """(inputs tried, failures) for ``target``: input ``i`` depends only on ``seed`` and ``i``. With a
    ``budget`` (seconds), stops once it is spent and ``at_least`` inputs were tried."""
    seeds = list(target.seeds())
    donors = [text for other in TARGETS for text in other.seeds()]
    failures: list[Failure] = []
    started = time.perf_counter()
    tried = 0
    with tempfile.TemporaryDirectory() as scratch:
        for index in range(inputs):
            if budget is not None and tried >= at_least and time.perf_counter() - started > budget:
                break
            rng = random.Random(f"{seed}:{target.name}:{index}")
            data = _encode(_mutate(rng.choice(seeds), rng, donors), rng)
            tried += 1
            limit = PER_INPUT_SECONDS + PER_INPUT_BYTE_SECONDS * len(data)
            began = time.process_time()
            try:
                with _time_limit(limit):
                    target.run(data, Path(scratch))
            except SurveyToolError:
                pass  # refused with a message: what a user sees as one line and exit 2
            except _Hang:
                failures.append(Failure(target.name, index, f"hang: over {limit:.1f} s of CPU", data))
            except Exception:  # anything else is a traceback a user would see
                failures.append(Failure(target.name, index, "crash: " + traceback.format_exc(limit=-3), data))
            else:
                if time.process_time() - began > limit:
                    failures.append(Failure(target.name, index, "hang: took too long", data))
    return tried, failures


@pytest.mark.parametrize("target", TARGETS, ids=lambda target: target.name)
def test_mutated_inputs_give_no_traceback_and_no_hang(target):
    tried, failures = fuzz(target, SEED, MAX_INPUTS, BUDGET_SECONDS, MIN_INPUTS)
    assert tried >= MIN_INPUTS
    assert not failures, "\n\n".join(f"input {f.index} ({len(f.data)} bytes): {f.what}" for f in failures[:3])


# ---- what the fuzzer found, kept as regression tests -----------------------------------------------


def test_json_nested_past_the_recursion_limit_is_refused_in_one_line(tmp_path):
    from helpers import run_cli

    source = tmp_path / "deep.json"
    source.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = run_cli("parse", str(source))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"{source}: error: nests JSON arrays or objects too deeply to be CSL-JSON (export CSL-JSON from Zotero or pandoc)"
    ]


def test_toml_nested_past_the_recursion_limit_is_refused_in_one_line(tmp_path):
    from helpers import run_cli

    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(
        '[[sections]]\nid = "a"\ntitle = "A"\nkeywords = ' + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8"
    )
    result = run_cli("taxonomy", "--taxonomy", str(taxonomy))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"{taxonomy}: error: not valid TOML: arrays or tables nested too deeply "
        "(a taxonomy needs no nesting deeper than [sections.keywords])"
    ]


CSL_KEYS = [
    "id",
    "type",
    "title",
    "DOI",
    "URL",
    "author",
    "issued",
    "container-title",
    "page",
    "abstract",
    "literal",
    "family",
    "given",
    "date-parts",
    "raw",
    "items",
    "volume",
    "issue",
    "publisher",
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(CSL_KEYS), inner, max_size=4),
    max_leaves=10,
)
CSL_ITEMS = st.dictionaries(st.sampled_from(CSL_KEYS), JSON_VALUES, max_size=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        JSON_VALUES,
        st.lists(CSL_ITEMS | JSON_VALUES, max_size=4),
        st.fixed_dictionaries({"items": st.lists(CSL_ITEMS | JSON_VALUES, max_size=4) | JSON_VALUES}),
    )
)
def test_csl_json_of_any_shape_gives_papers_of_text_or_findings(data):
    papers, findings = csl_to_papers(data, "items.json", "")
    for paper in papers:
        assert isinstance(paper.key, str) and all(isinstance(v, str) and v for v in paper.fields.values())
    assert all(f.check == "csl-item" for f in findings)


def main() -> int:
    parser = argparse.ArgumentParser(description="Fuzz surveytool's readers with a seeded mutator.")
    parser.add_argument("--inputs", type=int, default=4000, help="inputs per target")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--targets", nargs="*", choices=[t.name for t in TARGETS])
    parser.add_argument("--save", type=Path, help="write each failing input to this folder")
    args = parser.parse_args()
    total = 0
    for target in TARGETS:
        if args.targets and target.name not in args.targets:
            continue
        started = time.perf_counter()
        tried, failures = fuzz(target, args.seed, args.inputs)
        total += len(failures)
        print(
            f"{target.name}: {tried} inputs, {len(failures)} failures, {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        for failure in failures:
            print(f"  input {failure.index} ({len(failure.data)} bytes): {failure.what.strip().splitlines()[-1]}")
            if args.save:
                args.save.mkdir(parents=True, exist_ok=True)
                (args.save / f"{failure.target}-{failure.index}.bin").write_bytes(failure.data)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())

"""Faults and attacks on a build's folder: corrupt or planted caches, broken lock files, hostile
templates, full and read-only disks, killed builds. Each gives the right outputs or one line and exit 2."""

from __future__ import annotations

import marshal
import os
import pickle
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import ROOT, run_cli

from surveytool.build import DraftOptions, build
from surveytool.errors import OutputError, TaxonomyError, TemplateError
from surveytool.options import CACHE_FOLDER, LOCK_FILE
from surveytool.output.staletemp import temporary_prefix
from surveytool.pipeline import Options

ENTRY = """@article{{{key},\r
  title = {{{title}}},\r
  author = {{M{umlaut}ller, J{umlaut}rgen and Smith, Ann}},\r
  journal = {{Journal of Things}},\r
  year = {year},\r
  abstract = {{We study {topic}, variant {index}.}},\r
}}\r
\r
"""
TOPICS = [
    "pipeline parallelism across devices",
    "a gating network routing tokens to experts",
    "partitioned optimizer states",
    "scaling laws in compute and data",
]
OUTPUTS = ("references.bib", "entries.json", "related_work.tex", "main.tex", LOCK_FILE)
CACHE_FILES = ("bibtex.marshal", "tags.marshal", "fragments.marshal", "snapshot.marshal")


def library(count: int = 12) -> str:
    entries = [
        ENTRY.format(
            key=f"paper{i}",
            title=f"Giant models, part {i}" if i == 3 else f"Training models, part {i}",
            umlaut="\u00fc",
            year=2016 + i % 8,
            topic=TOPICS[i % len(TOPICS)],
            index=i,
        )
        for i in range(count)
    ]
    return "% exported by a reference manager\r\n" + "".join(entries)


@pytest.fixture(autouse=True)
def own_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test is a user of its own: a cache key of its own, outside its out folders."""
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def outputs(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in OUTPUTS}


def build_in(source: Path, out: Path, reuse: bool = True):
    return build(Options(sources=(source,), build_cache=out / CACHE_FOLDER if reuse else None), out)


def cache_findings(result) -> list[str]:
    return [f.message for f in result.summary.findings if f.check == "build-cache"]


# --- ways to spoil a cache file -------------------------------------------------------------


def truncate(path: Path, outside: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def flip_a_byte(path: Path, outside: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) * 2 // 3] ^= 0x40
    path.write_bytes(bytes(data))


def replace_a_word(path: Path, outside: Path) -> None:
    """A value changed, the marshal layout kept: a string of the same length."""
    data = path.read_bytes()
    for word in (b"Giant", b"model", b"paper"):
        at = data.rfind(word)
        if at >= 0:
            path.write_bytes(data[:at] + b"Tiny!" + data[at + 5 :])
            return
    raise AssertionError(f"no word to replace in {path.name}")


def link_to_dev_zero(path: Path, outside: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def link_out_of_the_folder(path: Path, outside: Path) -> None:
    """A link to a copy kept outside the out folder (a valid file of this very user)."""
    target = outside / path.name
    shutil.move(path, target)
    path.symlink_to(target)


def planted_pickle(path: Path, outside: Path) -> None:
    path.write_bytes(pickle.dumps(RunsACommand(outside / "pickle-ran")))


def planted_code(path: Path, outside: Path) -> None:
    marker = outside / "code-ran"
    path.write_bytes(marshal.dumps((compile(f"open({str(marker)!r}, 'w')", "x", "exec"), {})))


class RunsACommand:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def another_files_seal(path: Path, outside: Path) -> None:
    """A sound file of this user's, moved over another name."""
    other = next(p for p in path.parent.glob("*.marshal") if p != path)
    shutil.copy(other, path)


SPOILERS = [
    truncate,
    flip_a_byte,
    replace_a_word,
    link_to_dev_zero,
    link_out_of_the_folder,
    planted_pickle,
    planted_code,
    another_files_seal,
]


@pytest.mark.parametrize("spoil", SPOILERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_spoiled_cache_file_is_discarded_with_a_note_and_the_outputs_are_those_of_a_fresh_build(
    tmp_path: Path, name: str, spoil: Callable[[Path, Path], None]
):
    source, out, fresh, outside = tmp_path / "library.bib", tmp_path / "out", tmp_path / "fresh", tmp_path / "outside"
    outside.mkdir()
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    spoil(out / CACHE_FOLDER / name, outside)
    kept_outside = {p.name: p.read_bytes() for p in outside.iterdir()}
    text = source.read_text(encoding="utf-8")
    if name in ("bibtex.marshal", "tags.marshal"):  # a macro: the build runs in full and asks these memos
        text = "@string{jt = {Journal of Things}}\r\n" + text
    else:  # one title: the build patches the last one, and asks these
        text = text.replace("part 5}", "part five}")
    source.write_text(text, encoding="utf-8", newline="")
    fresh.mkdir()
    shutil.copy(out / LOCK_FILE, fresh / LOCK_FILE)

    result = build_in(source, out)

    build_in(source, fresh, reuse=False)
    assert outputs(out) == outputs(fresh)
    assert b"Tiny!" not in b"".join(outputs(out).values())
    noted = cache_findings(result)
    assert len(noted) == 1 and f"{CACHE_FOLDER}/{name}: " in noted[0], noted
    assert not (outside / "pickle-ran").exists() and not (outside / "code-ran").exists()
    assert {p.name: p.read_bytes() for p in outside.iterdir()} == kept_outside  # nothing written through a link
    assert stat.S_ISREG((out / CACHE_FOLDER / name).lstat().st_mode)  # written anew, as a file of its own
    assert cache_findings(build_in(source, out)) == []  # and trusted again


def test_random_corruptions_of_the_cache_never_change_what_a_build_writes(tmp_path: Path):
    # Seeded, so that a failure can be replayed: each round spoils one file and rebuilds another variant.
    rng = random.Random(19)
    source, out = tmp_path / "library.bib", tmp_path / "out"
    text = library(20)
    variants = [text, text.replace("part 5}", "part five}"), "@string{jt = {Journal of Things}}\r\n" + text]
    expected = []
    for index, variant in enumerate(variants):
        source.write_text(variant, encoding="utf-8", newline="")
        build_in(source, tmp_path / f"fresh{index}", reuse=False)
        expected.append(outputs(tmp_path / f"fresh{index}"))
    source.write_text(variants[0], encoding="utf-8", newline="")
    build_in(source, out)
    current = 0
    for _ in range(30):
        path = rng.choice(sorted((out / CACHE_FOLDER).glob("*.marshal")))
        data = bytearray(path.read_bytes())
        at = rng.randrange(len(data))
        match rng.randrange(4):
            case 0:
                data[at] ^= 1 << rng.randrange(8)
            case 1:
                del data[at:]
            case 2:
                data[at:at] = rng.randbytes(rng.randrange(1, 64))
            case _:
                data[at : at + 16] = rng.randbytes(16)
        path.write_bytes(bytes(data))
        current = rng.choice([i for i in range(len(variants)) if i != current])
        source.write_text(variants[current], encoding="utf-8", newline="")
        result = build_in(source, out)
        assert {k: v for k, v in outputs(out).items() if k != LOCK_FILE} == {
            k: v for k, v in expected[current].items() if k != LOCK_FILE
        }
        # A file spoiled in a round that did not read it is reported when one does.
        assert all(m.startswith(f"{out / CACHE_FOLDER}/") for m in cache_findings(result))


def test_a_cache_another_user_wrote_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # An out folder from a cloned repository or a shared drive: its caches are sound, but not this user's.
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
    result = build_in(source, out)
    assert sorted(m.split(": ")[0].rsplit("/", 1)[1] for m in cache_findings(result)) == [*sorted(CACHE_FILES)]
    assert result.summary.reused["bibtex"] == (0, 13)


def test_a_planted_jinja_bytecode_file_runs_nothing_and_is_removed(tmp_path: Path):
    # jinja2's bytecode cache reads a pickle right after its magic: the file name was predictable.
    from jinja2.bccache import bc_magic

    source, out, marker = tmp_path / "library.bib", tmp_path / "out", tmp_path / "bytecode-ran"
    source.write_bytes(library().encode("utf-8"))
    run_cli("build", str(source), "--out", str(out), check=True)
    planted = out / CACHE_FOLDER / "template-3e0578c6daf71e2c6bafc3b78b5b50d54d453b07-1b9e6fa664ef60d4.cache"
    planted.write_bytes(bc_magic + pickle.dumps(RunsACommand(marker)))
    source.write_text(source.read_text(encoding="utf-8").replace("part 5}", "part five}"), encoding="utf-8", newline="")
    run_cli("build", str(source), "--out", str(out), check=True)
    run_cli("build", str(source), "--out", str(out), "--no-reuse", check=True)
    assert not marker.exists()
    assert not planted.exists()


def test_the_cli_says_in_one_info_line_which_cache_file_it_did_not_use(tmp_path: Path):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    run_cli("build", str(source), "--out", str(out), check=True)
    flip_a_byte(out / CACHE_FOLDER / "snapshot.marshal", tmp_path)
    result = run_cli("build", str(source), "--out", str(out))
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        f"info [build-cache] {out / CACHE_FOLDER / 'snapshot.marshal'}: fails its checksum (truncated or changed since it "
        "was written); not used, the build does its work anew (nothing to do: the cache only makes rebuilds faster)"
    ]


def test_a_cache_folder_that_is_a_link_is_neither_read_nor_written(tmp_path: Path):
    source, out, elsewhere = tmp_path / "library.bib", tmp_path / "out", tmp_path / "elsewhere"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, tmp_path / "first")
    shutil.move(tmp_path / "first" / CACHE_FOLDER, elsewhere)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    out.mkdir()
    (out / CACHE_FOLDER).symlink_to(elsewhere)
    result = build_in(source, out)
    assert any("is a symbolic link" in m for m in cache_findings(result))
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before
    assert outputs(out) == outputs(tmp_path / "first")


def test_a_dangling_gitignore_link_in_the_cache_creates_nothing_outside_the_out_folder(tmp_path: Path):
    source, out, target = tmp_path / "library.bib", tmp_path / "out", tmp_path / "created-outside"
    source.write_bytes(library().encode("utf-8"))
    (out / CACHE_FOLDER).mkdir(parents=True)
    (out / CACHE_FOLDER / ".gitignore").symlink_to(target)
    build_in(source, out)
    assert not target.exists() and not target.is_symlink()
    assert (out / CACHE_FOLDER / ".gitignore").read_text(encoding="utf-8").endswith("*\n")


def test_a_hand_edit_that_keeps_size_and_time_does_not_survive_a_patched_rebuild(tmp_path: Path):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    bib = out / "references.bib"
    written, times = bib.read_bytes(), bib.stat()
    bib.write_bytes(written.replace(b"Giant", b"Tiny!"))
    os.utime(bib, ns=(times.st_atime_ns, times.st_mtime_ns))
    source.write_text(source.read_text(encoding="utf-8").replace("part 5}", "part five}"), encoding="utf-8", newline="")
    build_in(source, out)
    assert b"Giant models" in bib.read_bytes() and b"Tiny!" not in bib.read_bytes()


# --- lock files -------------------------------------------------------------------------------

BIG_NUMBER = "9" * 5000


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b'{\n  "version": 1,\n  "keys": {\n    "title:caf\xe9": "cafe2020"\n  }\n}\n',
            ":4: error: key lock file is not UTF-8",
        ),
        (
            b'{"version": ' + BIG_NUMBER.encode() + b', "keys": {}}',
            ": error: key lock file holds a value too large or too deep",
        ),
        (
            b'{\n  "version": 1,\n  "keys": {\n    "title:x y z": null\n  }\n}\n',
            ':4: error: key lock file pins "title:x y z" to null, which is not a citation key',
        ),
        (
            b'{"version": 1, "keys": {"doi:10.1/x": 2020}}',
            ':1: error: key lock file pins "doi:10.1/x" to 2020, which is not a citation key',
        ),
        (b"[1, 2]", ': error: key lock file has no "keys" object'),
        (b'{"version": 1, "keys": ', ":1: error: key lock file is not valid JSON"),
        (b"[" * 100_000, ": error: key lock file holds a value too large or too deep"),
    ],
    ids=["latin-1", "5000-digit-number", "null-pin", "number-pin", "not-an-object", "cut-short", "deep"],
)
def test_a_broken_lock_file_is_one_line_with_its_path_and_exit_2(tmp_path: Path, content: bytes, message: str):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    out.mkdir()
    (out / LOCK_FILE).write_bytes(content)
    result = run_cli("build", str(source), "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [ANY_LINE_WITH(f"{out / LOCK_FILE}{message}")]
    assert "restore it from version control, or delete it" in result.stderr
    assert not (out / "references.bib").exists()


class ANY_LINE_WITH(str):  # noqa: N801 - reads as a pattern in an assertion
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other.startswith(str(self))

    __hash__ = str.__hash__


@pytest.mark.parametrize("kind", ["folder", "dev-zero", "fifo"])
def test_a_lock_file_that_is_not_a_file_is_refused_at_once(tmp_path: Path, kind: str):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    out.mkdir()
    lock = out / LOCK_FILE
    if kind == "folder":
        lock.mkdir()
    elif kind == "dev-zero":
        lock.symlink_to("/dev/zero")
    else:
        os.mkfifo(lock)
    result = run_cli("build", str(source), "--out", str(out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [ANY_LINE_WITH(f"{lock}: error: key lock file ")]


def test_a_patched_rebuild_with_a_lock_file_turned_to_dev_zero_is_one_line(tmp_path: Path):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    run_cli("build", str(source), "--out", str(out), check=True)
    (out / LOCK_FILE).unlink()
    (out / LOCK_FILE).symlink_to("/dev/zero")
    result = run_cli("build", str(source), "--out", str(out))
    assert (result.returncode, result.stderr.splitlines()) == (
        2,
        [
            f"{out / LOCK_FILE}: error: key lock file is not a regular file (restore it from version control, or delete it "
            "to let keys be given anew)"
        ],
    )


# --- unreadable files: as root, run without the capabilities that bypass file permissions ----------

_DROP_FROM_BOUNDING_SET, _CAPABILITIES_THAT_IGNORE_PERMISSIONS = (
    24,
    (1, 2),
)  # PR_CAPBSET_DROP; DAC_OVERRIDE, DAC_READ_SEARCH


def run_cli_unprivileged(*args: str) -> subprocess.CompletedProcess:
    """``run_cli`` where file permissions bind (root reads and writes anything: it runs as a root that cannot)."""

    def drop() -> None:
        if os.geteuid() == 0:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            for capability in _CAPABILITIES_THAT_IGNORE_PERMISSIONS:
                if libc.prctl(_DROP_FROM_BOUNDING_SET, capability, 0, 0, 0) != 0:
                    raise OSError(ctypes.get_errno(), "prctl")

    return subprocess.run([sys.executable, "-m", "surveytool", *args], capture_output=True, text=True, preexec_fn=drop)


def _readable_source(folder: Path) -> Path:
    source = folder / "library.bib"
    source.write_bytes(library().encode("utf-8"))
    return source


@pytest.mark.parametrize("what", ["lock file", "template", "templates folder", "cache folder"])
def test_an_unreadable_file_or_folder_is_one_line_or_a_note(tmp_path: Path, what: str):
    source, out, templates = _readable_source(tmp_path), tmp_path / "out", tmp_path / "templates"
    out.mkdir()
    templates.mkdir()
    (templates / "main.tex.j2").write_text("\\documentclass{article}\n", encoding="utf-8")
    unreadable = {
        "lock file": out / LOCK_FILE,
        "template": templates / "main.tex.j2",
        "templates folder": templates,
        "cache folder": out / CACHE_FOLDER,
    }[what]
    if what == "lock file":
        unreadable.write_text('{"version": 1, "keys": {}}\n', encoding="utf-8")
    elif what == "cache folder":
        unreadable.mkdir()
    unreadable.chmod(0)
    result = run_cli_unprivileged("build", str(source), "--out", str(out), "--templates", str(templates))
    lines = result.stderr.splitlines()
    if what == "cache folder":  # only makes the build slower
        assert result.returncode == 0, result.stderr
        assert lines == [ANY_LINE_WITH(f"info [build-cache] {unreadable}: cannot be ")]
        return
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith(f"{unreadable}: error: ") and "(Permission denied)" in lines[0], (
        lines
    )


@pytest.mark.parametrize(
    "given",
    [(), ("--catalog",), ("--config",), ("--overrides",), ("--tex",), ("complete",), ("taxonomy", "--sources")],
    ids=["source", "catalog", "config", "overrides", "tex", "complete", "taxonomy-sources"],
)
def test_an_unreadable_file_given_to_an_option_is_the_readers_one_line(tmp_path: Path, given: tuple[str, ...]):
    # It was a usage box: "Error: Invalid value for '--config': Path '.../locked' is not readable."
    source, unreadable = _readable_source(tmp_path), tmp_path / "locked"
    unreadable.write_text("[tags]\n", encoding="utf-8")
    unreadable.chmod(0)
    command = list(given) if given[:1] in (("complete",), ("taxonomy",)) else ["check", str(source), *given]
    result = run_cli_unprivileged(*command, str(unreadable))
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and result.stdout == ""
    assert len(lines) == 1 and lines[0].startswith(f"{unreadable}: error: ") and "(Permission denied)" in lines[0], (
        lines
    )


def test_a_read_only_out_folder_is_one_line_and_exit_2(tmp_path: Path):
    source, out = _readable_source(tmp_path), tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    result = run_cli_unprivileged("build", str(source), "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [ANY_LINE_WITH(f"{out}/")], result.stderr
    assert "Permission denied" in result.stderr
    assert [p.name for p in out.iterdir()] == []


# --- a full disk ---------------------------------------------------------------------------------


@contextmanager
def small_disk(folder: Path, kib: int, file_kib: int) -> Iterator[Callable[..., subprocess.CompletedProcess]]:
    """A folder with room for ``kib`` KiB: a tmpfs where this process may mount one, else a limit of ``file_kib``
    KiB on each file written (RLIMIT_FSIZE; SURVEYTOOL_TEST_FILE_LIMIT=1 forces it). Yields how to run the CLI there.
    """
    folder.mkdir()
    mounted = False
    if os.geteuid() == 0 and not os.environ.get("SURVEYTOOL_TEST_FILE_LIMIT"):
        mount = ["mount", "-t", "tmpfs", "-o", f"size={kib}k", "tmpfs", str(folder)]
        mounted = subprocess.run(mount, capture_output=True).returncode == 0
    try:
        if mounted:
            yield lambda *args: run_cli(*args)
        else:
            import resource

            def limited() -> None:  # writes past the limit fail with EFBIG instead of killing the process
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_kib * 1024, file_kib * 1024))

            command = [sys.executable, "-m", "surveytool"]
            yield lambda *args: subprocess.run([*command, *args], capture_output=True, text=True, preexec_fn=limited)
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=True)


# Where the disk fills: before the chapter, among the .bib and entries.json, at the lock file
# (for a limit on each file instead: the chapter, the .bib, entries.json, about 60, 50 and 120 KiB).
@pytest.mark.parametrize(("kib", "file_kib"), [(8, 8), (120, 40), (260, 100)])
def test_a_full_disk_with_a_fresh_out_folder_is_one_line_and_exit_2_and_leaves_no_temporary_files(
    tmp_path: Path, kib: int, file_kib: int
):
    source = tmp_path / "library.bib"
    source.write_bytes(library(200).encode("utf-8"))
    with small_disk(tmp_path / "disk", kib, file_kib) as run:
        out = tmp_path / "disk" / "out"
        result = run("build", str(source), "--out", str(out))
        assert result.returncode == 2, result.stderr
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{out}/") and "cannot be written" in lines[0], lines
        assert lines[0].endswith("(free some space on its disk, or write elsewhere with -o)")
        assert [p for p in out.rglob("*.tmp")] == []


# --- killed builds ---------------------------------------------------------------------------------


def _a_finished_pid() -> int:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    return finished.pid


def test_a_later_build_removes_what_killed_builds_left_but_not_what_running_ones_write(tmp_path: Path):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    cache = out / CACHE_FOLDER
    dead = temporary_prefix("x").replace(f"-{os.getpid()}.", f"-{_a_finished_pid()}.")[3:]  # "<host>-<pid>."
    left = [
        out / f".references.bib.{dead}abcd1234.tmp",
        out / f".entries.json.{dead}k_9x2m1q.tmp",
        out / ".related_work.tex.abcd_123.tmp",
        cache / f".snapshot.marshal.{dead}zzzz1111.tmp",
    ]
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        alive = temporary_prefix("x").replace(f"-{os.getpid()}.", f"-{running.pid}.")[3:]
        kept = [out / f".references.bib.{alive}live1234.tmp", out / f".notes.txt.{dead}mine1234.tmp", out / "draft.tmp"]
        for path in [*left, *kept]:
            path.write_bytes(b"half a file")
        build_in(source, out)
        assert [p for p in left if p.exists()] == []
        assert [p for p in kept if not p.exists()] == []
    finally:
        running.kill()
        running.wait()


def test_a_build_killed_at_any_moment_leaves_nothing_a_rebuild_keeps(tmp_path: Path):
    source, out, fresh = tmp_path / "library.bib", tmp_path / "out", tmp_path / "fresh"
    source.write_bytes(library(400).encode("utf-8"))
    command = [sys.executable, "-m", "surveytool", "build", str(source), "--out", str(out), "-q"]
    for delay in (0.3, 0.6, 0.9, 1.2, 1.5):
        shutil.rmtree(out, ignore_errors=True)
        started = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        started.send_signal(signal.SIGKILL)
        started.wait()
        run_cli("build", str(source), "--out", str(out), "-q", check=True)
        assert sorted(str(p.relative_to(out)) for p in out.rglob("*.tmp")) == []
    run_cli("build", str(source), "--out", str(fresh), "-q", "--no-reuse", check=True)
    assert outputs(out) == outputs(fresh)


# --- templates ---------------------------------------------------------------------------------------


def _templates(tmp_path: Path, chapter: str) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "related_work.tex.j2").write_text(chapter, encoding="utf-8")
    return folder


def test_a_template_cannot_run_a_program(tmp_path: Path):
    marker = tmp_path / "template-ran"
    folder = _templates(tmp_path, f"\\VAR{{cycler.__init__.__globals__.os.popen('touch {marker}').read()}}\n")
    result = run_cli("build", "--out", str(tmp_path / "out"), "--templates", str(folder))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{folder / 'related_work.tex.j2'}:1: error: template is not allowed to do this: access to attribute '__init__' "
        "of 'type' object is unsafe. (templates may print values and use filters, not reach Python's internals)"
    ]
    assert not marker.exists()


@pytest.mark.parametrize(
    ("chapter", "message"),
    [
        ("%% for group in groups\n\\VAR{1 // 0}\n%% endfor\n", ":2: error: template failed: ZeroDivisionError: "),
        ("\\VAR{groups|cite(1, 2, 3)}\n", ":1: error: template failed: TypeError: "),
        ('%% include "missing.tex.j2"\n', ":1: error: template not found: missing.tex.j2"),
        (
            "%% macro again()\n\\VAR{again()}\n%% endmacro\n\\VAR{again()}\n",
            ":2: error: template failed: RecursionError: ",
        ),
        ("\\VAR{range(10**9)|list}\n", ":1: error: template asks for too much: a number argument over 1,000,000 "),
        ("\\VAR{range(999999)|list|length}\n", ":1: error: template failed: OverflowError: "),
        ("\\VAR{'{0.__class__}'.format(1)}\n", ":1: error: template is not allowed to do this: "),
    ],
    ids=[
        "zero-division",
        "wrong-filter-arguments",
        "missing-include",
        "endless-recursion",
        "huge-range",
        "range-over-the-sandbox-cap",
        "format-escape",
    ],
)
def test_a_template_failing_at_run_time_is_one_line_with_its_file_and_exit_2(
    tmp_path: Path, chapter: str, message: str
):
    folder = _templates(tmp_path, chapter)
    with pytest.raises(TemplateError) as raised:
        build(Options(), tmp_path / "out", DraftOptions(templates=folder))
    assert str(raised.value).startswith(f"{folder / 'related_work.tex.j2'}{message}")
    assert "\n" not in str(raised.value)


DOUBLING = "%% set ns = namespace(s='ab')\n%% for i in range(40)\n%% set ns.s = ns.s ~ ns.s\n%% endfor\n\\VAR{ns.s}\n"


@pytest.mark.parametrize(
    ("chapter", "line", "words"),
    [
        ("\\VAR{'x' * 10**9}\n", 1, "a repeated value of more than 4,000,000 items"),
        ("\\VAR{[0] * 10**8}\n", 1, "a repeated value of more than 4,000,000 items"),
        ("\\VAR{10 ** 1000000}\n", 1, "a number of more than 100,000 bits"),
        (DOUBLING, 3, "a string of more than 4,000,000 characters"),
        ("\\VAR{'x'.center(10**9)}\n", 1, "a number argument over 1,000,000"),
        ("\\VAR{'x'|center(10**9)}\n", 1, "a number argument over 1,000,000"),
        ("\\VAR{'%0999999999d'|format(1)}\n", 1, "a format width or precision of seven digits or more"),
        ("\\VAR{'{:>999999999}'.format(1)}\n", 1, "a format width or precision of seven digits or more"),
        ("\\VAR{'%*d' % (999999999, 1)}\n", 1, "a number argument over 1,000,000"),
        ("%% set s = 'x' * 4000000\n\\VAR{([s] * 1000)|join|length}\n", 2, "more than 2 GB of memory"),
    ],
    ids=[
        "string-times",
        "list-times",
        "power",
        "concat-doubling",
        "str-method",
        "filter",
        "format-filter",
        "str-format",
        "percent-star",
        "join-of-large-values",
    ],
)
def test_a_template_asking_for_a_huge_value_fails_fast_in_one_line_with_exit_2(
    tmp_path: Path, chapter: str, line: int, words: str
):
    folder = _templates(tmp_path, chapter)
    started = time.monotonic()
    result = run_cli("build", "--out", str(tmp_path / "out"), "--templates", str(folder))
    assert time.monotonic() - started < 20
    assert result.returncode == 2
    (message,) = result.stderr.splitlines()
    assert message.startswith(f"{folder / 'related_work.tex.j2'}:{line}: error: template asks for too much: {words}")
    assert not (tmp_path / "out" / "related_work.tex").exists()


@pytest.mark.parametrize(
    "loop",
    [
        "%% for i in range(100000)\n%% for j in range(100000)\n%% endfor\n%% endfor\n",
        "%% for i in range(100000)\n%% for c in 'x' * 100000\n\\VAR{c if i < 0}\n%% endfor\n%% endfor\n",
    ],
    ids=["nested-ranges", "loop-over-a-string"],
)
def test_a_template_that_loops_for_hours_is_stopped_at_the_render_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loop: str
):
    import surveytool.output.render as render

    monkeypatch.setattr(render, "RENDER_SECONDS", 1.0)  # the budget, shortened; the loop is the template's own
    folder = _templates(tmp_path, loop)
    started = time.monotonic()
    with pytest.raises(TemplateError) as raised:
        build(Options(), tmp_path / "out", DraftOptions(templates=folder))
    assert time.monotonic() - started < 10
    message = str(raised.value)
    assert message.startswith(f"{folder / 'related_work.tex.j2'}:") and "template is too slow" in message
    assert "\n" not in message


@pytest.mark.parametrize("kind", ["fifo", "link-to-dev-zero"])
def test_a_template_that_is_not_a_regular_file_is_refused_not_passed_over(tmp_path: Path, kind: str):
    folder = _templates(tmp_path, "")
    template = folder / "related_work.tex.j2"
    template.unlink()
    if kind == "fifo":
        os.mkfifo(template)
    else:
        template.symlink_to("/dev/zero")
    result = subprocess.run(
        [sys.executable, "-m", "surveytool", "build", "--out", str(tmp_path / "out"), "--templates", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{template}: error: template is not a regular file (save the template as a file)"
    ]


def test_the_render_budget_leaves_no_timer_behind(tmp_path: Path):
    import signal

    folder = _templates(tmp_path, "\\VAR{title}\n")
    before = signal.getsignal(signal.SIGALRM)
    build(Options(), tmp_path / "out", DraftOptions(templates=folder))
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) is before


def test_a_template_that_is_not_utf8_is_one_line(tmp_path: Path):
    folder = _templates(tmp_path, "")
    (folder / "related_work.tex.j2").write_bytes(b"\\section{Caf\xe9}\n")
    result = run_cli("build", "--out", str(tmp_path / "out"), "--templates", str(folder))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"{folder / 'related_work.tex.j2'}: error: template is not UTF-8 (byte 12) (save it as UTF-8)"
    ]


def test_a_file_in_the_templates_folder_that_is_no_template_is_left_alone(tmp_path: Path):
    folder = _templates(tmp_path, "\\VAR{title}\n")
    (folder / "references.bib").write_bytes(b"@misc{caf\xe9, title = {Caf\xe9}}\n")
    result = run_cli("build", "--out", str(tmp_path / "out"), "--templates", str(folder))
    assert result.returncode == 0, result.stderr


def test_the_bundled_templates_give_the_same_chapter_in_the_sandbox(tmp_path: Path):
    folder = tmp_path / "copies"
    shutil.copytree(
        ROOT / "surveytool" / "templates" if (ROOT / "surveytool" / "templates").is_dir() else ROOT / "templates",
        folder,
    )
    build(Options(), tmp_path / "plain")
    build(Options(), tmp_path / "sandboxed", DraftOptions(templates=folder))
    assert outputs(tmp_path / "plain") == outputs(tmp_path / "sandboxed")


# --- taxonomy weights --------------------------------------------------------------------------------


@pytest.mark.parametrize("weight", ["nan", "inf", "-inf", "1e308", "9" * 400])
def test_a_keyword_weight_that_is_not_a_finite_number_is_refused(tmp_path: Path, weight: str):
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(
        f'title = "T"\n[[sections]]\nid = "pp"\ntitle = "PP"\nkeywords = {{ "pipeline" = {weight} }}\n',
        encoding="utf-8",
    )
    with pytest.raises(TaxonomyError, match="keywords must map phrases to numeric weights") as raised:
        build(Options(taxonomy=taxonomy), tmp_path / "out")
    assert raised.value.path == str(taxonomy) and raised.value.line == 5
    assert not (tmp_path / "out" / "entries.json").exists()


@pytest.mark.parametrize("name", ["references.bib", "entries.json"])
def test_an_output_turned_into_a_link_to_dev_zero_is_replaced_by_the_next_build(tmp_path: Path, name: str):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    written = outputs(out)
    (out / name).unlink()
    (out / name).symlink_to("/dev/zero")
    source.write_text(source.read_text(encoding="utf-8").replace("part 5}", "part five}"), encoding="utf-8", newline="")
    build_in(source, out)
    assert not (out / name).is_symlink()
    assert b"part five" in (out / name).read_bytes() and written[name] != (out / name).read_bytes()


@pytest.mark.parametrize("name", ["references.bib", "entries.json", "related_work.tex"])
def test_an_output_that_is_a_link_to_a_file_in_the_out_folder_is_written_through_and_stays_a_link(
    tmp_path: Path, name: str
):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    kept = out / "versions" / name
    kept.parent.mkdir()
    shutil.move(out / name, kept)
    (out / name).symlink_to(kept)
    source.write_text(source.read_text(encoding="utf-8").replace("part 5}", "part five}"), encoding="utf-8", newline="")
    build_in(source, out)
    assert (out / name).is_symlink() and (out / name).resolve() == kept
    assert b"part five" in kept.read_bytes()
    assert [p.name for p in kept.parent.iterdir()] == [name]
    dead = temporary_prefix("x").replace(f"-{os.getpid()}.", f"-{_a_finished_pid()}.")[3:]
    killed = kept.parent / f".{name}.{dead}abcd1234.tmp"  # what a build killed while writing through left
    killed.write_bytes(b"half a file")
    build_in(source, out)
    assert not killed.exists() and (out / name).is_symlink()


@pytest.mark.parametrize("name", ["references.bib", "main.tex", "surveytool.lock.json"])
def test_a_build_refuses_an_output_linked_to_a_file_outside_the_out_folder(tmp_path: Path, name: str):
    source, out = tmp_path / "library.bib", tmp_path / "out"
    source.write_bytes(library().encode("utf-8"))
    build_in(source, out)
    victim = tmp_path / "home" / ".bashrc"  # an out folder from someone else, with a planted link
    victim.parent.mkdir()
    victim.write_text("export PATH=/usr/bin\n", encoding="utf-8")
    (out / name).unlink()
    (out / name).symlink_to(victim)
    with pytest.raises(OutputError, match="outside the out folder"):
        build_in(source, out)
    assert victim.read_text(encoding="utf-8") == "export PATH=/usr/bin\n"


# --- inputs that are not files, or far too large ------------------------------------------------

SETTINGS_OPTIONS = ["--taxonomy", "--overrides", "--config"]


def _non_regular(kind: str, folder: Path) -> Path:
    if kind == "dev-zero":
        return Path("/dev/zero")
    if kind == "fifo":
        path = folder / "input.fifo"
        os.mkfifo(path)
        return path
    path = folder / "link-to-zero"
    path.symlink_to("/dev/zero")
    return path


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "link-to-dev-zero"])
@pytest.mark.parametrize("option", [*SETTINGS_OPTIONS, "--catalog", "source"])
def test_an_input_that_is_a_device_or_fifo_is_refused_at_once_in_one_line(tmp_path: Path, option: str, kind: str):
    path = _non_regular(kind, tmp_path)
    args = [str(path)] if option == "source" else [option, str(path)]
    if option == "--config":
        args.append("--online")  # the online settings are what reads it
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "surveytool", "build", "--out", str(tmp_path / "out"), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert time.monotonic() - started < 30
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"{path}: error: ") and "not a regular file" in line


@pytest.mark.parametrize("option", SETTINGS_OPTIONS)
def test_a_settings_file_far_larger_than_any_is_refused_by_its_size_before_it_is_read(tmp_path: Path, option: str):
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as stream:
        stream.truncate(3 << 30)  # sparse: takes no disk space, would take 3 GB of memory to read
    args = [option, str(huge)] + (["--online"] if option == "--config" else [])
    result = run_cli("build", "--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"{huge}: error: ") and "too large" in line and "at most 16 MB" in line


def test_taxonomy_validate_refuses_a_fifo_in_one_line(tmp_path: Path):
    path = _non_regular("fifo", tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "surveytool", "taxonomy", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "not a regular file" in result.stderr


# --- internal errors -------------------------------------------------------------------------


def test_an_internal_error_keeps_its_traceback_and_asks_for_a_bug_report(tmp_path: Path):
    """A bug (here: an exception no user input causes) is not dressed up as the user's mistake."""
    source = tmp_path / "refs.bib"
    source.write_text(library(2), encoding="utf-8")
    bug = (
        "import sys, surveytool.pipeline as p\n"
        "def analyse(*a, **k): raise ZeroDivisionError('a bug')\n"
        "p.analyse = analyse\n"
        "from surveytool.cli.app import main\n"
        "sys.argv = ['surveytool', 'parse', sys.argv[1]]\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", bug, str(source)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "ZeroDivisionError: a bug" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "internal error" in last and "please report this with the command and the traceback" in last


def test_a_user_error_stays_one_line_without_a_bug_report(tmp_path: Path):
    result = run_cli("parse", str(tmp_path / "missing.bib"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "report" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1

"""Benchmark harness: surveytool against bibtexparser's own parse + write, measured in the same run.

    python tests/benchmarks/bench.py                     # medium and large, scales 1 2 4 8
    python tests/benchmarks/bench.py --quick             # medium file, scales 1 2, one repeat (CI-sized)
    python tests/benchmarks/bench.py --files large --scales 1 8 --repeat 5
    python tests/benchmarks/bench.py --files large --scales 1 --rebuilds   # also: rebuild after one edit

Whole commands run as separate processes, alternated with the baseline, and
each ratio is taken pair by pair (the machine's speed drifts; ratios hold).
Stage times come from one in-process run through the pipeline's stage hook.
Scaled copies (keys renamed key__cN in copies 1..N-1) are made on the fly.
The build commands above run with --no-reuse (cold); --rebuilds times a first
build, a rebuild with nothing changed, and rebuilds after editing one title and
after inserting one entry, each in the output folder of the first.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BENCH = ROOT.parent / "shared" / "bench"
FILES = {"medium": "medium-refdb.bib", "large": "large-merged.bib"}
BASELINE = (
    "import bibtexparser, sys\nlibrary = bibtexparser.parse_file(sys.argv[1])\nbibtexparser.write_string(library)\n"
)
_ENTRY_KEY = re.compile(r"(@(?!string|preamble|comment)\w+\s*[{(]\s*)([^,\s]+)(\s*,)", re.IGNORECASE)


# A fixed amount of pure-Python work, run by one process and then by two at once.
_SPIN = "n = 0\nfor i in range(8_000_000):\n    n += i\n"


def parallel_throughput() -> float:
    """How many cores' worth of work two processes do at once: 2.0 on two free cores, 1.0 when they share one.

    A virtual machine can show two CPUs and give one core's time: forking then only adds work,
    and any ratio against a single-process baseline changes with it.
    """

    def wall(processes: int) -> float:
        start = time.perf_counter()
        running = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(processes)]
        for process in running:
            process.wait()
        return time.perf_counter() - start

    return 2 * min(wall(1) for _ in range(2)) / min(wall(2) for _ in range(2))


def scaled_copy(source: Path, copies: int, folder: Path) -> Path:
    if copies == 1:
        return source
    text = source.read_text(encoding="utf-8", errors="replace")
    parts = [text] + [
        _ENTRY_KEY.sub(lambda m, n=n: f"{m.group(1)}{m.group(2)}__c{n}{m.group(3)}", text) for n in range(1, copies)
    ]
    target = folder / f"{source.stem}-x{copies}.bib"
    target.write_text("\n".join(parts), encoding="utf-8")
    return target


def run(command: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system, with the children it waited for) and peak resident MiB of one process."""
    start = time.perf_counter()
    with open(os.devnull, "w") as sink, tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(command, stdout=sink, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        errors.seek(0)
        said = errors.read()
    # Exit 1 means findings at error level (the large file has broken blocks): still a full run.
    if os.waitstatus_to_exitcode(status) not in (0, 1) or "Traceback" in said:
        trace = said[said.find("Traceback") :] if "Traceback" in said else said[-2000:]
        raise RuntimeError(f"{' '.join(command)} failed with {status}:\n{trace}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def peak_memory(command: list[str]) -> float | None:
    """Peak MiB of a command's processes together, sampled every 10 ms; None without Linux's /proc.

    surveytool forks a child for parts of large runs, and a process's own peak
    (ru_maxrss) would leave it out. Each process counts its proportional set
    size (PSS): pages a fork shares with its parent are counted once between them.
    """
    if not Path("/proc/self/smaps_rollup").exists():
        return None
    peak = 0
    with open(os.devnull, "w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink)
        while process.poll() is None:
            peak = max(peak, sum(_pss_kib(pid) for pid in _process_tree(process.pid)))
            time.sleep(0.01)
    return peak / 1024


def _process_tree(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(entry.path, "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    tree = [root]
    for pid in tree:
        tree.extend(child for child, parent in parents.items() if parent == pid)
    return tree


def _pss_kib(pid: int) -> int:
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0  # ended meanwhile
    return next((int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0)


def commands(path: Path, work: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "surveytool"]
    found = {
        "bibtexparser parse+write": [sys.executable, "-c", BASELINE, str(path)],
        "surveytool bib": [*cli, "bib", str(path), "-o", str(work / "out.bib"), "-q"],
        "surveytool tag": [*cli, "tag", str(path), "--json", "-q"],
        "surveytool build": [*cli, "build", str(path), "--out", str(work / "build"), "-q", "--force", "--no-reuse"],
        # Tags every entry of a fresh copy (the copy, about 10 ms, is timed too), writable as a user's own file is
        # (cp keeps a read-only original's mode, and surveytool does not replace a read-only file).
        "surveytool bib --in-place": [
            "sh",
            "-c",
            'cp "$1" "$2" && chmod u+w "$2" && shift 2 && exec "$@"',
            "sh",
            str(path),
            str(work / "mine.bib"),
            *cli,
            "bib",
            "--in-place",
            str(work / "mine.bib"),
            "-q",
        ],
    }
    tidy = os.environ.get("BIBTEX_TIDY")  # path to bibtex-tidy's bin/bibtex-tidy, if installed (npm)
    if tidy:
        found["bibtex-tidy --duplicates --merge"] = [
            "node",
            tidy,
            str(path),
            "--duplicates",
            "--merge",
            "-o",
            str(work / "tidy.bib"),
        ]
    return found


def measure(path: Path, repeat: int, work: Path) -> dict[str, tuple[float, float, float, float]]:
    """name -> (median seconds, median ratio to the baseline, median CPU seconds, peak MiB of all its processes)."""
    todo = commands(path, work)
    baseline = "bibtexparser parse+write"
    seconds: dict[str, list[float]] = {n: [] for n in todo}
    ratios: dict[str, list[float]] = {n: [] for n in todo}
    cpu: dict[str, list[float]] = {n: [] for n in todo}
    memory: dict[str, list[float]] = {n: [] for n in todo}
    run(todo[baseline])  # warm-up: file cache, .pyc
    for _ in range(repeat):
        for name, command in todo.items():
            if name == baseline:
                continue
            base, base_cpu, base_mem = run(todo[baseline])
            took, used, peak = run(command)
            seconds[baseline].append(base)
            cpu[baseline].append(base_cpu)
            cpu[name].append(used)
            memory[baseline].append(base_mem)
            seconds[name].append(took)
            memory[name].append(peak)
            ratios[name].append(took / base)
    ratios[baseline] = [1.0]
    for name, command in todo.items():  # a run of its own: sampling would slow the timed runs
        sampled = peak_memory(command)
        memory[name] = [sampled] if sampled is not None else memory[name]
    return {
        n: (
            statistics.median(seconds[n]),
            statistics.median(ratios[n]),
            statistics.median(cpu[n]),
            statistics.median(memory[n]),
        )
        for n in todo
    }


_TITLE = re.compile(r"\btitle\s*=\s*[{\"]", re.IGNORECASE)


def _middle_title(text: str) -> re.Match | None:
    return min(_TITLE.finditer(text), key=lambda m: abs(m.start() - len(text) // 2), default=None)


def edit_one_title(text: str) -> str:
    """The text with the title nearest the middle of the file changed (same number of lines)."""
    middle = _middle_title(text)
    return text if middle is None else text[: middle.end()] + "Revised " + text[middle.end() :]


def insert_one_entry(text: str) -> str:
    """The text with a new entry before the block of the title nearest the middle (all lines below move)."""
    middle = _middle_title(text)
    start = text.rfind("\n@", 0, middle.start()) + 1 if middle else 0
    entry = "@misc{bench-inserted,\n  title = {An inserted entry about pipeline parallelism},\n  year = 2024,\n}\n\n"
    return text[:start] + entry + text[start:]


def rebuild_times(path: Path, repeat: int, work: Path) -> dict[str, tuple[float, float]]:
    """name -> (median seconds, median ratio to the first build of the same round)."""
    cli = [sys.executable, "-m", "surveytool", "build"]
    original = path.read_text(encoding="utf-8", errors="replace")
    edited = edit_one_title(original)
    inserted = insert_one_entry(edited)
    rounds: dict[str, list[tuple[float, float]]] = {}
    for n in range(repeat):
        source = work / f"rebuild-{n}.bib"
        source.write_text(original, encoding="utf-8")
        build = [*cli, str(source), "--out", str(work / f"rebuild-{n}"), "-q", "--force"]
        first = run(build)[0]
        steps = {"first build (cold cache)": first, "rebuild, nothing changed": run(build)[0]}
        source.write_text(edited, encoding="utf-8")
        steps["rebuild after editing one title"] = run(build)[0]
        source.write_text(inserted, encoding="utf-8")
        steps["rebuild after inserting one entry"] = run(build)[0]
        for name, took in steps.items():
            rounds.setdefault(name, []).append((took, took / first))
    return {
        name: (statistics.median(t for t, _ in values), statistics.median(r for _, r in values))
        for name, values in rounds.items()
    }


def stage_times(path: Path, work: Path) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from surveytool.build import DraftOptions, build
    from surveytool.pipeline import Options

    times: dict[str, float] = {}

    @contextmanager
    def stage(name: str):
        start = time.perf_counter()
        yield
        times[name] = times.get(name, 0.0) + time.perf_counter() - start

    start = time.perf_counter()
    build(Options(sources=(path,)), work / "stages", DraftOptions(), stage)
    times["whole build (in process)"] = time.perf_counter() - start
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", nargs="+", choices=sorted(FILES), default=["medium", "large"])
    parser.add_argument("--scales", nargs="+", type=int, default=[1, 2, 4, 8])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--quick", action="store_true", help="medium file, scales 1 and 2, one repeat")
    parser.add_argument("--rebuilds", action="store_true", help="also time rebuilds after one edit (at 1x)")
    args = parser.parse_args()
    if args.quick:
        args.files, args.scales, args.repeat = ["medium"], [1, 2], 1
    # Byte-compiled as an install leaves it (pip compiles): a checkout may have no .pyc files,
    # and with PYTHONDONTWRITEBYTECODE set every run would compile the package again.
    compileall.compile_dir(ROOT / "surveytool", quiet=1)
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {usable} CPUs usable; two processes at once do {parallel_throughput():.2f}x the work of one")
    try:
        return _run(args)
    finally:  # a shared machine's spare core comes and goes: the figure again, for the same run
        print(f"\nmachine at the end: two processes at once do {parallel_throughput():.2f}x the work of one")


def _run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for name in args.files:
            source = args.bench_dir / FILES[name]
            if not source.exists():
                print(f"{source}: not found (give --bench-dir)", file=sys.stderr)
                return 2
            first_stages: dict[str, float] | None = None
            print(f"\n## {FILES[name]}\n")
            print("| scale | command | median s | ratio to bibtexparser | CPU s | peak MiB |")
            print("| --- | --- | --- | --- | --- | --- |")
            scaling = []
            for copies in args.scales:
                path = scaled_copy(source, copies, work)
                for command, (took, ratio, used, peak) in measure(path, args.repeat, work).items():
                    print(f"| {copies}x | {command} | {took:.2f} | {ratio:.2f} | {used:.2f} | {peak:.0f} |")
                stages = stage_times(path, work)
                scaling.append((copies, stages))
                first_stages = first_stages or stages
            if args.rebuilds:
                print("\n| build | median s | ratio to the first build |\n| --- | --- | --- |")
                for step, (took, ratio) in rebuild_times(source, args.repeat, work).items():
                    print(f"| {step} | {took:.2f} | {ratio:.2f} |")
            print("\n| scale | " + " | ".join(first_stages) + " |")
            print("| --- |" + " --- |" * len(first_stages))
            for copies, stages in scaling:
                print(f"| {copies}x | " + " | ".join(f"{stages.get(s, 0):.2f}" for s in first_stages) + " |")
            if len(scaling) > 1:
                base = scaling[0][1]
                print("\nstage time per copy, relative to 1x (1.00 = linear):")
                for copies, stages in scaling[1:]:
                    print(
                        f"  {copies}x: "
                        + ", ".join(
                            f"{s} {stages[s] / max(base[s], 1e-9) / copies:.2f}"
                            for s in first_stages
                            if base.get(s, 0) > 0.01
                        )
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

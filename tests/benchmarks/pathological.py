"""Inputs that once took super-linear time (or a recursion traceback), each timed on its own.

    python tests/benchmarks/pathological.py              # every case at its reported size
    python tests/benchmarks/pathological.py --scale 4    # four times larger: linear cases take ~4x
    python tests/benchmarks/pathological.py --cases cite-spaces csl-items

Each case builds its input (a file in a temporary folder for the readers that take a path),
then times one call of the reader that used to choke on it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from surveytool.analysis.agreement import agree  # noqa: E402
from surveytool.analysis.checks import REGISTRY, CheckContext  # noqa: E402
from surveytool.analysis.tagging.tagger import Tagger  # noqa: E402
from surveytool.analysis.taxonomy import load_taxonomy  # noqa: E402
from surveytool.bibtex.values import value_to_text  # noqa: E402
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402
from surveytool.sources.overrides import apply_overrides  # noqa: E402
from surveytool.sources.read import read_source  # noqa: E402
from surveytool.text.citations import citations  # noqa: E402


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    size: int  # the size the case was reported at
    prepare: Callable[[int, Path], Callable[[], object]]  # (size, scratch folder) -> the call to time


def _cite_spaces(size: int, folder: Path) -> Callable[[], object]:
    text = "\\cite" + " " * size + "\n"
    return lambda: citations(text)


def _unclosed_verbatim(size: int, folder: Path) -> Callable[[], object]:
    # Each opener could scan the rest of the text for its end: \\verb to the end of its line, an environment to the end.
    verbs = "".join(f"\\verb{chr(33 + i % 14)}" for i in range(size))
    text = verbs + "\n" + "\\begin{verbatim}\\begin{comment}" * size + "\n\\cite{last}\n"
    return lambda: citations(text)


def _braced_options(size: int, folder: Path) -> Callable[[], object]:
    # A bracket in braces makes an option be read for its end: each must stop near its start.
    text = "\\cite[{[}x{]}" * size + "\\citep[{a}" * size + "]{last}\n"
    return lambda: citations(text)


def _cite_spaces_options(size: int, folder: Path) -> Callable[[], object]:
    text = "\\citep" + " []" * (size // 3) + " x\n"
    return lambda: citations(text)


def _undefined_cites(size: int, folder: Path) -> Callable[[], object]:
    papers = [
        Paper(
            Origin.BIBTEX,
            (SourceLocation("refs.bib", n + 1),),
            frozen_mapping({"title": f"Paper {n}"}),
            key=f"known{n}",
            aliases=(f"alias{n}",),
        )
        for n in range(size)
    ]
    context = CheckContext(papers, None, (("paper.tex", "".join(f"\\cite{{ghost{n}}}\n" for n in range(size))),))
    return lambda: list(REGISTRY["cite-undefined"].run(context))


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _header_padded(size: int, folder: Path) -> Callable[[], object]:
    path = _write(folder, "padded.txt", "Related papers: Attention Is All You Need" + " " * size + "\n\nA snippet …\n")
    return lambda: read_source(path)


def _numbered_paragraph(size: int, folder: Path) -> Callable[[], object]:
    # Each numbered line looked at every later line of its paragraph for an abstract's own enumeration.
    items = "".join(f"{n}. A snippet about training giant models on many accelerators …\n" for n in range(1, size + 1))
    path = _write(folder, "numbered.txt", "Related papers: Attention Is All You Need\n\n" + items)
    return lambda: read_source(path)


def _header_padded_inside(size: int, folder: Path) -> Callable[[], object]:
    path = _write(folder, "inside.txt", "Related papers: Attention" + " " * size + "Is All You Need\n\nA snippet …\n")
    return lambda: read_source(path)


def _csl_items(size: int, folder: Path) -> Callable[[], object]:
    items = [
        {
            "id": f"item{n}",
            "type": "article-journal",
            "title": f"Paper number {n}",
            "issued": {"date-parts": [[2000 + n % 25]]},
        }
        for n in range(size)
    ]
    path = _write(folder, "items.json", json.dumps(items, indent=2))
    return lambda: read_source(path)


def _nested_braces(size: int, folder: Path) -> Callable[[], object]:
    value = "{" * size + "\\unknownmacro x" + "}" * size
    return lambda: value_to_text(value)


def _overrides_of_another_bib(size: int, folder: Path) -> Callable[[], object]:
    papers = [
        Paper(Origin.BIBTEX, (SourceLocation("refs.bib", n + 1),), frozen_mapping({}), key=f"smith{n}")
        for n in range(size)
    ]
    overrides = {f"smith{n}x": ("moe",) for n in range(size)}  # every key unknown, each close to one of the entries'
    return lambda: apply_overrides(papers, overrides, "overrides.toml", {})


def _taxonomy_sections(size: int, folder: Path) -> Callable[[], object]:
    groups = "".join(f'[[groups]]\nid = "group-{n}"\ntitle = "Group {n}"\n\n' for n in range(max(1, size // 10)))
    sections = "".join(
        f'[[sections]]\nid = "section-{n}"\ntitle = "Section {n}"\nparent = "group-{n // 10}"\n'
        f'aliases = ["alias {n}"]\nkeywords = {{ "word{n}" = 2 }}\n\n'
        for n in range(size)
    )
    path = _write(folder, "taxonomy.toml", f'title = "Wide"\n\n{groups}{sections}')
    return lambda: load_taxonomy(path)


def _taxonomy_inline_sections(size: int, folder: Path) -> Callable[[], object]:
    sections = "".join(
        f'  {{id = "section-{n}", title = "Section {n}", aliases = ["alias {n}"]}},\n' for n in range(size)
    )
    path = _write(folder, "taxonomy.toml", f'title = "Inline"\nsections = [\n{sections}]\n')
    return lambda: load_taxonomy(path)


def _taxonomy_group_chain(size: int, folder: Path) -> Callable[[], object]:
    groups = "".join(
        f'[[groups]]\nid = "group-{n}"\ntitle = "Group {n}"\n' + (f'parent = "group-{n - 1}"\n' if n else "") + "\n"
        for n in range(size)
    )
    path = _write(
        folder, "chain.toml", f'{groups}[[sections]]\nid = "leaf"\ntitle = "Leaf"\nparent = "group-{size - 1}"\n'
    )
    return lambda: load_taxonomy(path)


def _name_trailing_words(size: int, folder: Path) -> Callable[[], object]:
    def paper(author: str) -> Paper:
        return Paper(Origin.BIBTEX, (SourceLocation("refs.bib", 1),), frozen_mapping({"author": author}))

    # Words a name may end in that are not its family name (a DBLP number, a generation), then one that is;
    # particles, lower-case and capitalised, before it.
    a = paper("Ann" + " De" * size + " de" * size + " Smith" + " 1" * size + " Jr." * size + " x")
    b = paper("Smith, Ann")
    return lambda: agree(a, b)


def _long_word_title(size: int, folder: Path) -> Callable[[], object]:
    # A title pasted without spaces: the learned model tried every split of an unknown word into two known ones.
    tagger = Tagger(options_taxonomy(Options()))
    paper = Paper(Origin.BIBTEX, (SourceLocation("refs.bib", 1),), frozen_mapping({"title": "pipeline" * size}))
    return lambda: tagger.tag(paper)


def _many_word_title(size: int, folder: Path) -> Callable[[], object]:
    # An abstract pasted into the title field: each feature was looked up in a list of the title's words.
    tagger = Tagger(options_taxonomy(Options()))
    words = " ".join(f"qz{n:x}vk" for n in range(size))  # none a word the model knows
    paper = Paper(Origin.BIBTEX, (SourceLocation("refs.bib", 1),), frozen_mapping({"title": words + " pipeline"}))
    return lambda: tagger.tag(paper)


def _at_run_comment(size: int, folder: Path) -> Callable[[], object]:
    # "@" is a character of an entry type's name: a search for a block opened at each @ read the rest of the run.
    path = _write(folder, "at-run.bib", "@article{x, title={y}}\n% " + "a@" * size + "\n")
    return lambda: read_source(path)


def _at_only(size: int, folder: Path) -> Callable[[], object]:
    path = _write(folder, "at-only.bib", "@" * size)
    return lambda: read_source(path)


CASES = (
    Case("cite-spaces", "check --tex: \\cite followed by spaces", 40_000, _cite_spaces),
    Case("cite-options", "check --tex: \\citep followed by empty [] options", 40_000, _cite_spaces_options),
    Case("unclosed-verbatim", "check --tex: unclosed \\verb and verbatim environments", 40_000, _unclosed_verbatim),
    Case("braced-options", "check --tex: unclosed optional arguments holding braces", 40_000, _braced_options),
    Case("undefined-cites", "check --tex: as many undefined cites as entries with aliases", 10_000, _undefined_cites),
    Case("header-padded", "paper list: header padded with trailing spaces", 40_000, _header_padded),
    Case("header-padded-inside", "paper list: header title padded with inner spaces", 40_000, _header_padded_inside),
    Case(
        "numbered-paragraph", "paper list: numbered items with no blank line between them", 5_000, _numbered_paragraph
    ),
    Case("csl-items", "CSL-JSON items (line of each item)", 8_000, _csl_items),
    Case("nested-braces", "braces nested around an unknown macro", 400, _nested_braces),
    Case(
        "taxonomy-sections",
        "taxonomy validation: sections (and a tenth as many groups), each line located",
        4_000,
        _taxonomy_sections,
    ),
    Case(
        "name-trailing-words",
        "merging: a first author of many particles, numbers, generations",
        20_000,
        _name_trailing_words,
    ),
    Case(
        "overrides-unknown-keys",
        "overrides: every key unknown, each with a did-you-mean among as many entries",
        2_000,
        _overrides_of_another_bib,
    ),
    Case(
        "taxonomy-inline-sections",
        "taxonomy validation: sections as one inline array of tables, each told at the array's line",
        4_000,
        _taxonomy_inline_sections,
    ),
    Case(
        "taxonomy-group-chain", "taxonomy validation: groups each the parent of the next", 1_000, _taxonomy_group_chain
    ),
    Case("long-word-title", "tagging: a title of one word of many letters", 50_000, _long_word_title),
    Case("many-word-title", "tagging: a title of many words the model does not know", 10_000, _many_word_title),
    Case("at-run-comment", "reading a .bib: a comment of a@a@a@... after an entry", 64_000, _at_run_comment),
    Case("at-only", "reading a .bib: a file of @ alone", 64_000, _at_only),
)


def time_case(case: Case, scale: float = 1.0) -> float:
    """Seconds one run of ``case`` takes at ``scale`` times its reported size."""
    with tempfile.TemporaryDirectory() as scratch:
        call = case.prepare(max(1, int(case.size * scale)), Path(scratch))
        start = time.perf_counter()
        call()
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="input size relative to the reported one")
    parser.add_argument("--cases", nargs="*", choices=[c.name for c in CASES], help="run only these cases")
    args = parser.parse_args()
    print("| case | input | size | seconds |")
    print("| --- | --- | ---: | ---: |")
    for case in CASES:
        if args.cases and case.name not in args.cases:
            continue
        try:
            outcome = f"{time_case(case, args.scale):.3f}"
        except Exception as error:  # a case that fails is reported, and the others still run
            outcome = f"failed: {type(error).__name__}"
        print(f"| {case.name} | {case.what} | {int(case.size * args.scale)} | {outcome} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

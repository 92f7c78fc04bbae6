"""The slice commands: parse, tag, taxonomy; each thin over the library."""

import json
import re

from helpers import ROOT, run_cli


def test_parse_json_is_the_entries_schema():
    result = run_cli("parse", "--json", "-q", check=True)
    entries = json.loads(result.stdout)
    assert len(entries) == 41 and all({"key", "title", "tags", "resolved", "sources"} <= e.keys() for e in entries)


def test_parse_reads_id_lists_and_csl_json(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("# my ids\n2104.14830v2\nhttps://doi.org/10.1145/3320060  # Ben-Nun\narXiv:2006.16668\nnot-an-id\n")
    csl = tmp_path / "zotero.json"
    csl.write_text(
        json.dumps(
            [
                {
                    "id": "z1",
                    "type": "paper-conference",
                    "title": "Pipelined Training at Scale",
                    "author": [{"family": "Ng", "given": "Ann"}],
                    "issued": {"date-parts": [[2024]]},
                    "container-title": "MLSys",
                }
            ]
        )
    )
    result = run_cli("parse", str(ids), str(csl), "--json", "--kind", "ids", cwd=tmp_path)
    assert result.returncode == 2 or result.returncode == 1  # forcing ids onto JSON is reported
    result = run_cli("parse", str(ids), str(csl), "--json", cwd=tmp_path)
    assert result.returncode == 1  # 'not-an-id' is an error finding
    assert f"{ids}:5: error [bad-identifier]" in result.stderr
    entries = {e["key"]: e for e in json.loads(result.stdout)}
    assert {"li2021scaling", "bennun2019demystifying", "lepikhin2021gshard", "z1"} <= entries.keys()
    assert entries["z1"]["authors"] == ["Ng, Ann"] and entries["z1"]["year"] == "2024"


def test_tag_explain_shows_evidence_for_every_tag():
    result = run_cli("tag", "--explain", "-q", check=True)
    blocks = result.stdout.split("\n\n")
    assert "du2022glam" in result.stdout
    section = result.stdout.split("\ndu2022glam", 1)[1].split("\n", 3)
    assert "primary" in section[1] and "moe" in section[1]
    assert 'title: "' in section[2] or 'abstract: "' in section[2]
    assert blocks


def test_tag_explain_says_why_an_entry_was_left_to_place(tmp_path):
    # A Zotero export: BOM, CRLF; one entry of another field whose abstract has the field's words, one the tagger
    # knows nothing of, one whose only tag names no section.
    bib = tmp_path / "general.bib"
    bib.write_bytes(
        b"\xef\xbb\xbf@article{siek2007,\r\n  title = {Gradual Typing for Objects},\r\n"
        b"  abstract = {Static and dynamic languages meet in one program: a compilation pipeline inserts casts.},"
        b"\r\n  year = 2007\r\n}\r\n\r\n@misc{qz, title = {Qwxz vprt}}\r\n\r\n"
        b"@misc{mine, title = {Qwxz vprt zzy}, sections = {to-read}}\r\n"
    )
    result = run_cli("tag", "--explain", str(bib))
    assert result.returncode == 1  # the unknown tag is an error
    blocks: dict[str, str] = {}
    for line in result.stdout.splitlines():
        if line and not line.startswith(" "):
            key = line.split()[0]
        blocks[key] = blocks.get(key, "") + line + "\n"
    assert sorted(blocks) == ["mine", "qz", "siek2007"]
    assert "no tag: the likeliest section, pipeline-parallel, is only 0.0" in blocks["siek2007"]
    assert 'abstract: "pipeline"' in blocks["siek2007"] and "of the field, by its title: 0.0" in blocks["siek2007"]
    assert "no tag: nothing in its text is known to the tagger" in blocks["qz"]
    assert "no tag: the tags you gave name no section" in blocks["mine"]
    [review] = [line for line in result.stderr.splitlines() if "[needs-review]" in line]
    assert "'siek2007'" in review
    assert review.endswith("(add a tags field naming its section)")  # 0.00 sure: no section to suggest


def test_tag_explain_says_a_volume_cited_through_its_papers_is_not_placed(tmp_path):
    bib = tmp_path / "conf.bib"
    bib.write_text(
        "@proceedings{mlsys21, title = {Proceedings of the Conference on Machine Learning and Systems}, year = 2021}\n"
        "@inproceedings{moe21, title = {Sparse mixture-of-experts routing with expert parallelism},"
        " crossref = {mlsys21}}\n",
        encoding="utf-8",
    )
    result = run_cli("tag", "--explain", str(bib), check=True)
    block = result.stdout.split("mlsys21  (", 1)[1].split("\nmoe21", 1)[0]
    assert "no tag: it is cited through the entries that name it (crossref or xdata), not placed itself" in block
    assert "mlsys21" not in result.stderr  # no finding says otherwise
    # The table gives the child the year its volume lends it, as --json does.
    [row] = [
        line for line in run_cli("tag", str(bib), "-q", check=True).stdout.splitlines() if line.startswith("moe21")
    ]
    assert row.split()[1] == "2021"


def test_tag_explain_json_names_the_nearest_tagged_papers(tmp_path):
    """--explain with --json printed the plain entries: the nearest tagged papers were left out unsaid."""
    bib = tmp_path / "zotero.bib"
    bib.write_bytes(
        b"\xef\xbb\xbf@inproceedings{narayanan_pipedream_2019,\r\n"
        b"\ttitle = {{PipeDream}: generalized pipeline parallelism for {DNN} training},\r\n"
        b"\tkeywords = {Computer Science - Machine Learning},\r\n\tyear = {2019}\r\n}\r\n"
    )
    plain = json.loads(run_cli("tag", "--json", "-q", str(bib), check=True).stdout)
    explained = json.loads(run_cli("tag", "--explain", "--json", "-q", str(bib), check=True).stdout)
    [tag] = [t for t in explained[0]["tag_evidence"] if t["role"] == "primary"]
    exemplars = [line for line in tag["evidence"] if line.startswith("exemplar: ")]
    assert exemplars and tag["evidence"][: -len(exemplars)] == plain[0]["tag_evidence"][0]["evidence"]


def test_tag_explain_json_says_why_an_entry_has_no_tag(tmp_path):
    """With --json, an entry left to place showed only empty tags: the likeliest section and its evidence, which
    --explain prints, were left out, as was why an entry with nothing known had none."""
    bib = tmp_path / "scholar.bib"
    bib.write_text(
        "@article{ba2016layer,\n  title={Layer normalization},\n  author={Ba, Jimmy Lei},\n"
        "  journal={arXiv preprint arXiv:1607.06450},\n  year={2016}\n}\n\n"
        "@misc{qz,\n  title={Qwxz vprt},\n  year={2020}\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "surveytool.toml").write_text("[tag]\nthreshold = 0.99\n", encoding="utf-8")
    text = run_cli("tag", "--explain", "-q", str(bib), cwd=tmp_path).stdout
    explained = {
        e["key"]: e for e in json.loads(run_cli("tag", "--explain", "--json", "-q", str(bib), cwd=tmp_path).stdout)
    }
    likeliest = explained["ba2016layer"]["no_tag"]["likeliest"]
    assert explained["ba2016layer"]["tags"] == []
    assert f"no tag: {explained['ba2016layer']['no_tag']['why']}" in text
    assert f"the likeliest section, {likeliest['section']}, is only {likeliest['score']:.2f} sure" in text
    assert likeliest["score"] < 0.99 and all(f"      {line}" in text for line in likeliest["evidence"])
    assert explained["qz"]["no_tag"] == {
        "why": "nothing in its text is known to the tagger (see its no-section finding)",
        "likeliest": None,
    }


def test_an_entry_placed_nowhere_is_not_told_to_add_a_literal_name_to_its_groups(tmp_path):
    """The hint read "add 'a section id' to its groups field", as if that text were a name to add in JabRef."""
    bib = tmp_path / "jabref.bib"
    bib.write_text(
        "% Encoding: UTF-8\n\n@Misc{qz,\n  title  = {Qwxz vprt},\n  groups = {To read},\n}\n", encoding="utf-8"
    )
    result = run_cli("check", str(bib), "--tags-field", "groups")
    [finding] = [line for line in result.stderr.splitlines() if "[no-section]" in line]
    assert finding.endswith("(add its section's id to its groups field)") and "'a section id'" not in finding


def test_overrides_win_over_the_tagger(tmp_path):
    overrides = tmp_path / "overrides.toml"
    overrides.write_text('[tags]\nlepikhin2021gshard = ["Pipeline Parallelism", "memory"]\nnobody2020 = ["moe"]\n')
    result = run_cli("tag", "--json", "--overrides", str(overrides), cwd=tmp_path)
    entries = {e["key"]: e for e in json.loads(result.stdout)}
    assert entries["lepikhin2021gshard"]["tags"] == ["pipeline-parallel", "memory"]
    assert all(t["explicit"] for t in entries["lepikhin2021gshard"]["tag_evidence"])
    assert f"{overrides}:3: warning [unknown-key]" in result.stderr
    assert (
        f"{overrides}:2: warning [tag-variant] tag 'Pipeline Parallelism' is written differently from its section id "
        f"'pipeline-parallel' (write 'pipeline-parallel' in {overrides})"
    ) in result.stderr


def test_tags_of_an_overrides_file_are_reported_there_and_never_written_into_the_bib(tmp_path):
    # They were reported at the .bib's entry, and check --fix added them, misspelt one included, to the .bib.
    (tmp_path / "overrides.toml").write_text('[tags]\nswitch2022 = ["MoE", "comunication"]\n')
    entry = "@misc{switch2022,\n  title = {Switch Transformers},\n  author = {Fedus, William},\n  year = {2022}\n}\n"
    (tmp_path / "refs.bib").write_text(entry)
    for command in (["check", "refs.bib", "--fix"], ["bib", "--in-place", "refs.bib"]):
        result = run_cli(*command, "--overrides", "overrides.toml", cwd=tmp_path)
        assert (tmp_path / "refs.bib").read_text() == entry
        assert "overrides.toml:2: error [unknown-tag] tag 'comunication'" in result.stderr
        assert "overrides.toml:2: warning [tag-variant] tag 'MoE'" in result.stderr


def test_taxonomy_tree_with_counts_and_validate(tmp_path):
    tree = run_cli("taxonomy", check=True).stdout
    assert "gnn-training: Large-Scale Graph Neural Network Training  (3)" in tree
    # The entry left to place is counted too (build says 'unclassified 1'): the counts add up to every entry.
    counts = [int(n) for n in re.findall(r"  \((\d+)\)$", tree, re.M)]
    assert tree.endswith("└── to place: no section given  (1)\n") and sum(counts) == 41
    assert run_cli("taxonomy", "validate", str(ROOT / "seeds" / "taxonomy.toml"), check=True).stdout.endswith(
        "13 sections in 6 groups\n"
    )
    bad = tmp_path / "bad.toml"
    bad.write_text('[[sections]]\nid = "a"\ntitle = "A"\n[[sections]]\nid = "a"\ntitle = "B"\n')
    result = run_cli("taxonomy", "validate", str(bad))
    assert result.returncode == 2 and f"{bad}:5: error: duplicate id 'a'" in result.stderr
    bad.write_text('[[sections]]\nid = "A"\ntitle = "A"\n[[sections]]\nid = "b"\ntitel = "B"\n')
    result = run_cli("taxonomy", "validate", str(bad))
    assert result.returncode == 2 and [line.split(": error: ")[0] for line in result.stderr.splitlines()] == [
        f"{bad}:2",
        f"{bad}:6",
    ]
    flat = tmp_path / "flat.toml"
    flat.write_text('[[sections]]\nid = "a"\ntitle = "A"\n')
    assert run_cli("taxonomy", "validate", str(flat), check=True).stdout == f"{flat}: ok, 1 section\n"
    flat.write_text(
        '[[groups]]\nid = "g"\ntitle = "G"\n[[sections]]\nid = "a"\ntitle = "A"\nparent = "g"\n'
        '[[sections]]\nid = "b"\ntitle = "B"\n'
    )
    assert (
        run_cli("taxonomy", "validate", str(flat), check=True).stdout
        == f"{flat}: ok, 2 sections in 1 group (1 in none)\n"
    )
    missing = run_cli("taxonomy", "validate", str(tmp_path / "nope.toml"))
    assert missing.stderr.endswith("(check the path given to taxonomy validate)\n")


NESTED_TREE = """Related Work on Large-Model Training
├── Foundations [foundations]
│   ├── surveys: Surveys and Taxonomies
│   └── Parallelism Strategies [parallelism]
│       ├── data-parallel: Data Parallelism and State Sharding
│       ├── model-parallel: Model Parallelism and Automatic Sharding
│       ├── pipeline-parallel: Pipeline Parallelism
│       ├── moe: Mixture-of-Experts and Conditional Computation
│       └── System Optimizations [systems]
│           ├── memory: Memory and Compute Efficiency
│           ├── communication: Communication Efficiency
│           └── hardware-systems: Hardware, Clusters and Performance Analysis
├── Training Algorithms [algorithms]
│   ├── optimization: Large-Batch Optimization and Training Dynamics
│   └── decentralized: Decentralized, Ensemble and Merged Training
├── Workload-Specific Training [workloads]
│   ├── embeddings-recsys: Embedding and Recommendation Models
│   └── gnn-training: Large-Scale Graph Neural Network Training
├── Applications [applications-group]
│   └── applications: Applications and Transfer
└── to place: no section given
"""


def test_the_taxonomy_tree_shows_a_group_under_the_group_it_is_nested_in(tmp_path):
    # foundations > parallelism > systems, three levels deep, as the chapter heads them.
    text = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    text = text.replace('id = "parallelism"\n', 'id = "parallelism"\nparent = "foundations"\n')
    (tmp_path / "nested.toml").write_text(text.replace('id = "systems"\n', 'id = "systems"\nparent = "parallelism"\n'))
    tree = run_cli("taxonomy", "--taxonomy", "nested.toml", cwd=tmp_path, check=True).stdout
    assert re.sub(r"  \(\d+\)$", "", tree, flags=re.M) == NESTED_TREE  # without the counts of entries


def test_the_taxonomy_tree_is_not_drawn_from_a_title_that_would_show_it_reversed(tmp_path):
    # A right-to-left override in a title reached the terminal: the rest of the line read backwards.
    (tmp_path / "tax.toml").write_text(
        '[[sections]]\nid = "a"\ntitle = "A"\n[[sections]]\nid = "b"\ntitle = "Secure \\u202etniop kcehc"\n',
        encoding="utf-8",
    )
    result = run_cli("taxonomy", "--taxonomy", "tax.toml", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        "tax.toml:6: error: 'title' in [[sections]] holds an invisible character (U+202E, right-to-left override) "
        "(remove it: only text and white space print)\n"
    )


def test_an_empty_taxonomy_path_is_told_as_empty_not_as_the_current_folder(tmp_path):
    # --taxonomy "$TAXONOMY" with the variable unset: ".: error: taxonomy file is a directory, not a file".
    hint = "(name a taxonomy TOML file; a shell variable that is not set gives an empty path)\n"
    for args, given in [
        (("tag", "--taxonomy", ""), "with --taxonomy"),
        (("taxonomy", "--taxonomy", ""), "with --taxonomy"),
        (("build", "--taxonomy", "", "--out", "out"), "with --taxonomy"),
        (("taxonomy", "validate", ""), "to taxonomy validate"),
    ]:
        result = run_cli(*args, cwd=tmp_path)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr == f"error: the taxonomy file given {given} is an empty path {hint}"
    assert not (tmp_path / "out").exists()
    folder = run_cli("tag", "--taxonomy", ".", cwd=tmp_path)  # the current folder, named: a directory
    assert folder.returncode == 2 and folder.stderr.startswith(".: error: taxonomy file is a directory")


UNSET = "a shell variable that is not set gives an empty path"


def test_an_empty_output_path_writes_nothing_into_the_current_folder(tmp_path):
    # -o "$OUT" with the variable unset: build wrote its whole output into the current folder and said "wrote ./";
    # bib left a surveytool.lock.json there before it said ".: error: is a directory".
    (tmp_path / "lib.bib").write_text("@article{ng2020, title={Pipelined Training}, author={Ng, Ann}, year={2020}}\n")
    for args, said in [
        (
            ("build", "lib.bib", "-o", ""),
            "the output folder given with -o/--out is an empty path (name a folder, e.g. -o build",
        ),
        (
            ("build", "lib.bib", "--out", ""),
            "the output folder given with -o/--out is an empty path (name a folder, e.g. -o build",
        ),
        (
            ("draft", "lib.bib", "-o", ""),
            "the chapter file given with -o/--output is an empty path (name a file, e.g. -o related_work.tex, or - to print it",
        ),
        (
            ("bib", "lib.bib", "-o", ""),
            "the .bib file given with -o/--output is an empty path (name a file, or - to print it",
        ),
        (
            ("bib", "lib.bib", "--in-place", ""),
            "the .bib file given with --in-place is an empty path (name your .bib file",
        ),
        (
            ("export", "lib.bib", "--output", ""),
            "the file given with -o/--output is an empty path (name a file, or - to print it",
        ),
        (
            ("complete", "lib.bib", "-o", ""),
            "the .bib file given with -o/--output is an empty path (name a file, or - to print it",
        ),
    ]:
        result = run_cli(*args, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"error: {said}; {UNSET})\n"), args
        assert [p.name for p in tmp_path.iterdir()] == ["lib.bib"], args


def test_an_empty_path_to_read_is_told_as_empty_not_as_the_current_folder(tmp_path):
    # "$CONFIG" unset: ".: error: config file is a directory, not a file (name the files inside it)"; an empty
    # --templates was the current folder, read for templates without a word.
    (tmp_path / "lib.bib").write_text("@article{ng2020, title={Pipelined Training}, author={Ng, Ann}, year={2020}}\n")
    source = "name a related-paper list, .bib, id list or CSL-JSON file, or - for standard input"
    for args, said in [
        (("parse", ""), f"a source given on the command line is an empty path ({source}"),
        (("bib", "lib.bib", "", "-o", "out.bib"), f"a source given on the command line is an empty path ({source}"),
        (
            ("parse", "lib.bib", "--catalog", ""),
            "a catalog given with --catalog is an empty path (name a .bib file of known papers",
        ),
        (
            ("tag", "lib.bib", "--overrides", ""),
            "the overrides file given with --overrides is an empty path (name a TOML file of your own tags",
        ),
        (
            ("check", "lib.bib", "--config", ""),
            "the settings file given with --config is an empty path (name a settings file, e.g. surveytool.toml",
        ),
        (
            ("resolve", "lib.bib", "--online", "--cache", ""),
            "the cache file given with --cache is an empty path (name a file for the online answers",
        ),
        (
            ("build", "lib.bib", "-o", "out", "--templates", ""),
            "the templates folder given with --templates is an empty path (name a folder of templates",
        ),
    ]:
        result = run_cli(*args, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"error: {said}; {UNSET})\n"), args
        assert [p.name for p in tmp_path.iterdir()] == ["lib.bib"], args


def test_an_empty_path_to_a_command_of_its_own_is_told_as_empty(tmp_path):
    # complete "$BIB", --tex "$MAIN" and taxonomy --sources "$BIB" unset: ".: error: is a directory, not a file".
    (tmp_path / "lib.bib").write_text("@article{ng2020, title={Pipelined Training}, author={Ng, Ann}, year={2020}}\n")
    source = "name a related-paper list, .bib, id list or CSL-JSON file, or - for standard input"
    tex = "a .tex file given with --tex is an empty path (name a .tex file, e.g. the main file of the thesis"
    for args, said in [
        (("complete", ""), "the .bib file given to complete is an empty path (name your .bib file"),
        (("complete", "", "--in-place"), "the .bib file given to complete is an empty path (name your .bib file"),
        (("check", "lib.bib", "--tex", ""), tex),
        (("rekey", "lib.bib", "--tex", ""), tex),
        (("taxonomy", "--sources", ""), f"a source given with --sources is an empty path ({source}"),
    ]:
        result = run_cli(*args, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", f"error: {said}; {UNSET})\n"), args
        assert [p.name for p in tmp_path.iterdir()] == ["lib.bib"], args


def test_a_title_over_several_lines_is_one_line_of_the_taxonomy_tree():
    from surveytool.analysis.taxonomy import parse_taxonomy
    from surveytool.cli.present import taxonomy_tree

    taxonomy = parse_taxonomy(
        'title = """Related\r\n\r\nWork"""\n[[groups]]\nid = "g"\ntitle = "Training\\n at\\tScale"\n'
        '[[sections]]\nid = "a"\ntitle = """Efficient\n\nTraining"""\nparent = "g"\n'
    )
    assert taxonomy_tree(taxonomy, {"a": 2}) == (
        "Related Work\n└── Training at Scale [g]\n    └── a: Efficient Training  (2)\n"
    )


def _registered_commands() -> list[str]:
    """Every command of the typer app, groups and their subcommands included, as a user types them."""
    from surveytool.cli.app import app

    names = [command.name or command.callback.__name__ for command in app.registered_commands]
    for group in app.registered_groups:
        names.append(group.name)
        names.extend(
            f"{group.name} {sub.name or sub.callback.__name__}" for sub in group.typer_instance.registered_commands
        )
    return names


def test_every_command_has_help_and_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = _registered_commands()
    assert {"build", "check", "taxonomy validate"} <= set(commands)  # the app, not a list written here
    for command in commands:
        result = run_cli(*command.split(), "--help", check=True)
        assert "Usage" in result.stdout
        assert f"`surveytool {command}" in readme, command


def test_parse_reports_duplicates_and_prints_the_old_to_new_key_map_when_asked_to_merge(tmp_path):
    (tmp_path / "a.bib").write_text(
        "@misc{pre, title = {Deep Things Here}, eprint = {2104.14830v1}}\n"
        "@inproceedings{pub, title = {Deep Things Here}, doi = {10.1/x}, eprint = {2104.14830}, "
        "booktitle = {ASRU}}\n"
    )
    kept = run_cli("parse", "a.bib", cwd=tmp_path, check=True)
    assert "merged keys" not in kept.stdout  # your own entries: reported, never merged unasked
    assert (
        "a.bib:2: warning [duplicate-entry] 'pub' (a.bib:2) and 'pre' (a.bib:1) look like the same work" in kept.stderr
    )
    result = run_cli("parse", "a.bib", "--merge-duplicates", cwd=tmp_path, check=True)
    assert "merged keys (1)" in result.stdout and "pub  ->  pre" in result.stdout  # the first entry's key stays


def test_odd_csl_json_items_are_skipped_with_a_finding_and_bare_id_urls_are_read(tmp_path):
    (tmp_path / "odd.json").write_text(
        json.dumps(
            [
                {"id": "a", "title": "Fine Paper Title Here", "issued": "2020", "author": "nobody"},
                {
                    "id": "b",
                    "title": ["Listed Title Of A Paper"],
                    "issued": {"raw": "2019-05"},
                    "container-title": ["J"],
                },
                {
                    "id": "c",
                    "title": "Another Fine Title",
                    "author": [{"family": "Ng"}],
                    "issued": {"date-parts": [[2021, 1]]},
                },
                "not an item",
            ]
        )
    )
    result = run_cli("parse", "odd.json", "--json", cwd=tmp_path)
    entries = {e["key"]: e for e in json.loads(result.stdout)}
    assert entries["b"]["title"] == "Listed Title Of A Paper" and entries["b"]["year"] == "2019"
    assert entries["c"]["authors"] == ["Ng"] and entries["c"]["year"] == "2021"
    # A date as an EDTF text is CSL-JSON 1.0.2's own; an author that is no list of names is left out, and said so.
    assert entries["a"]["title"] == "Fine Paper Title Here" and entries["a"]["year"] == "2020"
    assert entries["a"]["authors"] == [] and "item 1's author is not a list of CSL names" in result.stderr
    assert "warning [csl-item] item 4 has no title or DOI; skipped" in result.stderr
    (tmp_path / "ids.txt").write_text("arxiv.org/abs/2104.14830\ndoi.org/10.1145/3320060\n")
    entries = json.loads(run_cli("parse", "ids.txt", "--json", cwd=tmp_path, check=True).stdout)
    assert {e["key"] for e in entries} == {"li2021scaling", "bennun2019demystifying"}


def test_version_prints_the_package_version():
    from surveytool import __version__

    result = run_cli("--version", check=True)
    assert result.stdout == f"surveytool {__version__}\n"


def test_option_help_keeps_its_brackets():
    result = run_cli("build", "--help", check=True)
    assert "[online]" in " ".join(result.stdout.split())  # --config: an [online] table, not a style tag


def test_help_and_readme_give_the_sizes_of_a_section_split_into_themes_that_the_code_uses():
    from surveytool.output.section_themes import MAX_THEMED, MIN_THEMED

    said = f"a section of {MIN_THEMED} to {MAX_THEMED} papers"  # "6 or more" left out the flat large sections
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert said in readme.lower()
    for command in ("build", "draft"):
        assert said in " ".join(run_cli(command, "--help", check=True).stdout.split()).lower(), command


def test_the_readme_example_of_a_list_of_titles_resolves_every_paper_against_the_catalog(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme.split("names no paper surely enough and stays a placeholder):", 1)[1]
    (tmp_path / "list.txt").write_text(example.split("```text\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    entries = json.loads(run_cli("parse", "list.txt", "--json", cwd=tmp_path, check=True).stdout)
    assert sorted(e["key"] for e in entries if e["resolved"]) == [
        "bennun2019demystifying",
        "jia2022whale",
        "lepikhin2021gshard",
    ]


USER_BIB = "% my notes on these papers\n@misc{mine, title = {Pipeline parallelism at scale}, year = 2021}\n"


def _outputs_onto_inputs(tmp_path):
    """Each writing command aimed at a file the same run reads: by name, through a link, or as a build output."""
    bib, taxonomy = tmp_path / "references.bib", tmp_path / "mine.toml"
    taxonomy.write_bytes((ROOT / "seeds" / "taxonomy.toml").read_bytes())
    (tmp_path / "link.bib").symlink_to(bib.name)
    return [
        ("bib", str(bib), "-o", str(bib)),
        ("bib", str(tmp_path / "link.bib"), "-o", str(bib)),
        ("export", str(bib), "-o", str(bib)),
        ("export", str(bib), "-o", str(tmp_path / "new" / ".." / bib.name)),  # through a folder it would make
        ("bib", str(bib), "-o", f"{tmp_path}/new/../{bib.name}"),
        ("export", str(bib), "--taxonomy", str(taxonomy), "-o", str(taxonomy)),
        ("draft", str(bib), "-o", str(bib)),
        ("build", str(bib), "--out", str(tmp_path)),
        ("build", str(bib), "--out", str(tmp_path / "new" / "..")),
    ]


def test_no_command_writes_its_output_over_a_file_the_run_reads(tmp_path):
    for command in _outputs_onto_inputs(tmp_path):
        bib = tmp_path / "references.bib"
        bib.write_text(USER_BIB, encoding="utf-8")
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.is_symlink()}
        result = run_cli(*command)
        assert result.returncode == 2, command
        assert "is also read by this run" in result.stderr and "Traceback" not in result.stderr
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.is_symlink()} == before, command
    run_cli("bib", str(bib), "-o", str(tmp_path / "clean.bib"), check=True)  # another file is written as asked


def test_export_exits_1_on_an_error_finding_as_the_other_commands_do(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{smith2020,\n  title = {A study},\n  year = {2020},\n  sections = {comunication},\n}\n")
    for args in (["-o", str(tmp_path / "x.md")], ["-f", "csl-json"], ["-f", "facts-json", "-o", "-"]):
        result = run_cli("export", str(bib), *args, cwd=tmp_path)
        assert result.returncode == 1, args
        assert "error [unknown-tag]" in result.stderr
    assert (tmp_path / "x.md").is_file()  # the export is still written


def test_draft_into_a_folder_asks_for_a_file_in_it(tmp_path):
    (tmp_path / "out").mkdir()
    result = run_cli("draft", "-o", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "out: error: is a directory, not a file (give a file, e.g. -o out/related_work.tex)\n"
    assert not any((tmp_path / "out").iterdir())


def test_bib_and_export_into_a_folder_ask_for_a_file_not_for_permissions(tmp_path):
    # "cannot be written (Is a directory) (check the output folder's permissions)" sent the user the wrong way.
    (tmp_path / "out").mkdir()
    (tmp_path / "lib.bib").write_text("@misc{a, title = {A}, year = 2020, sections = {moe}}\n")
    for command in (["bib", "lib.bib", "-o", "out"], ["export", "lib.bib", "-o", "out"]):
        result = run_cli(*command, cwd=tmp_path)
        assert result.returncode == 2, command
        assert (
            result.stderr == "out: error: is a directory, not a file (give the path of a file, in out or elsewhere)\n"
        )
    assert not any((tmp_path / "out").iterdir())


def test_a_file_given_to_taxonomy_as_a_source_is_told_the_option_that_takes_it(tmp_path):
    (tmp_path / "lib.bib").write_text("@misc{a, title = {A}}\n")
    result = run_cli("taxonomy", "lib.bib", "more.bib", cwd=tmp_path)
    assert result.returncode == 2
    assert "Sources are given with --sources: " in result.stderr
    assert result.stderr.rstrip().endswith("taxonomy --sources lib.bib --sources more.bib")
    result = run_cli("taxonomy", "tax.toml", cwd=tmp_path)
    assert result.returncode == 2 and "taxonomy --taxonomy tax.toml; to check it: " in result.stderr
    assert "Did you mean 'validate'?" in run_cli("taxonomy", "valdate", cwd=tmp_path).stderr


def test_a_count_of_one_entry_is_said_in_the_singular(tmp_path):
    (tmp_path / "one.bib").write_text("@article{a2020, title = {A study}, year = {2020}, sections = {moe}}\n")
    assert "1 entry written to two.bib" in run_cli("bib", "one.bib", "-o", "two.bib", cwd=tmp_path).stdout
    built = run_cli("build", "one.bib", cwd=tmp_path).stdout
    assert "1 entry, 1 resolved, 0 unresolved; wrote build/\n0 of 1 paper discussed in your notes" in built
    assert "wrote chapter.tex (1 entry cited)" in run_cli("draft", "one.bib", "-o", "chapter.tex", cwd=tmp_path).stdout


def test_an_overrides_file_that_is_not_toml_names_its_line(tmp_path):
    (tmp_path / "refs.bib").write_text("@article{a, title={Pipeline parallel training}, year=2020}\n")
    (tmp_path / "overrides.toml").write_text('[tags]\na = "moe"\nb = ["moe",\n')
    result = run_cli("tag", "refs.bib", "--overrides", "overrides.toml", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("overrides.toml:3: error: not valid TOML: Invalid value at the end of the file")


def test_a_mistake_in_the_overrides_file_stops_the_run_before_any_service_is_asked(tmp_path):
    # The overrides were read after the sources were resolved: with --online, after minutes of requests.
    from loopback import FakeServices, serve

    FakeServices.routes, FakeServices.seen = {}, []
    (tmp_path / "list.txt").write_text("Pipeline parallelism without bubbles for large models, by Smith (2020)\n")
    (tmp_path / "overrides.toml").write_text('[tags]\nsmith2020 = ["moe"\n')
    with serve(FakeServices) as base:
        (tmp_path / "surveytool.toml").write_text(
            f'[online]\ncontact = "t@example.org"\nopenalex_url = "{base}/o"\ncrossref_url = "{base}/c"\n'
            f'arxiv_url = "{base}/a"\ntimeout = 0.5\nretries = 0\nmin_interval = 0\n'
        )
        result = run_cli("build", "list.txt", "--online", "--overrides", "overrides.toml", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("overrides.toml:2: error: not valid TOML")
    assert FakeServices.seen == [] and not (tmp_path / "out").exists()


def test_the_taxonomy_counts_take_the_users_own_tags_as_build_does(tmp_path):
    # `taxonomy` took neither --tags-field nor --overrides: its counts were the tagger's, not the chapter's.
    (tmp_path / "tax.toml").write_text(
        '[[sections]]\nid = "kernels"\ntitle = "Kernels"\n[[sections]]\nid = "serving"\ntitle = "Serving"\n'
        '[sections.keywords]\n"serving" = 5\n'
    )
    (tmp_path / "lib.bib").write_text(
        "@article{kwon2023,\n  title = {Memory Management for Model Serving},\n  author = {Kwon, Woosuk},\n"
        "  year = {2023},\n  groups = {To read, Kernels},\n}\n"
        "@article{dao2022,\n  title = {Serving with Fast Attention},\n  author = {Dao, Tri},\n  year = {2022},\n}\n"
    )
    (tmp_path / "overrides.toml").write_text('[tags]\ndao2022 = ["kernels"]\n')
    shown = run_cli(
        "taxonomy",
        "--taxonomy",
        "tax.toml",
        "--sources",
        "lib.bib",
        "--tags-field",
        "groups",
        "--overrides",
        "overrides.toml",
        cwd=tmp_path,
        check=True,
    ).stdout
    assert shown == "Related Work\n├── kernels: Kernels  (2)\n└── serving: Serving  (0)\n"


def test_validate_names_the_groups_the_chapter_leaves_out_for_holding_no_section(tmp_path):
    # A group of no section (nor any in a group inside it) gets no heading: validate said only "ok".
    (tmp_path / "tax.toml").write_text(
        '[[groups]]\nid = "later"\ntitle = "Later"\n[[groups]]\nid = "outer"\ntitle = "Outer"\n'
        '[[groups]]\nid = "inner"\ntitle = "Inner"\nparent = "outer"\n'
        '[[sections]]\nid = "a"\ntitle = "A"\nparent = "inner"\n'
    )
    result = run_cli("taxonomy", "validate", "tax.toml", cwd=tmp_path, check=True)
    assert result.stdout == "tax.toml: ok, 1 section in 3 groups\n"
    assert result.stderr == "tax.toml: note: the chapter leaves out groups that hold no section: later\n"

"""Notes parked at the end of the chapter go back to their region when it is generated again."""

import re

from helpers import ROOT, run_cli

from surveytool.output.notes_regions import carry_over, regions, stamp

WITH_B = (
    "% surveytool: begin notes a\n% surveytool: end notes a\n% surveytool: begin notes b\n% surveytool: end notes b\n"
)
WITHOUT_B = "% surveytool: begin notes a\n% surveytool: end notes a\n"


def test_parked_notes_go_back_to_their_region_byte_for_byte_when_it_returns():
    prose = "On B, 大模型 and $\\alpha$.\n% surveytool: end notes orphaned\n% % surveytool: end notes orphaned\nEnd.\n"
    old = WITH_B.replace("notes b\n%", f"notes b\n{prose}%")
    parked = carry_over(WITHOUT_B, old)
    assert parked.orphaned == ("b",) and prose not in parked.text
    # The author writes above the parked notes and starts new notes in b: both stay where they were written.
    edited = parked.text.replace("% (from notes b)", "My own parked line.\n% (from notes b)")
    back = carry_over(WITH_B, carry_over(WITH_B, edited).text)
    assert carry_over(WITH_B, edited).returned == ("b",)
    assert regions(back.text) == {"a": "", "b": prose, "orphaned": "My own parked line.\n"}
    again = carry_over(WITH_B, stamp(back.text).replace("notes b\n", "notes b\nNew on B.\n", 1))
    assert regions(again.text)["b"] == "New on B.\n" + prose


def _built_with_notes_in_moe(tmp_path, prose):
    """A build of the seeds into tmp_path/out, ``prose`` then written into the moe section's notes."""
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    marker = "% surveytool: begin notes moe\n"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + prose), encoding="utf-8")
    return out, chapter, marker


def test_notes_parked_by_a_build_with_another_taxonomy_return_with_the_next_build(tmp_path):
    taxonomy = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    blocks = re.split(r"(?=^\[\[sections\]\])", taxonomy, flags=re.M)
    without_moe = tmp_path / "taxonomy.toml"
    without_moe.write_text("".join(b for b in blocks if 'id = "moe"' not in b), encoding="utf-8")
    prose = "Experts route tokens \\citep{lepikhin2021gshard}; Müller's façade.\n"
    out, chapter, marker = _built_with_notes_in_moe(tmp_path, prose)
    written = chapter.read_bytes()
    away = run_cli("build", "--out", str(out), "--taxonomy", str(without_moe), check=True)
    lines = chapter.read_text(encoding="utf-8").splitlines()
    where = lines.index("% (from notes moe)") + 1
    assert f"{chapter}:{where}: notes of sections no longer generated (moe) moved to the end" in away.stderr
    back = run_cli("build", "--out", str(out), check=True)
    assert chapter.read_bytes() == written
    where = chapter.read_text(encoding="utf-8").splitlines().index(marker.strip()) + 1
    assert f"{chapter}:{where}: your notes parked at the end went back to moe" in back.stderr


def test_notes_of_a_section_renamed_with_its_old_id_as_an_alias_move_to_the_new_id(tmp_path):
    taxonomy = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    renamed = tmp_path / "taxonomy.toml"
    assert '"sparse experts"]' in taxonomy  # moe's aliases name its id too, as a rename would keep it
    renamed.write_text(taxonomy.replace('id = "moe"\n', 'id = "sparse-moe"\n'), encoding="utf-8")
    prose = "Experts route tokens \\citep{lepikhin2021gshard}.\n"
    out, chapter, _ = _built_with_notes_in_moe(tmp_path, prose)
    moved = run_cli("build", "--out", str(out), "--taxonomy", str(renamed), check=True)
    assert regions(chapter.read_text(encoding="utf-8"))["sparse-moe"] == prose
    assert "% (from notes moe)" not in chapter.read_text(encoding="utf-8")
    where = chapter.read_text(encoding="utf-8").splitlines().index("% surveytool: begin notes sparse-moe") + 1
    assert f"{chapter}:{where}: section moe is now sparse-moe (its alias); your notes in it moved there" in moved.stderr


def test_a_rebuild_names_a_citation_in_the_notes_whose_paper_left_the_sources(tmp_path):
    library = tmp_path / "refs.bib"
    entry = "@article{{{key}, author = {{Doe, Jane}}, title = {{{title}}}, journal = {{J}}, year = 2020}}\n"
    kept = entry.format(key="kept2020", title="Pipeline Parallel Training of Large Models")
    gone = entry.format(key="gone2020", title="Sparse Experts for Routing Tokens")
    library.write_text(kept + gone, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(library), "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    marker = "% surveytool: begin notes introduction\n"
    notes = "We build on \\citet{kept2020} and\n\\citep{gone2020, kept2020}.\n"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + notes), encoding="utf-8")
    line = chapter.read_text(encoding="utf-8").splitlines().index(marker.strip()) + 3
    for changed in (kept, kept + entry.format(key="new2021", title="Activation Checkpointing Revisited")):
        library.write_text(changed, encoding="utf-8")  # the paper taken out, then a rebuild after one more edit
        built = run_cli("build", str(library), "--out", str(out), check=True)
        assert f"{chapter}:{line}: your notes cite 'gone2020', which is not in the bibliography" in built.stderr
        assert "'kept2020'" not in built.stderr and notes in chapter.read_text(encoding="utf-8")


def test_draft_names_a_citation_in_the_notes_whose_paper_left_the_sources(tmp_path):
    library = tmp_path / "refs.bib"
    library.write_text(
        "@article{kept2020, author = {Doe, Jane}, title = {Pipeline Parallel Training}, journal = {J}, year = 2020}\n",
        encoding="utf-8",
    )
    chapter = tmp_path / "chapter.tex"
    run_cli("draft", str(library), "-o", str(chapter), check=True)
    marker = "% surveytool: begin notes introduction\n"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + "See \\cite{gone2019}.\n"))
    line = chapter.read_text(encoding="utf-8").splitlines().index(marker.strip()) + 2
    drafted = run_cli("draft", str(library), "-o", str(chapter), check=True)
    assert f"{chapter}:{line}: your notes cite 'gone2019', which is not in the bibliography" in drafted.stderr


def _taxonomy_without(tmp_path, section_id):
    taxonomy = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    blocks = re.split(r"(?=^\[\[sections\]\])", taxonomy, flags=re.M)
    without = tmp_path / f"without-{section_id}.toml"
    without.write_text("".join(b for b in blocks if f'id = "{section_id}"\n' not in b), encoding="utf-8")
    return without


# The author's own lines that look like the tool's: a header (moved with parked text into other notes, as the
# README tells), indented or commented out, and the parking region's end line. Each split or cut the notes.
LOOKALIKES = (
    "Pipeline prose GAMMA.\n% (from notes moe)\nGAMMA2 continues here.\n"
    "\t% (from notes moe)  \n% % (from notes optimization)\n  % surveytool: end notes orphaned\nLast line.\n"
)


def test_notes_with_a_line_like_a_parked_header_return_byte_for_byte(tmp_path):
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    marker, moe = "% surveytool: begin notes pipeline-parallel\n", "% surveytool: begin notes moe\n"
    text = chapter.read_text(encoding="utf-8").replace(marker, marker + LOOKALIKES)
    chapter.write_text(text.replace(moe, moe + "% (from notes pipeline-parallel)\n"), encoding="utf-8")
    written = chapter.read_bytes()
    away = run_cli("build", "--out", str(out), "--taxonomy", str(_taxonomy_without(tmp_path, "pipeline-parallel")))
    lines = chapter.read_text(encoding="utf-8").splitlines()
    where = lines.index("% (from notes pipeline-parallel)", lines.index("% surveytool: begin notes orphaned")) + 1
    assert f"{chapter}:{where}: notes of sections no longer generated (pipeline-parallel)" in away.stderr, away.stderr
    parked = regions(chapter.read_text(encoding="utf-8"))
    assert "GAMMA" not in parked["moe"] and "Last line." in parked["orphaned"]
    back = run_cli("build", "--out", str(out), check=True)
    assert "went back to pipeline-parallel, generated again" in back.stderr, back.stderr
    assert chapter.read_bytes() == written


def test_parked_text_moved_into_other_notes_with_its_header_comes_back_with_them(tmp_path):
    # As the README says to: parked text moved, header and all, into moe's notes; then moe is parked and returns.
    moved = "% (from notes pipeline-parallel)\nOn pipelines.\n"
    out, chapter, _ = _built_with_notes_in_moe(tmp_path, "On experts.\n" + moved)
    written = chapter.read_bytes()
    run_cli("build", "--out", str(out), "--taxonomy", str(_taxonomy_without(tmp_path, "moe")), check=True)
    back = run_cli("build", "--out", str(out), check=True)
    assert "went back to moe, generated again" in back.stderr and "pipeline-parallel" not in back.stderr
    assert chapter.read_bytes() == written


def test_notes_parked_by_the_previous_version_are_read_back():
    # The previous version wrote the same header and commented out only the parking region's end line.
    prose = "On B, 大.\n% surveytool: end notes orphaned\n\n"
    old = WITHOUT_B + "% surveytool: begin notes orphaned\nMine.\n% (from notes b)\nOn B, 大.\n"
    old += "% % surveytool: end notes orphaned\n\n% (from notes c)\nOn C.\n% surveytool: end notes orphaned\n"
    back = carry_over(WITH_B, old)
    assert back.returned == ("b",)
    assert regions(back.text) == {"a": "", "b": prose, "orphaned": "Mine.\n% (from notes c)\nOn C.\n"}


def test_the_theme_notes_of_a_section_renamed_with_its_old_id_as_an_alias_go_along_with_it(tmp_path):
    taxonomy = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    renamed = tmp_path / "taxonomy.toml"
    aliases = 'aliases = ["model parallelism", '
    assert taxonomy.count('id = "model-parallel"\n') == 1 and taxonomy.count(aliases) == 1
    taxonomy = taxonomy.replace('id = "model-parallel"\n', 'id = "tensor-parallel"\n')
    renamed.write_text(taxonomy.replace(aliases, aliases.replace("[", '["model-parallel", ')), encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    text = chapter.read_text(encoding="utf-8")
    themes = sorted(r for r in regions(text) if r.startswith("model-parallel/theme-"))
    assert len(themes) == 2  # the seeds' model-parallel section has two themes
    for number, theme in enumerate(themes):
        marker = f"% surveytool: begin notes {theme}\n"
        text = text.replace(marker, f"{marker}On theme {number}.\n")
    chapter.write_text(text, encoding="utf-8")
    moved = run_cli("build", "--out", str(out), "--taxonomy", str(renamed), check=True)
    written = chapter.read_text(encoding="utf-8")
    assert "% (from notes" not in written
    for number, theme in enumerate(themes):
        now = theme.replace("model-parallel/", "tensor-parallel/")
        assert regions(written)[now] == f"On theme {number}.\n"
        where = written.splitlines().index(f"% surveytool: begin notes {now}") + 1
        assert (
            f"{chapter}:{where}: your notes in {theme} moved to {now}, with their section (its alias)" in moved.stderr
        )


def test_notes_parked_for_a_section_go_back_to_it_when_it_returns_renamed_with_its_old_id_as_an_alias(tmp_path):
    taxonomy = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    blocks = re.split(r"(?=^\[\[sections\]\])", taxonomy, flags=re.M)
    without_moe, renamed = tmp_path / "without.toml", tmp_path / "renamed.toml"
    without_moe.write_text("".join(b for b in blocks if 'id = "moe"' not in b), encoding="utf-8")
    renamed.write_text(taxonomy.replace('id = "moe"\n', 'id = "sparse-moe"\n'), encoding="utf-8")
    prose = "Experts route tokens \\citep{lepikhin2021gshard}.\n"
    out, chapter, _ = _built_with_notes_in_moe(tmp_path, prose)
    run_cli("build", "--out", str(out), "--taxonomy", str(without_moe), check=True)
    assert "% (from notes moe)\n" + prose in chapter.read_text(encoding="utf-8")
    back = run_cli("build", "--out", str(out), "--taxonomy", str(renamed), check=True)
    written = chapter.read_text(encoding="utf-8")
    assert regions(written)["sparse-moe"] == prose and "% (from notes" not in written
    assert "your notes parked at the end went back to sparse-moe" in back.stderr


def _library_with_one_merge(tmp_path):
    """A .bib where 'Absorbed' is the same work as 'kept2020' (one DOI), and one other paper."""
    library = tmp_path / "refs.bib"
    entry = "@article{{{key}, author = {{Doe, Jane}}, title = {{{title}}}, journal = {{J}}, year = 2020, doi = {{{doi}}}}}\n"
    library.write_text(
        entry.format(key="kept2020", title="Pipeline Parallel Training", doi="10.1/a")
        + entry.format(key="Absorbed", title="Pipeline Parallel Training", doi="10.1/a")
        + entry.format(key="other2020", title="Sparse Experts for Routing Tokens", doi="10.1/b"),
        encoding="utf-8",
    )
    return library


def test_with_biblatex_a_patched_rebuild_names_a_citation_of_a_paper_gone_as_a_full_build_does(tmp_path):
    library = _library_with_one_merge(tmp_path)
    options = ("build", str(library), "--out", str(tmp_path / "out"), "--dialect", "biblatex", "--merge-duplicates")
    run_cli(*options, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    marker = "% surveytool: begin notes introduction\n"
    notes = "We build on \\citet{Absorbed} and \\citep{gone2020}.\n"  # an ids alias biblatex cites, and no key
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + notes), encoding="utf-8")
    for _ in range(2):  # the second rebuild patches the first: it checked no citation with biblatex
        built = run_cli(*options, check=True)
        assert "your notes cite 'gone2020', which is not in the bibliography" in built.stderr
        assert "'Absorbed', which" not in built.stderr
    assert "kept as they were" in built.stdout  # patched indeed


def test_a_citation_in_the_notes_of_a_key_merged_into_another_names_the_key_to_cite(tmp_path):
    # With BibTeX the merged key is gone from the bibliography: the note asked whether its paper left the sources.
    library = _library_with_one_merge(tmp_path)
    options = ("build", str(library), "--out", str(tmp_path / "out"), "--merge-duplicates")
    run_cli(*options, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    marker = "% surveytool: begin notes introduction\n"
    notes = "We build on \\citet{Absorbed} and \\citep{gone2020}.\n"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + notes), encoding="utf-8")
    for _ in range(2):  # a full build, then one that patches it (its views carry no aliases: entries.json does)
        built = run_cli(*options, check=True)
        assert "your notes cite 'Absorbed', which --merge-duplicates merged into 'kept2020' (cite 'kept2020'" in (
            built.stderr
        )
        assert "your notes cite 'gone2020', which is not in the bibliography" in built.stderr
    assert "kept as they were" in built.stdout  # patched indeed
    drafted = run_cli("draft", str(library), "-o", str(chapter), "--merge-duplicates", check=True)
    assert "'Absorbed', which --merge-duplicates merged into 'kept2020'" in drafted.stderr


def test_parked_notes_deleted_with_their_marker_lines_as_the_build_offers_are_no_edit_to_refuse(tmp_path):
    taxonomy = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    blocks = re.split(r"(?=^\[\[sections\]\])", taxonomy, flags=re.M)
    without_moe = tmp_path / "taxonomy.toml"
    without_moe.write_text("".join(b for b in blocks if 'id = "moe"' not in b), encoding="utf-8")
    out, chapter, _ = _built_with_notes_in_moe(tmp_path, "Experts route tokens.\n")
    away = run_cli("build", "--out", str(out), "--taxonomy", str(without_moe), check=True)
    assert "(else move them into other notes, or delete them)" in away.stderr
    text = chapter.read_text(encoding="utf-8")
    chapter.write_text(text[: text.index("\n% surveytool: begin notes orphaned\n")] + "\n", encoding="utf-8")
    again = run_cli("build", "--out", str(out), "--taxonomy", str(without_moe))
    assert again.returncode == 0, again.stderr
    assert "Experts route tokens." not in chapter.read_text(encoding="utf-8")
    assert not (out / "related_work.tex.bak").exists()
    # Any other edit is still refused, and named where it is.
    edited = chapter.read_text(encoding="utf-8").replace("\\end{figure}\n", "\\end{figure}\nMy edit.\n", 1)
    chapter.write_text(edited, encoding="utf-8")
    refused = run_cli("build", "--out", str(out), "--taxonomy", str(without_moe))
    line = edited.splitlines().index("My edit.") + 1
    assert refused.returncode == 2 and f"related_work.tex:{line}: error: was edited outside" in refused.stderr


def test_the_authors_own_text_above_the_parked_notes_stays_there_when_more_notes_are_parked():
    a, b, c = (f"% surveytool: begin notes {r}\n% surveytool: end notes {r}\n" for r in "abc")
    remark = "My own remark on what is parked.\n"
    old = (
        a
        + b.replace("b\n%", "b\nOn B.\n%")
        + c
        + f"% surveytool: begin notes orphaned\n{remark}% (from notes c)\nOn C.\n% surveytool: end notes orphaned\n"
    )
    parked = carry_over(a + c, old)  # b is gone now: its notes are parked too
    assert regions(parked.text)["orphaned"].startswith(remark) and parked.orphaned == ("b",)
    back = carry_over(a + b + c, stamp(parked.text))
    assert regions(back.text) == {"a": "", "b": "On B.\n", "c": "On C.\n", "orphaned": remark}

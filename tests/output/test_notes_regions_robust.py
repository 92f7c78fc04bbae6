"""The author's prose is never doubled, lost or overwritten: unique region names, nested markers, saves
made while a build runs, unreadable chapters, and titles that would break the chapter."""

import contextlib
import json
import re
import resource
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from helpers import compile_latex, requires_latex, run_cli

from surveytool import build as outputs
from surveytool.analysis.taxonomy import parse_taxonomy
from surveytool.build import build
from surveytool.errors import OutputError, TaxonomyError
from surveytool.options import CACHE_FOLDER
from surveytool.output.chapter_view import GENERATED_IDS
from surveytool.output.notes_regions import carry_over, edited_outside_regions, regions, stamp
from surveytool.pipeline import Options

UNCLASSIFIABLE = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"
BEGIN = re.compile(r"^% surveytool: begin notes (\S+)$", re.M)


def build_folder(tmp_path, *extra):
    source = tmp_path / "lorem.bib"
    source.write_text(UNCLASSIFIABLE, encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("build", str(source), "--out", str(out), *extra)
    assert result.returncode == 0, result.stderr
    return source, out


def write_in_region(chapter, region_id, prose):
    text = chapter.read_text(encoding="utf-8")
    marker = f"% surveytool: begin notes {region_id}\n"
    assert text.count(marker) == 1
    chapter.write_text(text.replace(marker, marker + prose), encoding="utf-8")


def test_an_unclassified_entry_gives_every_notes_region_and_label_a_name_of_its_own(tmp_path):
    source, out = build_folder(tmp_path)
    chapter = out / "related_work.tex"
    text = chapter.read_text(encoding="utf-8")
    ids = BEGIN.findall(text)
    assert "unclassified" in ids and len(ids) == len(set(ids))
    labels = re.findall(r"\\label\{([^}]*)\}", text)
    assert len(labels) == len(set(labels))
    write_in_region(chapter, "unclassified", "Lorem is not classified yet.\n")
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    rebuilt = chapter.read_text(encoding="utf-8")
    assert (
        rebuilt.count("Lorem is not classified yet.") == 1
        and regions(rebuilt)["unclassified"] == "Lorem is not classified yet.\n"
    )


@pytest.mark.parametrize("reserved", GENERATED_IDS)
def test_a_taxonomy_id_the_chapter_uses_itself_is_rejected_with_its_line(reserved):
    text = f'[[groups]]\nid = "g"\ntitle = "G"\n\n[[sections]]\nid = "{reserved}"\ntitle = "T"\nparent = "g"\n'
    with pytest.raises(TaxonomyError) as error:
        parse_taxonomy(text, "mine.toml")
    assert str(error.value).startswith(f"mine.toml:6: error: id '{reserved}' is the chapter's own")
    with pytest.raises(TaxonomyError, match="is the chapter's own"):
        parse_taxonomy(
            text.replace('id = "g"', f'id = "{reserved}"')
            .replace(f'id = "{reserved}"\ntitle = "T"', 'id = "s"\ntitle = "T"')
            .replace('parent = "g"', f'parent = "{reserved}"'),
            "mine.toml",
        )


def test_the_build_refuses_a_colliding_taxonomy_in_one_line(tmp_path):
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text('[[sections]]\nid = "introduction"\ntitle = "Introduction"\n', encoding="utf-8")
    result = run_cli("build", "--taxonomy", str(taxonomy), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"{taxonomy}:2: error: id 'introduction' is the chapter's own (its notes region and label would be taken twice) "
        "(choose another id; reserved: top, introduction, overview, orphaned, unclassified, unclassified-group)"
    ]


def test_prose_written_twice_under_one_name_before_the_fix_is_kept_once(tmp_path):
    old = stamp(
        "\\section{Unclassified}\n% surveytool: begin notes unclassified\n% surveytool: end notes unclassified\n"
        "\\subsection{Not Yet Classified}\n% surveytool: begin notes unclassified\n% surveytool: end notes unclassified\n"
    )
    old = old.replace(
        "{Unclassified}\n% surveytool: begin notes unclassified\n",
        "{Unclassified}\n% surveytool: begin notes unclassified\nFirst.\n",
    )
    assert not edited_outside_regions(old)
    new = (
        "% surveytool: begin notes unclassified-group\n% surveytool: end notes unclassified-group\n"
        "% surveytool: begin notes unclassified\n% surveytool: end notes unclassified\n"
    )
    merged = carry_over(new, old)
    assert merged.kept == ("unclassified",) and merged.text.count("First.") == 1
    assert regions(merged.text) == {"unclassified-group": "", "unclassified": "First.\n"}


def test_notes_markers_nested_in_a_notes_region_stay_the_authors_text_across_rebuilds(tmp_path):
    source, out = build_folder(tmp_path)
    chapter = out / "related_work.tex"
    nested = (
        "Intro prose.\n% surveytool: begin notes overview\nCopied overview.\n% surveytool: end notes overview\n"
        "% surveytool: begin notes gone-section\nOld section prose.\n% surveytool: end notes gone-section\n"
    )
    write_in_region(chapter, "introduction", nested)
    texts = []
    for _ in range(5):
        result = run_cli("build", str(source), "--out", str(out), "--no-reuse")
        assert result.returncode == 0, result.stderr
        texts.append(chapter.read_text(encoding="utf-8"))
    assert len(set(texts)) == 1  # byte-identical from the first rebuild on
    assert texts[-1].count("Old section prose.") == 1 and texts[-1].count("Copied overview.") == 1
    assert regions(texts[-1])["introduction"] == nested and "orphaned" not in regions(texts[-1])


def test_parked_prose_with_the_line_that_ends_the_parking_region_stays_whole_on_every_rebuild():
    fresh = stamp("% surveytool: begin notes a\n% surveytool: end notes a\n")
    old = (
        "% surveytool: begin notes gone\nMine.\n% surveytool: end notes orphaned\nMore of mine.\n"
        "% surveytool: end notes gone\n"
    )
    merged = carry_over(fresh, old)
    assert merged.orphaned == ("gone",)
    assert regions(merged.text)["orphaned"] == (
        "% (from notes gone)\nMine.\n% % surveytool: end notes orphaned\nMore of mine.\n"
    )
    assert carry_over(fresh, stamp(merged.text)).text == merged.text


@pytest.mark.parametrize("patched", [False, True], ids=["full build", "patched rebuild"])
def test_a_chapter_saved_while_the_build_runs_is_left_in_place_with_the_new_draft_beside_it(
    tmp_path, monkeypatch, patched
):
    source, out = build_folder(tmp_path)
    options = Options(sources=(source,), build_cache=out / CACHE_FOLDER if patched else None)
    build_patched, patches = outputs._build_patched, []

    def recording_patches(*args):
        patches.append(build_patched(*args))
        return patches[-1]

    monkeypatch.setattr(outputs, "_build_patched", recording_patches)
    chapter = out / "related_work.tex"
    write_in_region(chapter, "introduction", "Read by the build.\n")
    saved = chapter.read_text(encoding="utf-8").replace("Read by the build.", "Saved by the editor meanwhile.")
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file() and path != chapter}
    render_main = outputs.render_main

    def editor_saves_meanwhile(*args):
        # The chapter has been read and merged by now; the editor saves before the build moves its files in.
        chapter.write_text(saved, encoding="utf-8")
        return render_main(*args)

    monkeypatch.setattr(outputs, "render_main", editor_saves_meanwhile)
    with pytest.raises(OutputError) as refused:
        build(options, out)
    assert patches == ([] if patched else [None])  # a patched rebuild refused from inside the patch
    assert str(refused.value) == (
        f"{chapter}: error: was saved while the build ran; the build left your version in place "
        f"and wrote nothing (its new draft is in {chapter}.new: rebuild to merge your notes)"
    )
    assert chapter.read_text(encoding="utf-8") == saved
    draft = (out / "related_work.tex.new").read_text(encoding="utf-8")
    assert "Read by the build." in draft and not edited_outside_regions(draft)
    assert {
        path.name: path.read_bytes()
        for path in out.iterdir()
        if path.is_file() and path.suffix != ".new" and path != chapter
    } == before
    assert not list(out.glob(".*.tmp"))
    monkeypatch.setattr(outputs, "render_main", render_main)
    build(options, out)  # after a refused patch, in full: the snapshot describes files never moved in
    assert regions(chapter.read_text(encoding="utf-8"))["introduction"] == "Saved by the editor meanwhile.\n"


def test_an_unreadable_chapter_is_one_line_and_exit_2(tmp_path):
    source = tmp_path / "lorem.bib"
    source.write_text(UNCLASSIFIABLE, encoding="utf-8")
    out = tmp_path / "out"
    (out / "related_work.tex").mkdir(parents=True)
    for command in (
        ["build", str(source), "--out", str(out)],
        ["draft", str(source), "-o", str(out / "related_work.tex")],
    ):
        result = run_cli(*command)
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip().splitlines() == [
            f"{out / 'related_work.tex'}: error: is a directory, not a file (move it away to have it made anew)"
        ]


def test_a_chapter_that_links_to_a_device_is_refused_before_a_byte_is_read(tmp_path):
    # An out folder can come from someone else: /dev/zero was read without end, gigabytes a second.
    source, out = build_folder(tmp_path)
    for name in ("related_work.tex", "main.tex"):
        (out / name).rename(out / f"{name}.kept")
        (out / name).symlink_to("/dev/zero")
        result = subprocess.run(
            [sys.executable, "-m", "surveytool", "build", str(source), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)),
        )
        assert (result.returncode, result.stderr.strip().splitlines()) == (
            2,
            [f"{out / name}: error: is not a regular file (move it away to have it made anew)"],
        )
        (out / name).unlink()
        (out / f"{name}.kept").rename(out / name)


class CrossrefWithBlankLines(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps(
            {
                "status": "ok",
                "message": {
                    "DOI": "10.1145/3458817.3476209",
                    "type": "proceedings-article",
                    "title": ["Efficient Training\n\n\nof Language Models"],
                    "author": [{"given": "Ann", "family": "Lee"}],
                    "container-title": ["Proceedings\n\nof SC"],
                    "issued": {"date-parts": [[2021]]},
                },
            }
        ).encode()
        self.send_response(200 if self.path.startswith("/crossref/works/") else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):
            self.wfile.write(body)

    def log_message(self, *args):
        pass


@requires_latex
def test_blank_lines_in_taxonomy_and_online_titles_do_not_break_compilation(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), CrossrefWithBlankLines)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        config = tmp_path / "surveytool.toml"
        config.write_text(
            f'[online]\ncontact = "tests@example.org"\nopenalex_url = "{base}/openalex"\n'
            f'crossref_url = "{base}/crossref"\narxiv_url = "{base}/arxiv"\n'
            "timeout = 2\nretries = 0\nbackoff = 0.01\nmin_interval = 0\n",
            encoding="utf-8",
        )
        taxonomy = tmp_path / "taxonomy.toml"
        taxonomy.write_text(
            'title = """Related\n\nWork"""\n[[groups]]\nid = "training"\ntitle = """Training\n\n at Scale"""\n'
            '[[sections]]\nid = "efficiency"\ntitle = """Efficient\n\n\nTraining"""\nparent = "training"\n'
            '[sections.keywords]\n"training" = 3\n',
            encoding="utf-8",
        )
        ids = tmp_path / "ids.txt"
        ids.write_text("10.1145/3458817.3476209\n", encoding="utf-8")
        out = tmp_path / "out"
        result = run_cli(
            "build",
            str(ids),
            "--online",
            "--config",
            str(config),
            "--cache",
            str(tmp_path / "cache.sqlite"),
            "--taxonomy",
            str(taxonomy),
            "--out",
            str(out),
        )
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode in (0, 1), result.stderr
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    assert "\\emph{Efficient Training of Language Models}" in chapter
    assert "{Efficient Training}" in chapter and "{Training at Scale}" in chapter
    compiled = compile_latex(out)
    assert compiled.returncode == 0, compiled.stdout[-3000:]


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"], ids=["no-mark", "utf8-mark"])
@pytest.mark.parametrize("newline", [b"\r\n", b"\r"], ids=["crlf", "cr"])
def test_a_chapter_saved_with_windows_line_endings_or_a_mark_keeps_its_prose_and_its_line_endings(
    tmp_path, bom, newline
):
    source, out = build_folder(tmp_path)
    chapter = out / "related_work.tex"
    write_in_region(chapter, "unclassified", "Lorem is not classified yet.\nA second line.\n")
    chapter.write_bytes(bom + chapter.read_bytes().replace(b"\n", newline))
    source.write_text(
        UNCLASSIFIABLE + UNCLASSIFIABLE.replace("lorem2020", "ipsum2021").replace("2020", "2021"), encoding="utf-8"
    )
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    data = chapter.read_bytes()
    assert data.startswith(bom + b"% surveytool: checksum ")
    assert b"ipsum2021" in data  # rebuilt, not left alone
    lines = data[len(bom) :].split(newline)
    assert not any(b"\r" in line or b"\n" in line for line in lines)  # every line ends as the author's did
    assert lines.count(b"Lorem is not classified yet.") == 1 and lines.count(b"A second line.") == 1
    assert regions(data[len(bom) :].decode("utf-8").replace(newline.decode(), "\n"))["unclassified"] == (
        "Lorem is not classified yet.\nA second line.\n"
    )
    # And the next build takes its own output as it is: no edit outside the regions, nothing lost.
    third = run_cli("build", str(source), "--out", str(out))
    assert third.returncode == 0, third.stderr
    assert chapter.read_bytes() == data


def test_forcing_over_a_crlf_chapter_keeps_the_old_bytes_in_the_backup(tmp_path):
    source, out = build_folder(tmp_path)
    chapter = out / "related_work.tex"
    edited = chapter.read_bytes().replace(b"\n", b"\r\n") + b"An edit outside the regions.\r\n"
    chapter.write_bytes(edited)
    assert run_cli("build", str(source), "--out", str(out)).returncode == 2
    assert run_cli("build", str(source), "--out", str(out), "--force").returncode == 0
    assert (out / "related_work.tex.bak").read_bytes() == edited


def test_a_chapter_saved_as_latin_1_keeps_its_notes_and_says_it_is_written_in_utf_8(tmp_path):
    source, out = build_folder(tmp_path)
    chapter = out / "related_work.tex"
    write_in_region(chapter, "unclassified", "Café naïve notes.\n")
    chapter.write_bytes(chapter.read_text(encoding="utf-8").encode("latin-1"))
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "related_work.tex: was saved as " in again.stderr and "written in UTF-8" in again.stderr
    assert "Café naïve notes." in chapter.read_text(encoding="utf-8")
    third = run_cli("build", str(source), "--out", str(out))  # UTF-8 now: nothing more to say
    assert "was saved as" not in third.stderr


def test_a_byte_that_is_not_utf_8_in_a_utf_8_chapter_is_written_in_utf_8_and_named_with_its_line(tmp_path):
    source, out = build_folder(tmp_path)
    chapter = out / "related_work.tex"
    write_in_region(chapter, "unclassified", "Naïve notes.\nA pasted café.\n")
    text = chapter.read_text(encoding="utf-8")
    line = text.splitlines().index("A pasted café.") + 1
    chapter.write_bytes(text.encode("utf-8").replace("café".encode(), b"caf\xe9"))  # one Latin-1 byte pasted in
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert f"related_work.tex: was saved with 1 byte(s) that are not UTF-8, the first on line {line}" in again.stderr
    assert regions(chapter.read_text(encoding="utf-8"))["unclassified"] == "Naïve notes.\nA pasted café.\n"
    assert "not UTF-8" not in run_cli("build", str(source), "--out", str(out)).stderr

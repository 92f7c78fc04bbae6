"""`surveytool draft --llm` end to end: a real loopback chat server, the seeds, and a chapter that compiles.

The model answers each theme with a sentence citing the theme's own paper, one citing a paper that is not
in the bibliography, and one citing a paper of another theme; the communication section gets an answer
that is not a chat completion. Only the first kind of sentence may reach the chapter.
"""

import json
import re
import shutil
import time

import pytest
from helpers import ROOT, compile_latex, run_cli
from loopback import FakeServices, serve

INVENTED = "vaswani2017attention"


class Model(FakeServices):
    routes: dict = {}
    seen: list = []
    headers_seen: list = []
    bodies_seen: list = []
    other_theme_key = ""

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length))
        type(self).bodies_seen.append(request)
        prompt = request["messages"][-1]["content"]
        keys = re.findall(r"^key: (\S+)$", prompt, re.M)
        if "Section: Communication" in prompt:
            body, status = "<html>upstream timed out</html>", 200
        else:
            stranger = Model.other_theme_key if Model.other_theme_key not in keys else "nobody2020none"
            content = (
                f"These works scale training \\cite{{{keys[0]}}}. "
                f"Attention is all one needs \\cite{{{INVENTED}}}. "
                f"A paper of another theme agrees \\cite{{{stranger}}}."
            )
            body, status = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    Model.bodies_seen = []
    seeds = sorted(str(p) for p in (ROOT / "seeds").glob("*.txt"))
    run_cli(
        "build", "--out", str(tmp_path / "out"), "--catalog", str(ROOT / "seeds" / "catalog.bib"), *seeds, check=True
    )
    Model.other_theme_key = "lepikhin2021gshard"  # an moe paper, cited by the model in every other theme
    return tmp_path, ["--catalog", str(ROOT / "seeds" / "catalog.bib"), *seeds]


def suggested_blocks(chapter: str) -> list[tuple[str, str]]:
    """(the block's own stubs, the suggested text) for every suggestion in the chapter."""
    found = []
    for match in re.finditer(
        r"% Move what you keep into the notes above: this text is regenerated.\n(.*?)\n\n", chapter, re.S
    ):
        rest = chapter[match.end() :]
        stop = re.search(r"^(\\paragraph|\\(sub)*section|% surveytool: begin notes)", rest, re.M)
        found.append((rest[: stop.start() if stop else len(rest)], match[1]))
    return found


def test_draft_llm_writes_only_sentences_citing_the_themes_own_papers(project):
    tmp_path, sources = project
    chapter_path = tmp_path / "out" / "related_work.tex"
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        result = run_cli("draft", "--llm", "-o", str(chapter_path), *sources, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    chapter = chapter_path.read_text(encoding="utf-8")
    blocks = suggested_blocks(chapter)
    assert len(blocks) >= 5 and len(Model.bodies_seen) >= 6
    for stubs, suggestion in blocks:
        cited = set(re.findall(r"\\cite[pt]?\{([^}]*)\}", suggestion))
        assert cited and cited <= set(re.findall(r"\\citet\{([^}]*)\}", stubs)), (suggestion, stubs)
    assert INVENTED not in chapter
    assert "[hallucinated-citation]" in result.stderr and INVENTED in result.stderr
    assert "[llm-failed]" in result.stderr and "Communication" in result.stderr
    assert re.search(r"suggested paragraphs:.*; (\d+) sentence\(s\) dropped: \1 for citing a key", result.stdout)
    dropped = [line for line in result.stderr.splitlines() if "[hallucinated-citation]" in line]
    assert dropped and all("\\\\" not in line for line in dropped)  # quoted as written, not as a repr
    # Every request held one theme's papers only: the model never saw the bibliography.
    assert all(len(re.findall(r"^key: ", b["messages"][-1]["content"], re.M)) <= 7 for b in Model.bodies_seen)

    # Offline and without --llm, the same chapter again: suggestions come from the cache.
    prose = "My own words about these papers.\n"
    marker = "% surveytool: begin notes model-parallel\n"
    chapter_path.write_text(chapter.replace(marker, marker + prose), encoding="utf-8")
    again = run_cli("draft", "-o", str(chapter_path), *sources, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    rebuilt = chapter_path.read_text(encoding="utf-8")
    assert rebuilt.replace(marker + prose, marker).split("\n", 1)[1] == chapter.split("\n", 1)[1]
    assert marker + prose + "% surveytool: end notes model-parallel\n" in rebuilt
    # A theme whose answer is not cached is counted: it was left out without a word.
    other = tmp_path / "elsewhere" / "related_work.tex"
    (tmp_path / "elsewhere" / ".surveytool-cache").mkdir(parents=True)
    shutil.copy(chapter_path.parent / ".surveytool-cache" / "llm-answers", tmp_path / "elsewhere" / ".surveytool-cache")
    missing = run_cli("draft", "--no-themes", "-o", str(other), *sources, cwd=tmp_path)
    assert re.search(
        r"suggested paragraphs: (\d+) of \d+ themes .*, \1 from the cache, 0 failed, \d+ not in the cache "
        r"\(draft --llm asks for them\)\)",
        missing.stdout,
    ), missing.stdout
    compiled = compile_latex(tmp_path / "out")
    assert compiled.returncode == 0, compiled.stdout[-3000:]

    # A build writes no suggestions: it says so, and keeps the notes (they left without a word before).
    built = run_cli("build", *sources, "--out", "out", cwd=tmp_path)
    assert f"{len(blocks)} paragraph(s) suggested by draft --llm left out" in built.stderr, built.stderr
    after = chapter_path.read_text(encoding="utf-8")
    assert "suggested by draft --llm" not in after and marker + prose in after


def test_draft_without_llm_sends_nothing_and_llm_without_settings_is_a_usage_error(project):
    tmp_path, sources = project
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        plain = run_cli("draft", "-o", str(tmp_path / "out" / "related_work.tex"), *sources, cwd=tmp_path)
        assert plain.returncode == 0 and Model.bodies_seen == []
        assert "suggested by draft --llm" not in (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
    (tmp_path / "surveytool.toml").unlink()
    bare = run_cli("draft", "--llm", "-o", str(tmp_path / "c.tex"), *sources, cwd=tmp_path)
    assert bare.returncode == 2 and "[llm]" in bare.stderr and "Traceback" not in bare.stderr
    shutil.rmtree(tmp_path / "out")


def test_a_key_written_in_the_settings_is_refused_with_its_line(project):
    tmp_path, sources = project
    (tmp_path / "surveytool.toml").write_text('[llm]\nmodel = "m"\napi_key = "sk-secret"\n')
    result = run_cli("draft", "--llm", "-o", str(tmp_path / "c.tex"), *sources, cwd=tmp_path)
    assert result.returncode == 2 and "surveytool.toml:3" in result.stderr and "sk-secret" not in result.stderr


class Broken(FakeServices):
    routes: dict = {}
    seen: list = []
    headers_seen: list = []
    bodies_seen: list = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).bodies_seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html>upstream timed out</html>")


def test_a_model_that_keeps_failing_is_given_up_on_and_the_summary_counts_what_was_sent(project):
    tmp_path, sources = project
    Broken.bodies_seen = []
    with serve(Broken) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        result = run_cli("draft", "--llm", "-o", str(tmp_path / "out" / "related_work.tex"), *sources, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sent = len(Broken.bodies_seen)
    assert sent == 3  # three failures in a row, then no more requests
    summary = re.search(
        r"suggested paragraphs: 0 of (\d+) themes \((\d+) asked, 0 from the cache, (\d+) failed", result.stdout
    )
    assert summary and (int(summary[2]), int(summary[3])) == (sent, sent), result.stdout
    themes = int(summary[1])
    assert f", {themes - sent} not asked after the model was given up on)" in result.stdout
    failed = [line for line in result.stderr.splitlines() if "[llm-failed]" in line]
    assert len(failed) == sent + 1  # one per failed request, and one for every theme left unasked
    assert sum(f"{themes - sent} theme(s) not asked: the model was given up on" in line for line in failed) == 1


class Slow(FakeServices):
    routes: dict = {}
    seen: list = []
    headers_seen: list = []
    bodies_seen: list = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(3)


def test_themes_left_when_the_time_budget_is_spent_are_not_blamed_on_a_failing_model(project):
    # The summary said "12 not asked after the model kept failing" when one request had timed out and the run's
    # budget was spent: the user looked for a broken server.
    tmp_path, sources = project
    with serve(Slow) as base:
        (tmp_path / "surveytool.toml").write_text(
            f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\ntimeout = 1\nretries = 0\nbudget = 1.5\n'
        )
        result = run_cli("draft", "--llm", "-o", str(tmp_path / "out" / "related_work.tex"), *sources, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "time budget of 1.5 s is spent" in result.stderr and "kept failing" not in result.stdout
    assert re.search(
        r"\((\d) asked, 0 from the cache, \1 failed, \d+ not asked after the model was given up on\)", result.stdout
    )


JABREF = """@inproceedings{shazeer2017,
  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},
  author = {Noam Shazeer}, booktitle = {ICLR}, year = 2017, groups = {memory},
}
@misc{pre,
  title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},
  author = {Yanping Huang}, eprint = {1811.06965}, year = 2019,
}
@inproceedings{pub,
  title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},
  author = {Yanping Huang}, eprint = {1811.06965}, booktitle = {NeurIPS}, year = 2019, groups = {pipeline-parallel},
}
"""


def test_draft_takes_the_build_options_that_shape_the_chapter_and_writes_the_chapter_build_writes(tmp_path):
    # A JabRef library keeps its sections in groups and cites one work under two keys: without these options
    # draft tagged every entry itself and cited both keys, so draft --llm rewrote a chapter unlike the build's.
    (tmp_path / "lib.bib").write_text(JABREF, encoding="utf-8")
    chosen = ["--tags-field", "groups", "--merge-duplicates", "--dialect", "biblatex", "--key-formula", "auth+year"]
    run_cli("build", "lib.bib", "--out", "out", "-q", *chosen, cwd=tmp_path, check=True)
    (tmp_path / "mine").mkdir()
    run_cli("draft", "lib.bib", "-o", "mine/related_work.tex", "-q", *chosen, cwd=tmp_path, check=True)
    built = (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
    assert (tmp_path / "mine" / "related_work.tex").read_text(encoding="utf-8") == built
    assert "\\citet{pub}" not in built  # merged into pre
    plain = run_cli("draft", "lib.bib", "-o", "-", "-q", cwd=tmp_path, check=True).stdout
    assert plain != built
    wrong = run_cli("draft", "lib.bib", "-o", "-", "--dialect", "latex", cwd=tmp_path)
    assert wrong.returncode == 2 and "--dialect" in wrong.stderr and "Traceback" not in wrong.stderr


def test_two_chapters_beside_each_other_keep_each_others_cached_answers(project):
    # Each draft kept only the answers its own chapter used: a second chapter in the folder (or the same one drafted
    # with --no-themes) dropped the first one's, and its next offline draft lost suggestions without a word.
    tmp_path, sources = project
    first, second = tmp_path / "out" / "related_work.tex", tmp_path / "out" / "flat.tex"
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        run_cli("draft", "--llm", "-o", str(first), *sources, "-q", cwd=tmp_path, check=True)
        drafted = first.read_text(encoding="utf-8")
        run_cli("draft", "--llm", "--no-themes", "-o", str(second), *sources, "-q", cwd=tmp_path, check=True)
    again = run_cli("draft", "-o", str(first), *sources, cwd=tmp_path)
    assert again.returncode == 0 and "0 asked" in again.stdout, again.stdout
    assert first.read_text(encoding="utf-8") == drafted


def test_answers_are_kept_when_the_chapter_is_then_refused(project):
    # The answers were kept only after the chapter was written: a chapter edited outside its notes was refused
    # after every theme had been asked, and each rerun asked (and paid for) them all again.
    tmp_path, sources = project
    chapter = tmp_path / "out" / "related_work.tex"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("\\section", "My edit \\section", 1))
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        refused = run_cli("draft", "--llm", "-o", str(chapter), *sources, cwd=tmp_path)
        assert refused.returncode == 2 and "edited outside its notes" in refused.stderr, refused.stderr
        asked = len(Model.bodies_seen)
        forced = run_cli("draft", "--llm", "--force", "-o", str(chapter), *sources, cwd=tmp_path)
    assert forced.returncode == 0 and asked > 0
    assert re.search(r"suggested paragraphs: .*\(1 asked, \d+ from the cache, 1 failed\)", forced.stdout), forced.stdout


def test_a_key_written_where_its_variables_name_belongs_is_not_shown(project):
    # A Groq or Together key ("gsk_..." letters, digits and _) reads as a variable's name: the error said
    # "the environment variable gsk_... is not set (export gsk_...=<your key>)", printing the key twice.
    tmp_path, sources = project
    (tmp_path / "surveytool.toml").write_text('[llm]\nmodel = "m"\napi_key_env = "gsk_8fQxT2secretKEY99"\n')
    result = run_cli("draft", "--llm", "-o", str(tmp_path / "c.tex"), *sources, cwd=tmp_path)
    assert result.returncode == 2 and "is it the key itself?" in result.stderr, result.stderr
    assert "secret" not in result.stderr + result.stdout and "Traceback" not in result.stderr
    (tmp_path / "surveytool.toml").write_text('[llm]\nmodel = "m"\napi_key_env = "MY_LLM_KEY"\n')
    unset = run_cli("draft", "--llm", "-o", str(tmp_path / "c.tex"), *sources, cwd=tmp_path)
    assert unset.returncode == 2 and "the environment variable MY_LLM_KEY (named by" in unset.stderr


def test_a_suggestion_taken_into_the_notes_is_not_written_again(project):
    # "Move what you keep into the notes above": a draft wrote it again below them, so the chapter printed it twice.
    tmp_path, sources = project
    chapter_path = tmp_path / "out" / "related_work.tex"
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        run_cli("draft", "--llm", "-o", str(chapter_path), *sources, "-q", cwd=tmp_path, check=True)
    chapter = chapter_path.read_text(encoding="utf-8")
    taken = re.search(
        r"% surveytool: begin notes (\S+)\n(% surveytool: end notes \1\n\n% surveytool: suggested by draft --llm.*?\n"
        r"% Move what you keep.*?\n)(.*?)\n\n",
        chapter,
        re.S,
    )
    assert taken, chapter
    region, sentence = taken[1], taken[3]
    kept = chapter.replace(taken[0], f"% surveytool: begin notes {region}\n{sentence}\n{taken[2]}{sentence}\n\n", 1)
    chapter_path.write_text(kept, encoding="utf-8")
    again = run_cli("draft", "-o", str(chapter_path), *sources, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    rebuilt = chapter_path.read_text(encoding="utf-8")
    assert rebuilt.count(sentence) == 1 and f"begin notes {region}\n{sentence}\n% surveytool: end" in rebuilt
    assert rebuilt.count("suggested by draft --llm") == chapter.count("suggested by draft --llm") - 1
    assert ", 1 already in your notes" in again.stdout, again.stdout


def test_a_chapter_drafted_onto_stdout_keeps_its_answers_in_the_current_folder(project):
    # draft --llm -o - kept the answers for the run only: every run asked (and paid for) each theme again, and
    # draft -o - without --llm never showed a suggestion.
    tmp_path, sources = project
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        first = run_cli("draft", "--llm", "-o", "-", *sources, cwd=tmp_path, check=True)
        asked = len(Model.bodies_seen)
        second = run_cli("draft", "--llm", "-o", "-", *sources, cwd=tmp_path, check=True)
        assert asked > 0 and len(Model.bodies_seen) == asked + 1  # the one that failed (Communication) alone
    assert (tmp_path / ".surveytool-cache" / "llm-answers").is_file()
    assert suggested_blocks(first.stdout) and second.stdout == first.stdout
    assert re.search(r"suggested paragraphs: .*\(1 asked, \d+ from the cache, 1 failed\)", second.stderr)
    offline = run_cli("draft", "-o", "-", *sources, cwd=tmp_path, check=True)
    assert offline.stdout == first.stdout
    # The chapter written into the current folder, as draft does by default, shares them.
    run_cli("draft", *sources, cwd=tmp_path, check=True)
    assert suggested_blocks((tmp_path / "related_work.tex").read_text(encoding="utf-8")) == suggested_blocks(
        first.stdout
    )


def test_a_chapter_drafted_onto_dev_stdout_keeps_its_answers_in_the_current_folder(project):
    # -o /dev/stdout kept them in /dev/.surveytool-cache: a folder made in /dev for root, and for anyone else
    # answers never kept, so every run asked (and paid for) each theme again.
    tmp_path, sources = project
    with serve(Model) as base:
        (tmp_path / "surveytool.toml").write_text(f'[llm]\nbase_url = "{base}/v1"\nmodel = "test-model"\n')
        first = run_cli("draft", "--llm", "-o", "/dev/stdout", *sources, cwd=tmp_path, check=True)
    assert (tmp_path / ".surveytool-cache" / "llm-answers").is_file()
    offline = run_cli("draft", "-o", "/dev/stdout", *sources, cwd=tmp_path, check=True)
    assert suggested_blocks(first.stdout) and suggested_blocks(offline.stdout) == suggested_blocks(first.stdout)


def test_a_key_over_plain_http_to_the_internet_is_a_usage_error_before_anything_is_sent(project, monkeypatch):
    tmp_path, sources = project
    monkeypatch.setenv("MY_LLM_KEY", "sk-secret-0123456789")
    (tmp_path / "surveytool.toml").write_text(
        '[llm]\nbase_url = "http://8.8.8.8/v1"\nmodel = "m"\napi_key_env = "MY_LLM_KEY"\n'
    )
    result = run_cli("draft", "--llm", "-o", "out/related_work.tex", *sources, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "would travel unencrypted" in result.stderr and "surveytool.toml" in result.stderr
    assert "sk-secret" not in result.stderr + result.stdout

"""Grounded drafting end to end against a loopback model: only sentences citing the theme's papers survive."""

import json
import re

import pytest
from loopback import FakeServices, serve

from surveytool.drafting.answer_cache import CACHE_NAME, AnswerCache
from surveytool.drafting.grounded import (
    HALLUCINATED,
    MALFORMED,
    DraftTheme,
    ThemePaper,
    build_messages,
    check_answer,
    draft_theme,
)
from surveytool.drafting.llm_client import LlmClient, answer_key
from surveytool.drafting.llm_settings import LlmSettings
from surveytool.text.latex import escape_text


class Model(FakeServices):
    routes: dict = {}
    seen: list = []
    headers_seen: list = []
    bodies_seen: list = []


@pytest.fixture(autouse=True)
def own_cache_key(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    Model.seen, Model.headers_seen, Model.bodies_seen = [], [], []


THEME = DraftTheme(
    "pipeline",
    "pipeline schedules",
    (
        ThemePaper("huang2019gpipe", "GPipe: Efficient Training of Giant Neural Networks", 2019, "Micro-batches..."),
        ThemePaper("narayanan2019pipedream", "PipeDream: Generalized Pipeline Parallelism", 2019, "1F1B schedule."),
    ),
    "Pipeline parallelism",
)
BIBLIOGRAPHY = {"huang2019gpipe", "narayanan2019pipedream", "shoeybi2019megatron"}
SETTINGS = LlmSettings(model="test-model", retries=0, timeout=2)


def chat(content: str) -> str:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})


# Commands the rebuilt text may hold: citations, and the spellings that make a character print literally.
SAFE_COMMANDS = {"cite", "citep", "citet", "textbackslash", "textbraceleft", "textbraceright", "textasciicircum"}
SAFE_COMMANDS |= {"textasciitilde", "textless", "textgreater", "textbar", "stchar"}


def assert_inert(latex: str) -> None:
    """Nothing in ``latex`` acts but its citations: every command is a known spelling, every special is escaped."""
    assert set(re.findall(r"\\([A-Za-z]+)", latex)) <= SAFE_COMMANDS, latex
    without_cites = re.sub(r"~?\\cite[pt]?\{[^{}\\]*\}", "", latex)
    assert not re.search(r"(?<!\\)[%&#$_^~]", without_cites), latex
    assert latex.count("{") == latex.count("}")


MIXED = (
    "GPipe splits a network into stages and pipelines micro-batches~\\citep{huang2019gpipe}. "
    "Megatron instead splits each layer \\cite{shoeybi2019megatron}. "
    "PipeDream keeps 30\\% more weights & stashes them \\citet{narayanan2019pipedream}. "
    "Both are beaten by ZeRO \\cite{rajbhandari2020zero}. "
    "Huang et al. \\cite{huang2019gpipe, narayanan2019pipedream} compare \\input{/etc/passwd} schedules. "
    "A broken one \\cite{huang2019gpipe ends here."
)


def test_only_sentences_citing_the_themes_papers_survive_and_the_others_are_reported():
    text, kept, rejections = check_answer(MIXED, {p.key for p in THEME.papers}, BIBLIOGRAPHY)
    assert text.splitlines() == [
        "GPipe splits a network into stages and pipelines micro-batches~\\citep{huang2019gpipe}.",
        "PipeDream keeps 30\\% more weights \\& stashes them \\citet{narayanan2019pipedream}.",
        "Huang et al. \\cite{huang2019gpipe,narayanan2019pipedream} compare "
        "\\textbackslash{}input\\{/etc/passwd\\} schedules.",
    ]
    assert kept == 3
    assert [(r.kind, r.key) for r in rejections] == [
        (HALLUCINATED, "shoeybi2019megatron"),  # in the bibliography, but another theme's
        (HALLUCINATED, "rajbhandari2020zero"),  # in no bibliography at all
        (MALFORMED, ""),
    ]
    assert "not one of this theme's papers" in rejections[0].reason
    assert "not in the bibliography" in rejections[1].reason
    assert rejections[1].sentence == "Both are beaten by ZeRO \\cite{rajbhandari2020zero}."
    assert_inert(text)


@pytest.mark.parametrize(
    "written",
    ["\\cite", "\\citep[see]{}", "\\citet{a{b}}", "\\cite{huang2019gpipe,}", "\\fullcite{huang2019gpipe}"],
)
def test_a_citation_that_cannot_be_read_drops_its_sentence(written):
    text, kept, rejections = check_answer(f"It works {written} well.", {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert (text, kept) == ("", 0) and [r.kind for r in rejections] == [MALFORMED]


def test_a_malformed_citation_is_quoted_as_the_model_wrote_it():
    # A repr doubled the backslash ('\\cite{...') while the sentence after it was quoted as written.
    _, _, [rejection] = check_answer("Broken \\cite{huang2019gpipe here.", {"huang2019gpipe"}, BIBLIOGRAPHY)
    message = rejection.as_finding("pipeline", "schedules").message
    assert "\\\\" not in message
    assert message.endswith(
        "dropped, '\\cite{huang2019gpipe here.': its brace is never closed: 'Broken \\cite{huang2019gpipe here.'"
    )


def test_biblatex_citations_and_optional_arguments_become_the_chapters_natbib_commands():
    answer = "As \\textcite[p.~4]{huang2019gpipe} show, it scales \\parencite*[see][]{huang2019gpipe}."
    text, _, rejections = check_answer(answer, {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert text == "As \\citet{huang2019gpipe} show, it scales \\citep{huang2019gpipe}." and rejections == []


def test_the_prompt_holds_the_themes_papers_and_nothing_else():
    [system, user] = build_messages(THEME)
    assert "\\cite{key}" in system["content"]
    assert "key: huang2019gpipe" in user["content"] and "key: narayanan2019pipedream" in user["content"]
    assert "shoeybi2019megatron" not in user["content"]


def test_drafting_asks_once_then_rebuilds_from_the_cache_offline_with_the_same_text(tmp_path):
    Model.routes = {"/v1/chat/completions": [(200, {}, chat(MIXED), 0)]}
    folder = tmp_path / "cache"
    with serve(Model) as base:
        settings = LlmSettings(**{**SETTINGS.__dict__, "base_url": f"{base}/v1"})
        cache = AnswerCache(folder)
        first = draft_theme(THEME, BIBLIOGRAPHY, cache, settings, LlmClient(settings, environ={}))
        assert cache.save() == "" and (folder / CACHE_NAME).is_file()
        again = draft_theme(THEME, BIBLIOGRAPHY, AnswerCache(folder), settings, LlmClient(settings, environ={}))
    offline = draft_theme(THEME, BIBLIOGRAPHY, AnswerCache(folder), settings, client=None)
    assert len(Model.seen) == 1  # the second and third drafts sent nothing
    assert (first.source, again.source, offline.source) == ("model", "cache", "cache")
    assert first.text == again.text == offline.text and first.sentences_kept == 3
    assert [f.check for f in offline.findings()] == [HALLUCINATED, HALLUCINATED, MALFORMED]


def test_without_a_client_and_without_a_cached_answer_nothing_is_sent_and_nothing_is_written(tmp_path):
    Model.routes = {"/": [(200, {}, chat(MIXED), 0)]}
    with serve(Model):
        draft = draft_theme(THEME, BIBLIOGRAPHY, AnswerCache(tmp_path / "cache"), SETTINGS, client=None)
    assert (draft.source, draft.text, Model.seen) == ("none", "", [])


def test_a_cache_file_that_was_tampered_with_is_not_read(tmp_path):
    folder = tmp_path / "cache"
    cache = AnswerCache(folder)
    cache.put("k", "An answer \\cite{huang2019gpipe}.")
    cache.save()
    data = bytearray((folder / CACHE_NAME).read_bytes())
    data[-3] ^= 1
    (folder / CACHE_NAME).write_bytes(bytes(data))
    reread = AnswerCache(folder)
    assert reread.get("k") is None and "checksum" in reread.problem


@pytest.mark.parametrize(
    "body",
    ["not json", json.dumps({"choices": []}), "[" * 100_000],
    ids=["not-json", "empty-choices", "deep"],
)
def test_a_malformed_answer_is_a_failed_draft_that_is_neither_written_nor_cached(tmp_path, body):
    Model.routes = {"/": [(200, {}, body, 0)]}
    with serve(Model) as base:
        settings = LlmSettings(**{**SETTINGS.__dict__, "base_url": f"{base}/v1"})
        cache = AnswerCache(tmp_path / "cache")
        draft = draft_theme(THEME, BIBLIOGRAPHY, cache, settings, LlmClient(settings, environ={}))
    assert (draft.source, draft.text, len(cache)) == ("failed", "", 0)
    assert [f.check for f in draft.findings()] == ["llm-failed"]


def test_hostile_prose_comes_out_inert_latex():
    answer = (
        "It runs \\write18{rm -rf /} and $x^2$ with 100% of #1 & ~tildes_under^ {braces} "
        "\\catcode`\\%=12 \u00e9t\u00e9 \x01\x0c <b>html</b> | bars \\cite{huang2019gpipe}."
    )
    text, kept, _ = check_answer(answer, {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert kept == 1 and text.endswith("\\cite{huang2019gpipe}.")
    assert_inert(text)


@pytest.mark.parametrize("run", ["^" * 12_000, "\\" * 12_000, "\U0001f680" * 15_000, "word " * 3_999])
def test_a_long_answer_is_written_on_lines_tex_can_read(run):
    # Escaping makes a caret 18 characters: one sentence of an answer under the 20,000-character limit made
    # a line of 216,000, and TeX stops at 200,000 ("Unable to read an entire line"); the chapter did not compile.
    answer = f"Carets {run} scale training \\cite{{huang2019gpipe}}."
    text, kept, _ = check_answer(answer, {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert kept == 1
    assert max(len(line) for line in text.split("\n")) <= 2_100
    assert_inert(text)
    # Broken at spaces and after braces only: nothing but white space was added or taken.
    one_line = escape_text(" ".join(f"Carets {run} scale training ".split())) + "\\cite{huang2019gpipe}."
    assert re.sub(r"\s", "", text) == re.sub(r"\s", "", one_line)


@pytest.mark.parametrize(
    "content",
    ["", "  \n ", "```\n```", "I'm sorry, but I cannot help with that."],
    ids=["empty", "blank", "fence", "no-cite"],
)
def test_an_answer_citing_nothing_is_a_failed_draft_that_is_not_cached_so_the_next_run_asks_again(tmp_path, content):
    # An empty answer was cached as a good one: every later draft --llm took it from the cache and never asked
    # again, without a word. A refusal was written as the theme's suggestion, "every citation was checked".
    Model.routes = {"/": [(200, {}, chat(content), 0), (200, {}, chat(MIXED), 0)]}
    folder = tmp_path / "cache"
    with serve(Model) as base:
        settings = LlmSettings(**{**SETTINGS.__dict__, "base_url": f"{base}/v1"})
        cache = AnswerCache(folder)
        failed = draft_theme(THEME, BIBLIOGRAPHY, cache, settings, LlmClient(settings, environ={}))
        cache.save()
        again = draft_theme(THEME, BIBLIOGRAPHY, AnswerCache(folder), settings, LlmClient(settings, environ={}))
    assert (failed.source, failed.text, len(cache)) == ("failed", "", 0)
    assert [f.check for f in failed.findings()] == ["llm-failed"]
    assert (again.source, again.sentences_kept, len(Model.seen)) == ("model", 3, 2)


def test_what_is_left_of_an_answer_citing_none_of_the_themes_papers_is_not_written():
    # "Sure!" was written alone, as the theme's suggestion, once the sentence citing an invented paper was dropped.
    answer = "Sure! Here is the paragraph. Transformers changed everything \\cite{vaswani2017}."
    text, kept, rejections = check_answer(answer, {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert (text, kept, [r.key for r in rejections]) == ("", 0, ["vaswani2017"])
    text, kept, _ = check_answer("Sure! It works \\cite{huang2019gpipe}.", {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert (text, kept) == ("Sure!\nIt works \\cite{huang2019gpipe}.", 2)


def test_an_answer_with_a_byte_order_mark_is_read():
    Model.routes = {"/": [(200, {}, "\ufeff" + chat("It works \\cite{huang2019gpipe}."), 0)]}
    with serve(Model) as base:
        settings = LlmSettings(**{**SETTINGS.__dict__, "base_url": f"{base}/v1"})
        draft = draft_theme(THEME, BIBLIOGRAPHY, AnswerCache(None), settings, LlmClient(settings, environ={}))
    assert (draft.source, draft.text) == ("model", "It works \\cite{huang2019gpipe}.")


def test_the_cache_keeps_the_answers_used_last_first_and_drops_the_oldest_past_its_limit(tmp_path, monkeypatch):
    monkeypatch.setattr("surveytool.drafting.answer_cache.MAX_ANSWERS", 3)
    folder = tmp_path / "cache"
    cache = AnswerCache(folder)
    for key in "abcd":
        cache.put(key, f"answer {key}")
    assert cache.save(used={"d", "b"}) == ""
    assert list(AnswerCache(folder)._answers) == ["b", "d", "a"]
    reread = AnswerCache(folder)
    reread.save(used={"a"})
    assert list(AnswerCache(folder)._answers) == ["a", "b", "d"]
    written = (folder / CACHE_NAME).read_bytes()
    AnswerCache(folder).save(used={"a"})  # used again in the same order: the same bytes
    assert (folder / CACHE_NAME).read_bytes() == written


@pytest.mark.parametrize("planted", ["link", "file", "folder"])
def test_a_cache_that_cannot_be_written_is_named_as_it_is(tmp_path, planted):
    # The message named llm-answers for a cache folder that was a link or a file, and quoted the OSError of the
    # temporary file ("[Errno 21] Is a directory: '.../.llm-answers.fd32...tmp' -> ...") for a folder in its place.
    folder = tmp_path / ".surveytool-cache"
    if planted == "link":
        (tmp_path / "elsewhere").mkdir()
        folder.symlink_to(tmp_path / "elsewhere")
    elif planted == "file":
        folder.write_text("x")
    else:
        (folder / CACHE_NAME).mkdir(parents=True)
    cache = AnswerCache(folder)
    cache.put("k", "An answer \\cite{huang2019gpipe}.")
    problem = cache.save()
    expected = {
        "link": f"{folder}: is a symbolic link",
        "file": f"{folder}: is not a folder",
        "folder": f"{folder / CACHE_NAME}: cannot be written (Is a directory)",
    }
    assert problem.startswith(expected[planted]) and ".tmp" not in problem, problem
    if planted == "link":
        assert list((tmp_path / "elsewhere").iterdir()) == []  # nothing written through the link


@pytest.mark.parametrize("title", ["Dr.", "Prof.", "Mr.", "Ph.D."])
def test_a_title_before_a_name_does_not_end_a_sentence(title):
    # "Dr." ended a sentence: when the rest of it was dropped, "Dr." alone was written as a suggested sentence.
    answer = f"As {title} Smith argues \\cite{{rajbhandari2020zero}}. GPipe pipelines micro-batches \\cite{{huang2019gpipe}}."
    text, kept, rejections = check_answer(answer, {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert (text, kept) == ("GPipe pipelines micro-batches \\cite{huang2019gpipe}.", 1)
    assert rejections[0].sentence == f"As {title} Smith argues \\cite{{rajbhandari2020zero}}."


def test_a_key_written_in_another_case_is_spelt_as_its_themes_paper():
    # The sentence was dropped as citing a key "not in the bibliography", though its paper is the theme's own.
    bibliography = {*BIBLIOGRAPHY, "Twin2020", "twin2020"}
    answer = "GPipe pipelines \\cite{Huang2019GPipe}. Twins \\cite{TWIN2020}. Megatron \\cite{SHOEYBI2019megatron}."
    text, kept, rejections = check_answer(answer, {"huang2019gpipe", "Twin2020", "twin2020"}, bibliography)
    assert (text, kept) == ("GPipe pipelines \\cite{huang2019gpipe}.", 1)
    # Two papers of that spelling, or another theme's paper: dropped as before.
    assert [r.key for r in rejections] == ["TWIN2020", "SHOEYBI2019megatron"]


def test_an_answer_of_many_short_sentences_is_checked_in_linear_time():
    # Each full stop searched the text from its start for the word before it: 4,900 sentences took 2 s to check,
    # on every draft (cached answers are checked again), for every theme.
    import time

    start = time.perf_counter()
    text, kept, _ = check_answer("Ab. " * 4900 + "It works \\cite{huang2019gpipe}.", {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert kept == 4901 and time.perf_counter() - start < 0.5


def test_a_cached_answer_citing_nothing_is_reported_as_from_the_cache_and_dropped_from_it(tmp_path):
    # An earlier version cached answers that cite nothing: one was counted as asked, though nothing was sent.
    folder = tmp_path / "cache"
    cache = AnswerCache(folder)
    key = answer_key(SETTINGS.model, build_messages(THEME))
    cache.put(key, "I'm sorry, but I cannot help with that.")
    cache.save()
    reread = AnswerCache(folder)
    draft = draft_theme(THEME, BIBLIOGRAPHY, reread, SETTINGS, client=None)
    assert (draft.source, draft.text, len(reread)) == ("cache", "", 0)
    assert [f.check for f in draft.findings()] == ["llm-failed"] and "cites none" in draft.error


@pytest.mark.parametrize(
    "preamble",
    [
        "Here is a paragraph for the related-work section:\n\n",
        "Sure! Here is the paragraph:\n",
        "```\nBelow:\n",
        "Sure! Here is the paragraph:\r\n\r\n",
    ],
)
def test_a_chat_models_line_before_the_paragraph_is_not_written(preamble):
    # "Here is a paragraph for the related-work section: GPipe pipelines ..." was written as the first sentence.
    answer = f"{preamble}GPipe pipelines micro-batches \\cite{{huang2019gpipe}}." + (
        "\n```" if "```" in preamble else ""
    )
    text, kept, _ = check_answer(answer, {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert (text, kept) == ("GPipe pipelines micro-batches \\cite{huang2019gpipe}.", 1)
    # A colon at a line's end in the paragraph itself stays.
    text, _, _ = check_answer("GPipe has two parts:\nstages \\cite{huang2019gpipe}.", {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert text == "GPipe has two parts: stages \\cite{huang2019gpipe}."


THOUGHT = "Okay, the user wants one paragraph. GPipe \\cite{huang2019gpipe} came first, I think. Let me write it.\n"


@pytest.mark.parametrize(
    "content, written",
    [
        (f"<think>\n{THOUGHT}</think>\n\nGPipe pipelines micro-batches \\cite{{huang2019gpipe}}.", True),
        # DeepSeek-R1's template opens the block in the prompt: the answer holds its end alone.
        (f"{THOUGHT}</think>\n\nGPipe pipelines micro-batches \\cite{{huang2019gpipe}}.", True),
        (f"<think>\n{THOUGHT}GPipe pipelines micro-batches \\cite{{huang2019gpipe}}.", False),  # cut while thinking
        # gpt-oss's raw channels, as llama.cpp passes them on without its parser.
        (
            f"<|channel|>analysis<|message|>{THOUGHT}<|end|><|start|>assistant<|channel|>final<|message|>"
            "GPipe pipelines micro-batches \\cite{huang2019gpipe}.<|return|>",
            True,
        ),
        (f"<|channel|>analysis<|message|>{THOUGHT}", False),
    ],
    ids=["think-block", "end-alone", "never-closed", "channels", "analysis-only"],
)
def test_a_reasoning_models_thinking_is_not_written_as_the_suggestion(tmp_path, content, written):
    Model.routes = {"/": [(200, {}, chat(content), 0)]}
    with serve(Model) as base:
        settings = LlmSettings(**{**SETTINGS.__dict__, "base_url": f"{base}/v1"})
        cache = AnswerCache(tmp_path / "cache")
        draft = draft_theme(THEME, BIBLIOGRAPHY, cache, settings, LlmClient(settings, environ={}))
    assert "user wants" not in draft.text and "think" not in draft.text and "channel" not in draft.text
    if written:
        assert draft.text == "GPipe pipelines micro-batches \\cite{huang2019gpipe}." and draft.source == "model"
    else:  # all of it was thinking: a failed draft, asked for again next time
        assert (draft.text, draft.source, len(cache)) == ("", "failed", 0)


def test_an_answer_of_one_long_line_is_checked_in_linear_time():
    # The search for a line before the paragraph ("Sure! Here is the paragraph:") ran over the whole answer and
    # backtracked: a line of 20,000 characters saying "here" took half a second, on every draft, for every theme.
    import time

    start = time.perf_counter()
    text, kept, _ = check_answer("here " * 3990 + "it works \\cite{huang2019gpipe}.", {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert kept == 1 and time.perf_counter() - start < 0.2


@pytest.mark.parametrize(
    "run", ["!" * 19_900, "." * 19_900, "?" * 9_950 + ")" * 9_950], ids=["bangs", "dots", "closed"]
)
def test_a_model_repeating_a_full_stop_is_checked_in_linear_time(run):
    # A small model stuck repeating "!" gave a 20,000-character answer that took 15 s to split into sentences, on
    # every draft (cached answers are checked again), for every theme.
    import time

    start = time.perf_counter()
    text, kept, _ = check_answer(f"GPipe pipelines \\cite{{huang2019gpipe}}{run} and", {"huang2019gpipe"}, BIBLIOGRAPHY)
    assert kept == 1 and text.startswith("GPipe pipelines \\cite{huang2019gpipe}") and time.perf_counter() - start < 0.5


def test_a_paragraph_written_between_a_citations_braces_is_reported_on_one_short_line(tmp_path):
    # A model that put its text in the braces ("\cite{GPipe, which splits ...}") gave a warning line as long as the
    # text: 5,000 characters for each such citation.
    long = "x" * 5000
    answer = f"GPipe pipelines \\cite{{huang2019gpipe}}. It \\cite{{{long}}}. And \\cite{{GPipe which splits {long}}}."
    Model.routes = {"/": [(200, {}, chat(answer), 0)]}
    with serve(Model) as base:
        settings = LlmSettings(**{**SETTINGS.__dict__, "base_url": f"{base}/v1"})
        draft = draft_theme(THEME, BIBLIOGRAPHY, AnswerCache(tmp_path / "cache"), settings, LlmClient(settings, {}))
    findings = draft.findings()
    assert [f.check for f in findings] == [HALLUCINATED, MALFORMED] and draft.sentences_kept == 1
    assert all(len(f.message) < 400 and "xxx..." in f.message for f in findings), [len(f.message) for f in findings]

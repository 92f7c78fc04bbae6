"""Template fragments cached between builds (``%% fragment``): the same text, only new keys rendered."""

from __future__ import annotations

from pathlib import Path

from surveytool.output.fragments import templates_digest
from surveytool.output.render import make_environment, render_template
from surveytool.rebuild.memo import Memo

TEMPLATE = """%% for item in items
%% fragment item
\\VAR{item[0]} costs \\VAR{item[1]}.
%% endfragment
%% endfor
"""


def _render(folder: Path, items: list[tuple[str, int]], memo: Memo | None) -> str:
    env = make_environment(folder)
    env.fragment_memo = memo
    return render_template(env, "list.tex.j2", {"items": items})


def test_fragments_from_a_memo_give_the_same_text_and_only_new_keys_are_rendered(tmp_path: Path):
    (tmp_path / "list.tex.j2").write_text(TEMPLATE, encoding="utf-8")
    items = [("tea & milk", 3), ("bread", 2), ("salt_50%", 1)]
    first = Memo({})
    assert (
        _render(tmp_path, items, first)
        == _render(tmp_path, items, None)
        == "tea \\& milk costs 3.\nbread costs 2.\nsalt\\_50\\% costs 1.\n"
    )
    assert (first.hits, first.misses) == (0, 3)
    changed = [items[0], ("bread", 5), items[2]]
    second = Memo(dict(first.used()))
    assert _render(tmp_path, changed, second) == _render(tmp_path, changed, None)
    assert (second.hits, second.misses) == (2, 1)


def test_a_stored_fragment_is_printed_without_rendering_its_body(tmp_path: Path):
    (tmp_path / "list.tex.j2").write_text(TEMPLATE, encoding="utf-8")
    memo = Memo({("list.tex.j2:2", ("bread", 2)): "from the memo\n"})
    assert _render(tmp_path, [("bread", 2), ("tea", 3)], memo) == "from the memo\ntea costs 3.\n"


def test_the_template_digest_changes_with_any_template(tmp_path: Path):
    (tmp_path / "list.tex.j2").write_text(TEMPLATE, encoding="utf-8")
    before = templates_digest(make_environment(tmp_path))
    assert templates_digest(make_environment(tmp_path)) == before
    (tmp_path / "list.tex.j2").write_text(TEMPLATE.replace("costs", "is"), encoding="utf-8")
    assert templates_digest(make_environment(tmp_path)) != before
    assert templates_digest(make_environment(None)) != before  # the bundled templates alone


def test_a_file_beside_the_templates_that_is_no_text_counts_by_its_name(tmp_path: Path):
    # A user keeps their references.bib or a figure in the templates folder: bytes no template can include.
    (tmp_path / "list.tex.j2").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "figure.pdf").write_bytes(b"%PDF-1.5\n\xe2\xe3\xcf\xd3\xff\xfe\n")
    with_binary = templates_digest(make_environment(tmp_path))
    (tmp_path / "figure.pdf").unlink()
    assert templates_digest(make_environment(tmp_path)) != with_binary

"""Which old theme a renamed theme continues: the one whose papers it mostly holds."""

from surveytool.output.theme_regions import renamed_themes, theme_papers, with_renamed_regions


def chapter(themes: dict[str, list[str]], notes: dict[str, str] | None = None) -> str:
    text = "\\subsection{Pipelines}\\label{sec:rw:pp}\n% surveytool: begin notes pp\n% surveytool: end notes pp\n"
    for theme, keys in themes.items():
        region = f"pp/theme-{theme}"
        text += f"\\paragraph{{{theme}}}\n% surveytool: begin notes {region}\n{(notes or {}).get(theme, '')}"
        text += f"% surveytool: end notes {region}\n"
        text += "".join(f"\\citet{{{k}}} present \\emph{{T}}.\n% Snippet: \\cite{{not{k}}}\n" for k in keys)
    return text + "\\subsection{Next}\n\\citet{elsewhere} present \\emph{T}.\n"


def test_the_papers_of_a_theme_are_the_generated_citations_up_to_the_next_theme_or_section():
    found = theme_papers(chapter({"cost": ["a", "b"], "bubble": ["c"]}))
    assert found == {"pp/theme-cost": {"a", "b"}, "pp/theme-bubble": {"c"}}


def test_a_renamed_theme_takes_the_notes_of_the_old_theme_sharing_most_papers():
    old = chapter({"cost": ["a", "b", "c"], "bubble": ["d", "e"]}, {"cost": "My text.\n"})
    new = chapter({"partition": ["a", "b", "x"], "planner": ["c", "y"], "bubble": ["d", "e"]})
    renames = renamed_themes(old, new, {"pp/theme-cost"})
    assert renames == {"pp/theme-cost": "pp/theme-partition"}
    moved = with_renamed_regions(old, renames)
    assert (
        "% surveytool: begin notes pp/theme-partition\nMy text.\n% surveytool: end notes pp/theme-partition\n" in moved
    )


def test_a_theme_without_prose_or_sharing_no_paper_is_not_renamed():
    old = chapter({"cost": ["a"], "bubble": ["d"]}, {"bubble": "Text.\n"})
    new = chapter({"other": ["z"]})
    assert renamed_themes(old, new, {"pp/theme-bubble"}) == {}
    assert renamed_themes(old, chapter({"x": ["a"]}), {"pp/theme-bubble"}) == {}


def test_a_table_after_the_last_theme_is_not_taken_for_its_papers():
    text = chapter({"cost": ["a"], "bubble": ["b"]}).replace(
        "\\subsection{Next}",
        "{\\small\n\\begin{longtable}{ll}\n\\citet{a} & x \\\\\n\\citet{b} & y \\\\\n\\end{longtable}}\n\\subsection{Next}",
    )
    assert theme_papers(text) == {"pp/theme-cost": {"a"}, "pp/theme-bubble": {"b"}}

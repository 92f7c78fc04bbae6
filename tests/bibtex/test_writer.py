"""What the written .bib keeps of blocks that could not be parsed: all their text, none of it read by BibTeX."""

import pytest
from helpers import bibtex_as_written_and_rewritten, requires_latex, run_cli

# A co-author's file: an entry left unclosed while editing, a @string with a stray brace between quotes.
BROKEN = """@string{venue = "Proc. {MLSys 2021"}
@article{lee2020, author = {Lee, Ann}, title = {Left Unclosed while Editing, journal = {J. ML}, year = 2020,
@article{kim2021, author = {Kim, Bo}, title = {Sharded States}, journal = {J. ML}, year = 2021, sections = {memory}}
@misc{roe2022, author = {Roe, Jane}, title = {The Entry After}, year = 2022, sections = {surveys}}
"""


def test_a_block_that_could_not_be_parsed_is_kept_as_a_comment_and_reported(tmp_path):
    source = tmp_path / "coauthor.bib"
    source.write_bytes(BROKEN.encode())
    result = run_cli("bib", "coauthor.bib", "-o", "out.bib", cwd=tmp_path)
    assert result.returncode == 1 and result.stderr.count("[bibtex-syntax]") == 2
    assert "the .bib surveytool writes keeps it as a comment" in result.stderr
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert '% (at)string{venue = "Proc. {MLSys 2021"}\n' in written
    assert "% (at)article{lee2020, author = {Lee, Ann}, title = {Left Unclosed while Editing," in written
    assert written.count("@") == 2  # kim2021 and roe2022: no other @ for BibTeX to start a command at
    run_cli("bib", "--in-place", "coauthor.bib", cwd=tmp_path)
    assert source.read_bytes() == BROKEN.encode()


@requires_latex
@pytest.mark.latex
def test_bibtex_reads_every_entry_after_such_a_block_in_the_written_file(tmp_path):
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, BROKEN)
    assert "\\bibitem{roe2022}" not in bbl  # as written, the stray brace takes the entries after it along
    bbl = written_bbl
    assert "error message" not in result.stdout, result.stdout
    assert "Bo~Kim.\n\\newblock Sharded states.\n" in bbl and "\\bibitem{roe2022}" in bbl

"""An entry's arXiv id wherever an export writes it, and the link the reading list gives it."""

import pytest
from helpers import run_cli

from surveytool.analysis.preprints import arxiv_id, is_preprint
from surveytool.bibtex.reader import read_bibtex


@pytest.mark.parametrize(
    "url",
    [
        "https://arxiv.org/abs/2101.03961",
        # The PDF or HTML page, as pasted from a browser or written by Semantic Scholar: no id was found.
        "https://arxiv.org/pdf/2101.03961.pdf",
        "https://arxiv.org/pdf/2101.03961v2",
        "https://arxiv.org/html/2101.03961v2",
        # arXiv's own DOI, as a link in the url field.
        "https://doi.org/10.48550/arXiv.2101.03961",
    ],
)
def test_an_arxiv_address_in_the_url_gives_the_id_and_a_link_in_the_reading_list(tmp_path, url):
    text = f"@misc{{fedus2021, title = {{Switch Transformers}}, author = {{Fedus, William}}, year = 2021,\n  url = {{{url}}}}}\n"
    [paper] = read_bibtex(text, "refs.bib", "sections").papers
    assert arxiv_id(paper) == "2101.03961" and is_preprint(paper)
    (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
    markdown = run_cli("export", "refs.bib", "-f", "markdown", "-o", "-", cwd=tmp_path).stdout
    assert "[arXiv](https://arxiv.org/abs/2101.03961)" in markdown


def test_another_pdf_link_gives_no_arxiv_id():
    text = "@misc{x, title = {T}, url = {https://example.org/pdf/2101.03961.pdf}}\n"
    [paper] = read_bibtex(text, "refs.bib", "sections").papers
    assert arxiv_id(paper) is None

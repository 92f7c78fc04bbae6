"""Google Scholar results pasted with no blank line between them: one paper each, none swallowed by the one before."""

from surveytool.sources.read import read_source

# Copied from a results page into Notepad, the blank lines lost; the [CITATION] result has no snippet and no footer.
RESULTS = (
    "Related papers: GShard: Scaling Giant Models with Conditional Computation\r\n"
    "[PDF] PipeDream: generalized pipeline parallelism for DNN training\r\n"
    "D Narayanan, A Harlap, A Phanishayee… - Proceedings of the 27th …, 2019 - dl.acm.org\r\n"
    "DNN training is extremely time-consuming, necessitating efficient multi-accelerator parallelization …\r\n"
    "[CITATION][C] Mesh-TensorFlow: Deep learning for supercomputers\r\n"
    "N Shazeer, Y Cheng, N Parmar, D Tran - 2018\r\n"
    "Zero: Memory optimizations toward training trillion parameter models\r\n"
    "S Rajbhandari, J Rasley, O Ruwase… - … Conference for High …, 2020 - ieeexplore.ieee.org\r\n"
    "Large deep learning models offer significant accuracy gains, but training billions to trillions of …\r\n"
)


def test_scholar_results_with_no_blank_line_between_are_one_paper_each(tmp_path):
    # The result after a [CITATION] one was read as its snippet: ZeRO's title and abstract went into the
    # Mesh-TensorFlow entry (year 2018, Shazeer's authors), and ZeRO itself was lost.
    path = tmp_path / "scholar.txt"
    path.write_bytes(RESULTS.encode("utf-8"))
    result = read_source(path, "scholar.txt")
    read = [
        (p.sources[0].line, p.fields["title"], p.fields["year"], p.fields["author"].split(" and ")[0])
        for p in result.papers
        if p.origin.value == "snippet"
    ]
    assert read == [
        (2, "PipeDream: generalized pipeline parallelism for DNN training", "2019", "Narayanan, D"),
        (5, "Mesh-TensorFlow: Deep learning for supercomputers", "2018", "Shazeer, N"),
        (7, "Zero: Memory optimizations toward training trillion parameter models", "2020", "Rajbhandari, S"),
    ]
    papers = {p.sources[0].line: p for p in result.papers}
    assert "abstract" not in papers[5].fields
    assert papers[7].fields["abstract"].startswith("Large deep learning models")
    assert papers[2].fields["abstract"].startswith("DNN training") and papers[2].truncated
    assert not [f for f in result.findings if f.check == "glued-snippets"]

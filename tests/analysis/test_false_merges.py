"""Distinct works that look alike: never merged, not even with --merge-duplicates, nor reported as duplicates.

The inputs are written as the bibliographies they come from write them (refdb, plume-bib, Google Scholar).
"""

from pathlib import Path

from helpers import run_cli

BOTH = ((), ("--merge-duplicates",))


def run_bib(tmp_path: Path, text: str, *options: str) -> tuple[str, str]:
    """`surveytool bib refs.bib -o out.bib`: the .bib written and the messages."""
    (tmp_path / "refs.bib").write_bytes(text.encode("utf-8"))
    result = run_cli("bib", "refs.bib", "-o", "out.bib", *options, cwd=tmp_path, check=True)
    return (tmp_path / "out.bib").read_text(encoding="utf-8"), result.stderr


def keys_and_duplicates(tmp_path: Path, text: str, *options: str) -> tuple[list[str], list[str]]:
    written, messages = run_bib(tmp_path, text, *options)
    keys = sorted(line[line.index("{") + 1 : -1] for line in written.splitlines() if line.startswith("@"))
    return keys, [line for line in messages.splitlines() if "duplicate-entry" in line]


# As in refdb (percyliang/refdb): a master's thesis and the conference paper that came out of it.
THESIS_AND_PAPER = """\
@mastersthesis{platanios2015estimating,
  author = {E. A. Platanios},
  school = {Carnegie Mellon University},
  title = {Estimating Accuracy from Unlabeled Data},
  year = {2015},
}
@inproceedings{platanios2014estimating,
  author = {E. A. Platanios and A. Blum and T. M. Mitchell},
  booktitle = {Uncertainty in Artificial Intelligence (UAI)},
  title = {Estimating Accuracy from Unlabeled Data},
  year = {2014},
}
@phdthesis{Dong2017,
  author = {Dong, Yao},
  title = {Static analysis and program transformation for secure computation on the cloud},
  school = {Rensselaer Polytechnic Institute},
  year = 2017,
}
@article{Dong2017journal,
  author = {Dong, Yao},
  title = {Static Analysis and Program Transformation for Secure Computation on the Cloud},
  journal = {Journal of Computer Security},
  year = 2017,
}
@techreport{Nimmer01:TR,
  author = {Jeremy W. Nimmer and Michael D. Ernst},
  title = {Automatic generation and checking of program specifications},
  institution = {MIT Laboratory for Computer Science},
  number = {823},
  year = 2001,
}
@mastersthesis{Nimmer02:thesis,
  author = {Jeremy W. Nimmer},
  title = {Automatic Generation and Checking of Program Specifications},
  school = {MIT},
  year = 2002,
}
"""


def test_a_thesis_and_a_paper_from_it_are_two_works_never_merged(tmp_path):
    for options in BOTH:
        keys, duplicates = keys_and_duplicates(tmp_path, THESIS_AND_PAPER, *options)
        assert keys == sorted(
            [
                "platanios2015estimating",
                "platanios2014estimating",
                "Dong2017",
                "Dong2017journal",
                "Nimmer01:TR",
                "Nimmer02:thesis",
            ]
        )
        assert duplicates == []


def test_a_thesis_and_its_technical_report_by_its_author_alone_are_one_work(tmp_path):
    text = """\
@phdthesis{Net:PhD2004,
  author = {Nicholas Nethercote},
  title = {Dynamic Binary Analysis and Instrumentation},
  school = {Computer Laboratory, University of Cambridge},
  year = 2004,
}
@techreport{Net:PhD2004:TR,
  author = {Nicholas Nethercote},
  title = {Dynamic Binary Analysis and Instrumentation},
  institution = {University of Cambridge, Computer Laboratory},
  number = 606,
  year = 2004,
}
"""
    _, [duplicate] = keys_and_duplicates(tmp_path, text)
    assert "'Net:PhD2004:TR'" in duplicate and "'Net:PhD2004'" in duplicate
    keys, _ = keys_and_duplicates(tmp_path, text, "--merge-duplicates")
    assert keys == ["Net:PhD2004"]


def test_two_arxiv_ids_under_one_title_are_two_works_and_one_id_in_any_spelling_is_one(tmp_path):
    text = """\
@misc{kumar2019convergence,
  author = {Kumar, Raj},
  title = {On the convergence of adaptive gradient methods},
  eprint = {1905.11111},
  archiveprefix = {arXiv},
  year = {2019},
}
@article{kumar2020convergence,
  author = {Kumar, Raj},
  title = {On the convergence of adaptive gradient methods},
  journal = {arXiv preprint arXiv:2003.22222},
  year = {2020},
}
@misc{zhao2021scaling,
  author = {Zhao, Yi},
  title = {Scaling laws for sparse mixtures of experts},
  eprint = {2101.00001v3},
  archiveprefix = {arXiv},
  year = {2021},
}
@article{zhao2021scalingv1,
  author = {Zhao, Yi},
  title = {Scaling laws for sparse mixtures of experts},
  journal = {arXiv preprint arXiv:2101.00001},
  year = {2021},
}
"""
    keys, [duplicate] = keys_and_duplicates(tmp_path, text)
    assert "'zhao2021scalingv1'" in duplicate and "'zhao2021scaling'" in duplicate
    keys, _ = keys_and_duplicates(tmp_path, text, "--merge-duplicates")
    assert keys == ["kumar2019convergence", "kumar2020convergence", "zhao2021scaling"]


# As in plume-bib (mernst/plume-bib): proceedings by crossref, journals by @string.
CONFERENCE_AND_JOURNAL = """\
@string{TOSEM = "ACM Transactions on Software Engineering and Methodology"}
@string{SIGPLANNotices = "ACM SIGPLAN Notices"}
@InProceedings{FinkYDR2006,
  author =	 "Stephen Fink and Eran Yahav and Nurit Dor and G. Ramalingam and Emmanuel Geay",
  title =	 "Effective typestate verification in the presence of aliasing",
  crossref =     "ISSTA2006",
  pages =	 "133--144",
}
@Article{FinkYDRG2008,
  author =	 "Fink, Stephen J. and Yahav, Eran and Dor, Nurit and Ramalingam, G. and Geay, Emmanuel",
  title =	 "Effective typestate verification in the presence of aliasing",
  journal =	 TOSEM,
  year =	 2008,
  volume =	 17,
  number =	 2,
}
@InProceedings{1988:pdd:lichtenstein,
  author =       "Yossi Lichtenstein and Ehud Shapiro",
  title =        "Concurrent Algorithmic Debugging",
  booktitle =    "Proceedings of the {ACM} {SIGPLAN} and {SIGOPS} Workshop on Parallel and Distributed Debugging",
  year =         "1988",
}
@Article{Lichtenstein:1989:CAD,
  author =       "Yossi Lichtenstein and Ehud Shapiro",
  title =        "Concurrent algorithmic debugging",
  journal =      SIGPLANNotices,
  volume =       "24",
  number =       "1",
  year =         "1989",
}
@Proceedings{ISSTA2006,
  title =        "ISSTA 2006, Proceedings of the 2006 International Symposium on Software Testing and Analysis",
  booktitle =    "ISSTA 2006, Proceedings of the 2006 International Symposium on Software Testing and Analysis",
  year =         2006,
  address =      "Portland, ME, USA",
}
"""


def test_a_conference_paper_and_its_later_journal_version_are_two_publications(tmp_path):
    for options in BOTH:
        keys, duplicates = keys_and_duplicates(tmp_path, CONFERENCE_AND_JOURNAL, *options)
        assert {"FinkYDR2006", "FinkYDRG2008"} <= set(keys)
        assert not [line for line in duplicates if "Fink" in line]
    # A journal that prints proceedings (SIGPLAN Notices) holds the same paper, a year on.
    _, duplicates = keys_and_duplicates(tmp_path, CONFERENCE_AND_JOURNAL)
    assert len(duplicates) == 1 and "Lichtenstein:1989:CAD" in duplicates[0]


# plume-bib gives a thesis, and the paper from it, the same abstract.
SHARED_ABSTRACT = """\
@MastersThesis{Lin2004,
  author =	 "Lee Lin",
  title =	 "Improving adaptability via program steering",
  school = 	 "MIT Department of Electrical Engineering and Computer Science",
  year = 	 2004,
  abstract =	 "A multi-mode software system contains several distinct modes of operation and a controller for deciding when to switch between modes. We present a technique that uses dynamic analysis to improve it.",
}
@InProceedings{LinE2004,
  author =	 "Lee Lin and Michael D. Ernst",
  title =	 "Improving adaptability via program steering",
  booktitle =	 "ISSTA 2004, Proceedings of the 2004 International Symposium on Software Testing and Analysis",
  year = 	 2004,
  pages = 	 "206--216",
  abstract =	 "A multi-mode software system contains several distinct modes of operation and a controller for deciding when to switch between modes. We present a technique that uses dynamic analysis to improve it.",
}
"""


def test_a_thesis_and_its_paper_sharing_an_abstract_are_no_suspicious_id(tmp_path):
    for options in BOTH:
        written, messages = run_bib(tmp_path, SHARED_ABSTRACT, *options)
        assert written.count("@") == 2
        assert "duplicate" not in messages


def test_two_editions_of_a_book_are_two_works_and_one_edition_written_twice_is_one(tmp_path):
    text = """\
@Book{GoslingJSBB2012,
  author =       "James Gosling and Bill Joy and Guy Steele and Gilad Bracha and Alex Buckley",
  title =        "The Java Language Specification",
  publisher =    "Addison-Wesley",
  year =         2012,
  edition = 	 "{Java SE 7}",
}
@Book{GoslingJSBB2014,
  author =       "James Gosling and Bill Joy and Guy Steele and Gilad Bracha and Alex Buckley",
  title =        "The Java Language Specification",
  publisher =    "Addison-Wesley",
  year =         2014,
  edition = 	 "{Java SE 8}",
}
@book{hastie2009elements,
  author = {Hastie, Trevor and Tibshirani, Robert and Friedman, Jerome},
  title = {The Elements of Statistical Learning},
  edition = {Second},
  publisher = {Springer},
  year = {2009},
}
@book{HastieTF09,
  author = {Trevor Hastie and Robert Tibshirani and Jerome H. Friedman},
  title = {The Elements of Statistical Learning},
  edition = {2nd},
  publisher = {Springer},
  year = {2009},
}
@book{hastie2001elements,
  author = {Hastie, Trevor and Tibshirani, Robert and Friedman, Jerome},
  title = {The Elements of Statistical Learning},
  publisher = {Springer},
  edition = {1st},
  year = {2001},
}
"""
    _, duplicates = keys_and_duplicates(tmp_path, text)
    assert not [line for line in duplicates if "Gosling" in line]
    [second] = duplicates  # "Second" and "2nd" are one edition
    assert "'HastieTF09'" in second and "'hastie2009elements'" in second
    keys, _ = keys_and_duplicates(tmp_path, text, "--merge-duplicates")
    assert {"GoslingJSBB2012", "GoslingJSBB2014", "hastie2001elements"} <= set(keys)

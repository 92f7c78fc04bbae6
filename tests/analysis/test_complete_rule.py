"""The completion rule: which record completes which entry, with what, and what is never taken."""

from surveytool.analysis.complete import complete_entry
from surveytool.analysis.preprints import arxiv_id, is_preprint
from surveytool.analysis.resolve.resolver import CatalogResolver
from surveytool.bibtex.reader import read_bibtex

PUBLISHED = """
@inproceedings{conf, title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},
  author = {Yanping Huang and Youlong Cheng}, booktitle = {NeurIPS}, year = 2019, pages = {103--112}}
@article{journal_version, title = {Deep Residual Learning}, author = {He, Kaiming}, journal = {TPAMI}, year = 2017,
  doi = {10.1/journal}}
@inproceedings{conf_version, title = {Deep Residual Learning}, author = {He, Kaiming}, booktitle = {CVPR},
  year = 2016, doi = {10.1/conf}}
"""


def entries(text):
    return read_bibtex(text, "my.bib", "sections").papers


def catalog(text=PUBLISHED):
    return CatalogResolver(entries(text), "catalog:known.bib")


def completed(text, overwrite=()):
    [paper] = entries(text)
    completion, findings = complete_entry(paper, [catalog()], overwrite)
    return completion, findings


def test_preprints_are_told_by_an_arxiv_id_and_a_venue_that_is_only_the_server():
    scholar, corr, misc, published, note_only = entries(
        "@article{a, title = {T}, journal = {arXiv preprint arXiv:1811.06965}}\n"
        "@article{b, title = {T}, journal = {CoRR}, volume = {abs/1811.06965}, eprint = {1811.06965}}\n"
        "@misc{c, title = {T}, eprint = {1811.06965}, archiveprefix = {arXiv}}\n"
        "@inproceedings{d, title = {T}, booktitle = {NeurIPS}, eprint = {1811.06965}}\n"
        "@article{e, title = {T}, journal = {Nature}, note = {arXiv:1811.06965}}\n"
    )
    assert [is_preprint(p) for p in (scholar, corr, misc, published, note_only)] == [True, True, True, False, False]
    assert arxiv_id(scholar) == arxiv_id(corr) == "1811.06965"


def test_a_misc_preprint_becomes_the_published_inproceedings_with_its_eprint_kept():
    completion, _ = completed(
        "@misc{gpipe, title = {{GP}ipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},"
        " author = {Huang, Yanping}, eprint = {1811.06965}, archiveprefix = {arXiv}, year = 2018}"
    )
    assert completion is not None and completion.entry_type == "inproceedings"
    assert dict(completion.values) == {"booktitle": "NeurIPS", "pages": "103–112"}  # eprint is already there
    assert "year 2018 kept; the published version's is 2019 (catalog:known.bib conf)" in completion.notes[0]


def test_a_conference_record_never_completes_a_journal_article_and_two_versions_upgrade_nothing():
    article, _ = completed("@article{he, title = {Deep residual learning}, author = {K. He}, year = 2016}")
    assert article is not None and dict(article.values) == {"journal": "TPAMI", "doi": "10.1/journal"}
    # A preprint of a work published twice (a conference, then a journal): neither version is taken.
    preprint, findings = completed(
        "@misc{he, title = {Deep residual learning}, author = {He, K.}, eprint = {1512.03385}}"
    )
    assert preprint is None and [f.check for f in findings] == ["ambiguous-match"]
    assert "several versions match: conf_version (inproceedings), journal_version (article)" in findings[0].message


def test_an_entry_whose_only_record_is_another_kind_of_publication_is_told_why_nothing_was_taken():
    # Google Scholar's @article for a NeurIPS paper, which the catalog knows as proceedings.
    completion, findings = completed(
        "@article{gs, title={GPipe: Efficient training of giant neural networks using pipeline parallelism},"
        " author={Huang, Yanping and others}, journal={Advances in Neural Information Processing Systems}, year={2019}}"
    )
    assert completion is None and [f.check for f in findings] == ["not-completed"]
    assert "conf is this paper as @inproceedings, not @article; nothing was taken from it" in findings[0].message
    assert findings[0].hint == "if that is the version you cite, change the entry type"


def test_a_field_the_user_wrote_is_kept_unless_overwrite_names_it():
    text = "@inproceedings{g, title = {GPipe: efficient training of giant neural networks using pipeline parallelism},"
    text += " author = {Yanping Huang}, booktitle = {Proc. NeurIPS}, year = 2019, pages = {1--10}}"
    kept, _ = completed(text)
    assert kept is None  # booktitle, year and pages are written; the catalog gives nothing else
    replaced, _ = completed(text, overwrite={"pages"})
    assert replaced is not None and dict(replaced.values) == {"pages": "103–112"}
    assert str(replaced.changes[0]) == "pages 1--10 -> 103–112 (catalog:known.bib conf)"


def test_biblatex_names_and_crossref_parents_count_as_the_fields_they_give():
    biblatex, _ = completed(
        "@article{he, title = {Deep residual learning}, author = {He, K.}, journaltitle = {IEEE TPAMI}, date = {2017}}"
    )
    assert biblatex is not None and dict(biblatex.values) == {"doi": "10.1/journal"}  # no journal beside journaltitle
    child, _ = completed(
        "@article{he, title = {Deep residual learning}, author = {He, K.}, year = 2017, crossref = {p}}"
    )
    assert child is not None and dict(child.values) == {"doi": "10.1/journal"}  # the parent gives the journal


def test_a_title_one_word_off_is_not_completed_even_when_the_year_agrees():
    similar, findings = completed(
        "@article{x, title = {Deep residual learning revisited}, author = {K. He}, year = 2017}"
    )
    assert similar is None
    assert not findings or all(f.check == "not-completed" for f in findings)


# Two papers each of one author and year, whose titles differ only in words of other scripts than Latin.
OTHER_SCRIPTS = """
@article{ner, title = {基于BERT的命名实体识别}, author = {王芳}, journal = {计算机学报}, year = 2021, doi = {10.1/ner}}
@article{speech, title = {Нейронные сети для распознавания речи, часть 2}, author = {Иванов, Иван},
  journal = {Вестник}, year = 2020, doi = {10.1/speech}}
@article{greek, title = {Μάθηση με {GPT-4}}, author = {Παπαδόπουλος, Νίκος}, journal = {Πρακτικά}, year = 2023}
"""


def test_a_title_in_another_script_is_completed_only_by_a_record_of_that_very_title():
    resolver = CatalogResolver(entries(OTHER_SCRIPTS), "catalog:known.bib")
    for text in (
        "@article{w, title = {基于BERT的文本分类}, author = {王芳}, year = 2021}",  # text classification, not NER
        "@article{i, title = {Нейронные сети для перевода, часть 2}, author = {Иванов, Иван}, year = 2020}",
    ):
        [paper] = entries(text)
        completion, findings = complete_entry(paper, [resolver])
        assert completion is None, completion
        assert all(f.check == "not-completed" for f in findings)
    [same] = entries("@article{p, title = {ΜΆΘΗΣΗ με GPT-4}, author = {Παπαδόπουλος, Ν.}, year = 2023}")
    completion, _ = complete_entry(same, [resolver])
    assert completion is not None and dict(completion.values) == {"journal": "Πρακτικά"}


# Records as the registries spell their first authors (Crossref's family/given, DBLP's full names).
REGISTRY_SPELLINGS = """
@article{edvac, title = {First Draft of a Report on the {EDVAC}}, author = {Neumann, J. von},
  journal = {IEEE Annals of the History of Computing}, volume = {15}, number = {4}, year = 1993, doi = {10.1109/85.238389}}
@article{tsne, title = {Visualizing Data using t-SNE}, author = {Laurens van der Maaten and Geoffrey E. Hinton},
  journal = {J. Mach. Learn. Res.}, volume = {9}, year = 2008, pages = {2579--2605}}
@article{zipcode, title = {Backpropagation Applied to Handwritten Zip Code Recognition},
  author = {Y. LeCun and B. Boser}, journal = {Neural Computation}, year = 1989, doi = {10.1162/neco.1989.1.4.541}}
@article{kernels, title = {An introduction to kernel-based learning algorithms}, author = {Klaus-Robert M{\\"u}ller and Sebastian Mika},
  journal = {IEEE Transactions on Neural Networks}, year = 2001, doi = {10.1109/72.914517}}
@inproceedings{fpn, title = {Feature Pyramid Networks for Object Detection}, author = {Tsung-Yi Lin and Piotr Doll{\\'a}r},
  booktitle = {CVPR}, year = 2017, doi = {10.1109/CVPR.2017.106}}
"""


def test_a_first_author_with_a_particle_or_an_accent_is_the_same_as_the_registrys_spelling():
    mine = entries(
        "@article{a, title = {First draft of a report on the EDVAC}, author = {Von Neumann, John}}\n"
        "@article{b, title = {Visualizing data using t-SNE}, author = {Van der Maaten, Laurens and Hinton, Geoffrey}}\n"
        "@article{c, title = {Backpropagation applied to handwritten zip code recognition}, author = {Yann Le Cun}}\n"
        "@article{d, title = {An introduction to kernel-based learning algorithms}, author = {Mueller, K.-R.}}\n"
    )
    known = catalog(REGISTRY_SPELLINGS)
    # Without a year, only the first author confirms the title.
    found = {p.key: complete_entry(p, [known])[0] for p in mine}
    assert {key: c and dict(c.values).get("doi", dict(c.values).get("pages")) for key, c in found.items()} == {
        "a": "10.1109/85.238389",
        "b": "2579–2605",
        "c": "10.1162/neco.1989.1.4.541",
        "d": "10.1109/72.914517",
    }


def test_a_first_author_whose_family_name_only_resembles_the_records_completes_nothing():
    for author in ("Li, Tsung-Yi", "Lim, T.", "Tsung-Yi Lind"):
        [paper] = entries(
            f"@inproceedings{{x, title = {{Feature pyramid networks for object detection}}, author = {{{author}}},"
            " year = 2017}"
        )
        assert complete_entry(paper, [catalog(REGISTRY_SPELLINGS)]) == (None, []), author


def test_a_misc_entry_that_is_surely_a_published_paper_is_told_so_and_left_as_it_is():
    # Zotero and hand-written entries: no venue, no arXiv id, nothing that says what was published.
    [told] = entries(
        "@misc{gp, title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},"
        " author = {Huang, Yanping}, year = 2019}"
    )
    completion, findings = complete_entry(told, [catalog()])
    assert completion is None and [f.check for f in findings] == ["not-completed"]
    assert "conf is this paper as @inproceedings; nothing is taken for a @misc" in findings[0].message
    assert findings[0].hint == "if that is the version you cite, make the entry @inproceedings and complete it again"
    # The same title by another author in another year (a talk, a blog post) is not surely that paper.
    for text in (
        "@misc{talk, title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},"
        " author = {Doe, Jane}, year = 2023}",
        "@misc{other, title = {Notes on pipelines}, author = {Huang, Yanping}, year = 2019}",
        # A page that says what it is: not looked up.
        "@misc{page, title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},"
        " author = {Huang, Yanping}, year = 2019, howpublished = {\\url{https://example.org/gpipe}}}",
    ):
        [paper] = entries(text)
        assert complete_entry(paper, [catalog()]) == (None, [])

"""DOIs and arXiv ids as users paste them: from links, mail, reference lists and arXiv's listings."""

from surveytool.text.identifiers import Identifier, normalize_arxiv, parse_identifier


def test_ids_copied_with_their_surroundings_are_read_without_them():
    sici = "10.1002/(SICI)1097-4636(199706)35:4<467::AID-JBM7>3.0.CO;2-N"  # brackets and a ';' of its own
    cases = {
        "arXiv:2104.14830v2,": Identifier("arxiv", "2104.14830", "v2"),
        "arXiv:2104.14830 [cs.LG]": Identifier("arxiv", "2104.14830"),
        "cs/0112017 [cs.DC]": Identifier("arxiv", "cs/0112017"),
        '"2104.14830"': Identifier("arxiv", "2104.14830"),
        "<10.1000/abc>": Identifier("doi", "10.1000/abc"),
        "DOI: 10.1109/SC41405.2020.00024;": Identifier("doi", "10.1109/SC41405.2020.00024"),
        "doi:10.1016/S0140-6736(20)30183-5.": Identifier("doi", "10.1016/S0140-6736(20)30183-5"),
        "http://dx.doi.org/10.1145%2F3341301.3359647": Identifier("doi", "10.1145/3341301.3359647"),
        sici: Identifier("doi", sici),
        f"<doi:{sici}>,": Identifier("doi", sici),
        # A full stop after the closing mark, or after an arXiv id's version.
        "<https://doi.org/10.1000/xyz123>.": Identifier("doi", "10.1000/xyz123"),
        '"https://doi.org/10.1000/xyz127".': Identifier("doi", "10.1000/xyz127"),
        "<10.1000/xyz125>.": Identifier("doi", "10.1000/xyz125"),
        "<https://arxiv.org/abs/2101.03961v2>.": Identifier("arxiv", "2101.03961", "v2"),
        "arXiv:2101.03961v2.": Identifier("arxiv", "2101.03961", "v2"),
        "arXiv:2104.14830 [cs.LG].": Identifier("arxiv", "2104.14830"),
    }
    assert {text: parse_identifier(text) for text in cases} == cases


def test_text_that_only_resembles_an_id_is_none():
    for text in ("10.1000", "arXiv", "2104.148", "<>", "[cs.LG]", "see 10.1000/abc", "2104.14830 and more"):
        assert parse_identifier(text) is None, text
    assert normalize_arxiv("2104.14830,") == "2104.14830" and normalize_arxiv("") is None


def test_an_old_style_arxiv_id_is_its_archive_and_number_without_the_subject_class():
    # arXiv's ids before 2007: the subject class (".GT") is no part of the id, and only upper case is one.
    same = Identifier("arxiv", "math/0309136")
    assert parse_identifier("arXiv:math.GT/0309136") == same
    assert parse_identifier("math/0309136") == same
    assert parse_identifier("https://arxiv.org/abs/math.GT/0309136v1") == Identifier("arxiv", "math/0309136", "v1")
    assert parse_identifier("hep-th/9901001v2") == Identifier("arxiv", "hep-th/9901001", "v2")


SICI_HASH = "10.1002/(SICI)1097-0258(19980715)17:13<1495::AID-SIM863>3.0.CO;2-#"


def test_a_link_s_query_or_fragment_and_parentheses_around_an_id_are_no_part_of_it():
    pairs = "10.1016/0370-2693(85)91210-1"  # a DOI's own parentheses, and its closing one at the end
    cases = {
        "https://arxiv.org/abs/2104.14830v2?context=cs": Identifier("arxiv", "2104.14830", "v2"),
        "https://arxiv.org/pdf/2104.14830v1.pdf#page=3": Identifier("arxiv", "2104.14830", "v1"),
        "https://doi.org/10.1000/abc#ref": Identifier("doi", "10.1000/abc"),
        "https://doi.org/10.1145%2F3341301.3359647#sec2": Identifier("doi", "10.1145/3341301.3359647"),
        "(doi:10.1000/abc)": Identifier("doi", "10.1000/abc"),
        "(arXiv:2104.14830),": Identifier("arxiv", "2104.14830"),
        pairs: Identifier("doi", pairs),
        f"({pairs})": Identifier("doi", pairs),
        "10.1000/a#b": Identifier("doi", "10.1000/a#b"),  # bare, '#' is the DOI's own
        f"https://doi.org/{SICI_HASH}": Identifier("doi", SICI_HASH),  # Wiley's check character, no fragment
    }
    assert {text: parse_identifier(text) for text in cases} == cases

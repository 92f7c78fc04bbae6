"""First authors compared however a record spells them: particles, accents, corporate names."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surveytool.analysis.agreement import agree, confirmed
from surveytool.analysis.first_author import PARTICLES, author_name, first_author, same_author
from surveytool.bibtex.reader import read_bibtex


def same(a: str, b: str) -> bool:
    return same_author(author_name(a), author_name(b))


def first(latex_author: str):
    [paper] = read_bibtex(
        f"@article{{k, title = {{T}}, author = {{{latex_author}}}, year = 2020}}", "x.bib", "s"
    ).papers
    return paper


# Each group: one person as a .bib (Google Scholar, a publisher), DBLP, Crossref and Semantic Scholar write them.
SPELLINGS = [
    ["von Neumann, John", "John von Neumann", "Neumann, J. von", "J. Von Neumann", "Neumann, John von"],
    ["van der Maaten, Laurens", "Laurens van der Maaten", "Van Der Maaten, Laurens", "Maaten, Laurens van der"]
    + ["L. V. D. Maaten", "Laurens Van der Maaten", "L. J. P. van der Maaten"],
    ["de los Santos, María", "María de los Santos", "Santos, María de los", "M. De Los Santos"],
    ["op den Akker, Jan", "Jan op den Akker", "Akker, Jan op den", "Jan Op Den Akker"],
    ["de la Cruz, Juan", "Juan de la Cruz", "Juan De La Cruz", "Cruz, Juan de la", "J. De la Cruz"],
    ["LeCun, Yann", "Yann LeCun", "Yann Le Cun", "Le Cun, Yann", "Y. LeCun", "Y. Le Cun", "Cun, Yann Le"],
    ["Müller, Klaus-Robert", "Mueller, Klaus-Robert", "K.-R. Muller", "Muller, K. R.", "Klaus-Robert Müller"],
    [
        "Alayrac, Jean-Baptiste",
        "Jean-Baptiste Alayrac",
        "J.-B. Alayrac",
        "Alayrac, J. B.",
        "Jean-Baptiste Alayrac 0001",
    ],
    ["Schölkopf, Bernhard", "Bernhard Schoelkopf", "B. Scholkopf", "Bernhard Schölkopf"],
    ["Lê, Quốc V.", "Quoc V. Le", "Le, Quoc", "Q. V. Le"],
    ["Hauberg, Søren", "Søren Hauberg", "Soeren Hauberg", "S. Hauberg"],
    ["d'Alembert, Jean", "Jean d'Alembert", "Jean D'Alembert", "D'Alembert, J."],
    ["al-Khwarizmi, Muhammad", "Muhammad al-Khwarizmi", "Muhammad Al Khwarizmi", "Al-Khwarizmi, M."],
    ["Jacobson, Van", "Van Jacobson", "V. Jacobson"],
    ["King, Jr., Martin Luther", "Martin Luther King Jr.", "King, Martin Luther", "M. L. King, Jr.", "King et al."],
    # Two family names: BibTeX reads "Gabriel García Márquez" as family "Márquez" (so may Crossref: given "Gabriel
    # García"); records in English often keep only the first, or join the two with a hyphen.
    ["García Márquez, Gabriel", "Gabriel García Márquez", "G. García Márquez", "Márquez, Gabriel García"]
    + ["Gabriel Garcia", "G. García-Márquez"],
    ["García de la Torre, Juan", "Juan García de la Torre", "J. García-de la Torre", "García, Juan"]
    + ["García-de la Torre, J."],
    # East Asian names, family name first or last: a registry's "Zhang, Wei" says which.
    ["Zhang, Wei", "Zhang Wei", "W. Zhang", "Wei Zhang 0001", "Wei Zhang"],
    ["Wang, Xiao-Ming", "Xiao-Ming Wang", "Wang Xiaoming", "X.-M. Wang", "Wang Xiao-Ming", "Xiaoming Wang"],
    ["Niebles Duque, Juan Carlos", "Juan Carlos Niebles Duque", "Juan Carlos Niebles", "Niebles-Duque, J. C."],
    # Portuguese usage cites the last of two family names; Spanish and Catalan may join the two with "y", "i".
    ["Silva Santos, Maria", "Maria Silva Santos", "M. Silva-Santos", "Maria Silva", "Maria Santos"]
    + ["Silva Santos, M."],
    ["Ortega y Gasset, José", "José Ortega y Gasset", "J. Ortega y Gasset", "José Ortega", "Ortega, J."]
    + ["Ortega y Gasset, J."],
    ["Puig i Cadafalch, Josep", "Josep Puig i Cadafalch", "Josep Puig", "J. Puig i Cadafalch"],
]


@pytest.mark.parametrize("names", SPELLINGS, ids=[names[0] for names in SPELLINGS])
def test_every_spelling_of_one_first_author_names_the_same_person(names):
    assert [b for b in names if not same(names[0], b)] == []
    assert [a for a in names if not same(a, names[-1])] == []


def test_different_family_names_never_match_however_alike():
    assert not same("Li, Wei", "Lin, Wei") and not same("Wei Li", "Wei Lin")
    assert not same("Le, Quoc V.", "Yann Le Cun")  # "Le" is a family name here, a particle there
    assert not same("Müller, Hans", "Miller, Hans") and not same("Maaten, L.", "Marten, L.")
    # Two ASCII spellings are two names: "Bauer" is not "Baur", so "Mueller" is not "Muller" (only "Müller" is both).
    assert not same("Bauer, Anna", "Baur, Anna") and not same("Mueller, K.", "Muller, K.")
    assert not same("Van Jacobson", "Van, Jacobson")  # a given name "Van" is not dropped, nor made a family name
    assert not same("Van Jacobson", "Vanjacobson, J.")
    assert not same("John von Neumann", "John Neumeyer")
    assert not same("Yu D. Ai", "Dai, Yu") and not same("Wei L. In", "Lin, Wei")  # an initial is no particle


def test_a_generation_is_dropped_but_a_family_name_spelled_like_one_is_not():
    assert same("Henry Ford II", "Ford, Henry") and same("Martin Luther King JR", "King, Martin Luther")
    assert same("Naoki Ii", "Ii, Naoki") and not same("Naoki Ii", "Naoki Ito")


def test_two_family_names_never_match_another_second_family_name_nor_a_part_of_a_word():
    assert not same("García Márquez, Gabriel", "García López, Gabriel")
    assert not same("Gabriel García Márquez", "Gabriel García López")
    assert not same("G. García-Márquez", "García López, G.") and not same("García-Márquez, G.", "G. García-López")
    assert not same("García Márquez, Gabriel", "Gabriel Gar") and not same("García-Márquez, G.", "Garciam, G.")
    assert not same("García Márquez, Gabriel", "Gabriel Márquez García")  # the same two names, the other way round
    assert not same("Silva Santos, Maria", "Ana Santos") and not same("Maria Silva Santos", "Maria Santos Silva")
    assert not same("Ortega y Gasset, José", "José Gasset y Ortega") and not same("José Ortega y Gasset", "Ana Ortega")


def test_the_first_family_name_alone_matches_only_two_family_names_written_as_two():
    # Given names before one family name ("Robert Adams Day") read as two family names only to match both:
    # a middle name is no first family name ("Robert Adams"), so the family name must be written whole.
    assert not same("Robert Adams Day", "Robert Adams") and not same("Hans Walter Gabler", "Walter, H.")
    assert not same("Gabriel García Márquez", "Gabriel Garcia") and not same("Smith, John Paul", "Paul, J.")
    assert same("Adams Day, Robert", "Robert Adams") and same("Robert Adams Day", "Adams Day, R.")


def test_the_first_family_name_alone_needs_the_same_given_name_as_the_two():
    # Weaker evidence than a whole family name: another García is told apart by the given name.
    assert not same("García Márquez, Gabriel", "Ana García") and not same("Gabriel García Márquez", "García, A.")
    assert not same("G. García-Márquez", "García, Ana") and not same("García-Márquez, Gabriel", "A. García")
    assert same("García Márquez, G.", "Gabriel García") and same("García Márquez, Gabriel", "G. García")


def test_a_name_is_read_the_other_way_round_only_when_both_words_match_exactly():
    assert not same("Wei Zhang", "Zhang Li") and not same("Zhang Wei", "Li Zhang")
    assert not same("Zhang, Wei", "Wei, Zhang")  # both say which is the family name: they disagree
    assert not same("Zhang Wei", "W. Zhang") and not same("Zhang W.", "Wei Zhang")  # "W." may be Wen
    assert not same("Zhang Wei Ming", "Wei Ming Zhang") and not same("Zhang Wei", "Wei Ming Zhang")  # two words only
    assert not same("Zhang Wei", "Wei Zhan") and not same("Wang Xiaoming", "Xiao Wang")
    assert not same("Van Jacobson", "Jacobson Van") and not same("Vries de", "de Vries")  # a particle stays


def test_a_family_name_with_a_particle_matches_the_same_name_without_it():
    assert same("de Vries, Harm", "Vries, Harm") and same("Harm de Vries", "H. Vries")
    assert not same("de Vries, Harm", "Devers, Harm")


def test_a_corporate_author_matches_only_its_own_whole_name():
    microsoft = first("{Microsoft Research} and Smith, Jane")
    assert first_author(microsoft).corporate
    assert same_author(first_author(microsoft), author_name("Microsoft Research"))  # a service writes it unbraced
    assert same_author(first_author(microsoft), author_name("MICROSOFT RESEARCH"))
    assert not same_author(first_author(microsoft), author_name("Google Research"))
    # A registry that splits it as a person ("family": "Research", "given": "Microsoft") still names it whole.
    assert same_author(first_author(microsoft), author_name("Research, Microsoft"))
    assert not same_author(first_author(microsoft), author_name("Research, Jane"))
    assert not same_author(first_author(microsoft), author_name("Jane Research"))


def test_latex_accents_and_braces_in_a_bib_name_are_read_before_comparing():
    assert same_author(first_author(first('M{\\"u}ller, Klaus-Robert')), author_name("Klaus-Robert Mueller"))
    assert same_author(first_author(first("Yann {Le Cun}")), author_name("Yann LeCun"))
    assert same_author(first_author(first("{van der Maaten}, Laurens")), author_name("L. van der Maaten"))
    assert same_author(first_author(first('Sch{\\"o}lkopf, B.')), author_name("Bernhard Schölkopf"))


def test_merging_and_resolution_agree_on_a_first_author_spelled_with_particles():
    bib, service = first("von Neumann, John"), first("Smith, Jane")
    assert agree(bib, first("J. Von Neumann")) and confirmed(bib, first("Neumann, J. von"))
    assert not agree(bib, service) and not agree(first("Li, Wei"), first("Lin, Wei"))
    nobody = first("others")
    assert agree(nobody, bib) and not first_author(nobody)
    assert agree(first("Zhang Wei"), first("Wei Zhang")) and not agree(first("Wei Zhang"), first("Zhang Li"))
    garcia = first("Garc{\\'\\i}a M{\\'a}rquez, Gabriel")
    assert agree(garcia, first("Gabriel Garcia")) and confirmed(garcia, first("G. Garc{\\'\\i}a M{\\'a}rquez"))
    assert not agree(garcia, first("Garc{\\'\\i}a L{\\'o}pez, Gabriel"))


# A last word "Jr", "II", "IV" is read as a generation ("Martin Luther King Jr."), never as a family name.
_GENERATIONS = {"jr", "sr", "ii", "iii", "iv"}
_WORD = st.text("abcdefghijklmnopqrstuvwxyzäöüéñ", min_size=2, max_size=9).filter(
    lambda w: w not in PARTICLES | _GENERATIONS
)
_PARTICLE = st.sampled_from(["von", "van", "van der", "de", "de la", "di", "du", "le", "dos", "ten"])


@settings(max_examples=200, deadline=None)
@given(
    given_names=st.lists(_WORD, min_size=1, max_size=3), particle=_PARTICLE, family=_WORD, more=st.sampled_from("nsx")
)
def test_any_name_in_its_four_spellings_is_one_person_and_a_longer_family_name_is_not(
    given_names, particle, family, more
):
    first, family = " ".join(w.capitalize() for w in given_names), family.capitalize()
    spellings = [
        f"{particle} {family}, {first}",  # BibTeX's own order
        f"{first} {particle} {family}",  # DBLP, arXiv
        f"{family}, {first} {particle}",  # Crossref's family and given
        f"{first} {particle.title()} {family}",  # Semantic Scholar's capitals
    ]
    assert all(same(a, b) for a in spellings for b in spellings)
    assert same(spellings[1], f"{first} {family}")  # the particle left out
    # "Li" and "Lin": one letter more is another family name, in any spelling.
    longer = [f"{first} {particle} {family}{more}", f"{family}{more}, {first}", f"{particle} {family}{more}, {first}"]
    assert not any(same(a, b) for a in spellings for b in longer)


_NAME = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8).filter(
    lambda w: w not in PARTICLES | _GENERATIONS
)


@settings(max_examples=200, deadline=None)
@given(names=st.lists(_NAME, min_size=4, max_size=4, unique=True))
def test_two_family_names_in_any_spelling_are_one_person_and_another_second_name_is_not(names):
    given_name, family, second, other = (w.capitalize() for w in names)
    spellings = [
        f"{family} {second}, {given_name}",  # BibTeX's own order
        f"{given_name[0]}. {family}-{second}",  # a service's hyphen
        f"{given_name} {family} {second}",  # DBLP: BibTeX reads the family name as only the second
        f"{given_name} {family}",  # the first family name only
    ]
    assert all(same(a, b) for a in spellings for b in spellings if {a, b} != set(spellings[2:]))
    others = [f"{family} {other}, {given_name}", f"{given_name} {family} {other}", f"{family}-{other}, {given_name}"]
    assert not any(same(a, b) for a in spellings[:3] for b in others)
    assert not same(spellings[0], f"{other} {family}") and not same(spellings[0], f"{family}, {other}")


@settings(max_examples=200, deadline=None)
@given(names=st.lists(_NAME, min_size=3, max_size=3, unique=True))
def test_two_words_in_either_order_are_one_person_and_any_other_word_is_not(names):
    first_word, second_word, other = (w.capitalize() for w in names)
    spellings = [f"{first_word} {second_word}", f"{second_word} {first_word}", f"{first_word}, {second_word}"]
    assert all(same(a, b) for a in spellings for b in spellings)
    assert same(spellings[0], f"{second_word}, {first_word}") and not same(spellings[2], f"{second_word}, {first_word}")
    # A third word as the family name, either word as the given name beside it.
    others = [f"{second_word} {other}", f"{first_word} {other}", f"{other}, {first_word}", f"{other}, {second_word}"]
    assert not any(same(a, b) for a in spellings for b in others)

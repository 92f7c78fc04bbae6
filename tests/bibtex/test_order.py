from helpers import titled_entry

from surveytool.bibtex.order import in_bibtex_order, sort_papers
from surveytool.model import frozen_mapping


def with_fields(key, **fields):
    paper = titled_entry(f"Title of {key}", key)
    return paper.__class__(paper.origin, paper.sources, frozen_mapping({**paper.fields, **fields}), key=key)


DBLP = [
    with_fields("DBLP:conf/osdi/2020", booktitle="OSDI 2020"),
    with_fields("DBLP:conf/osdi/ZhengLZ20", crossref="DBLP:conf/osdi/2020"),
    with_fields("DBLP:conf/osdi/AbadiBC20", crossref="dblp:CONF/osdi/2020"),  # keys match ignoring case
    with_fields("DBLP:journals/corr/abs-2001-1"),
]


def test_crossref_parents_come_after_every_other_entry_in_key_order_otherwise():
    assert [p.key for p in in_bibtex_order(DBLP)] == [
        "DBLP:conf/osdi/AbadiBC20",
        "DBLP:conf/osdi/ZhengLZ20",
        "DBLP:journals/corr/abs-2001-1",
        "DBLP:conf/osdi/2020",
    ]


def test_without_crossrefs_the_order_is_the_keys():
    papers = [with_fields(k) for k in ("b", "a", "c")]
    assert [p.key for p in sort_papers(papers)] == ["a", "b", "c"]


def test_sorted_by_section_the_parents_come_last_too():
    assert sort_papers(DBLP, "section", ())[-1].key == "DBLP:conf/osdi/2020"


def test_a_parent_with_a_parent_of_its_own_comes_after_its_children_and_before_its_parent():
    chain = [
        with_fields("achild", crossref="mvolume"),
        with_fields("bseries"),
        with_fields("mvolume", crossref="bseries"),
        with_fields("zlone"),
    ]
    assert [p.key for p in in_bibtex_order(chain)] == ["achild", "zlone", "mvolume", "bseries"]


def test_a_crossref_cycle_is_written_without_looping():
    cycle = [with_fields("a", crossref="b"), with_fields("b", crossref="a")]
    assert sorted(p.key for p in in_bibtex_order(cycle)) == ["a", "b"]


def test_a_long_crossref_loop_or_chain_is_ordered_without_running_out_of_stack():
    # A loop of 600 entries (or a chain of volumes 600 deep) stopped check, bib -o, build and export with a
    # RecursionError: each level of crossref was a call deeper.
    loop = [with_fields(f"e{i:04d}", crossref=f"e{(i + 1) % 600:04d}") for i in range(600)]
    assert sorted(p.key for p in in_bibtex_order(loop)) == sorted(p.key for p in loop)
    chain = [with_fields(f"a{i:04d}", **({"crossref": f"a{i - 1:04d}"} if i else {})) for i in range(600)]
    assert [p.key for p in in_bibtex_order(chain)] == [p.key for p in chain[::-1]]  # each child before its parent


def test_a_crossref_cycle_is_written_in_the_same_order_whatever_order_it_was_read_in():
    cycle = [
        with_fields("circ1", crossref="circ3"),
        with_fields("circ2", crossref="circ1"),
        with_fields("circ3", crossref="circ2"),
    ]
    orders = {
        tuple(p.key for p in in_bibtex_order(shuffled)) for shuffled in (cycle, cycle[::-1], cycle[1:] + cycle[:1])
    }
    assert len(orders) == 1

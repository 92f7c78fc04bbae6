from dataclasses import replace

from surveytool.analysis import merge
from surveytool.analysis.key_fates import key_findings
from surveytool.analysis.keys import assign_keys, key_base
from surveytool.analysis.merge import IdentityCache, merge_duplicates, merge_records
from surveytool.model import Origin, Paper, Resolution, SourceLocation, frozen_mapping


def paper(line, origin=Origin.BIBTEX, key="", **fields):
    return Paper(origin=origin, sources=(SourceLocation("x.bib", line),), fields=frozen_mapping(fields), key=key)


SNIPPET = "Sharding a large machine learning model across multiple devices to balance the costs is important in distributed training. This is challenging…"


def test_merging_a_preprint_and_its_published_version_on_request_keeps_venue_eprint_and_the_first_key():
    preprint = paper(1, key="pre", title="Deep Things", eprint="2104.14830v2", year="2021")
    published = paper(
        9, key="pub", title="Deep Things", doi="10.1/X", eprint="arXiv:2104.14830", booktitle="ASRU", year="2021"
    )
    assert len(merge_duplicates([preprint, published])) == 2  # the user's own entries: reported, not merged
    [merged] = merge_duplicates([preprint, published], merge_user_entries=True)
    assert merged.fields["booktitle"] == "ASRU" and merged.fields["eprint"] == "arXiv:2104.14830"
    assert merged.key == "pre" and merged.aliases == ("pub",)  # the first entry keeps its key
    assert [s.line for s in merged.sources] == [1, 9]


def test_arxiv_doi_is_the_arxiv_id():
    a = paper(1, key="a", doi="10.48550/arXiv.2301.02959")
    b = paper(2, key="b", eprint="2301.02959")
    assert len(merge_duplicates([a, b], merge_user_entries=True)) == 1


def test_same_and_near_same_snippets_merge_and_a_shared_opening_does_not():
    one = paper(1, Origin.SNIPPET, abstract=SNIPPET)
    two = paper(5, Origin.SNIPPET, abstract=SNIPPET.replace("…", "..."))
    edited = paper(7, Origin.SNIPPET, abstract=SNIPPET.replace("Sharding", "Partitioning"))  # a near-exact copy
    other = paper(
        9,
        Origin.SNIPPET,
        abstract="Sharding a large machine learning model across multiple devices is "
        "what we avoid: we train many small models independently and merge their weights afterwards…",
    )
    merged = merge_duplicates([one, two, edited, other])
    assert len(merged) == 2 and len(merged[0].sources) == 3


OPENING = (
    "Large language models (LLMs) have shown remarkable capabilities across a wide range of natural language tasks. "
    "However,"
)
EDGE = OPENING + " their deployment on edge devices is limited by…"
CLUSTERS = OPENING + " their training requires enormous clusters of…"
CUT = OPENING + "…"  # a prefix of both: the words that tell them apart are cut off


def snippets(*texts_and_lines):
    return [paper(line, Origin.SNIPPET, abstract=text) for text, line in texts_and_lines]


def test_a_snippet_cut_before_two_papers_differ_joins_neither_and_both_papers_keep_their_text():
    for order in ([(EDGE, 3), (CLUSTERS, 5), (CUT, 7)], [(CUT, 7), (CLUSTERS, 5), (EDGE, 3)]):
        merged, findings = merge_records(snippets(*order))
        by_line = {tuple(s.line for s in p.sources): p.fields["abstract"] for p in merged}
        # Either paper could be the cut one's; joining the first read would depend on the order of the list.
        assert by_line == {(3,): EDGE, (5,): CLUSTERS, (7,): CUT}
        [finding] = findings
        assert finding.check == "suspicious-duplicate-id" and finding.location.line == 7
        assert [s.line for s in finding.places] == [7, 3, 5]
        assert "merged into neither" in finding.message and "their abstracts differ" in finding.message


def test_two_papers_sharing_an_opening_stay_apart_and_a_cut_snippet_listed_twice_is_one_entry():
    merged, findings = merge_records(snippets((EDGE, 1), (CLUSTERS, 2)))
    assert len(merged) == 2 and not findings
    merged, findings = merge_records(snippets((CUT, 1), (EDGE, 2), (CUT, 3), (CLUSTERS, 4)))
    assert sorted([s.line for s in p.sources] for p in merged) == [[1, 3], [2], [4]]
    assert [f.location.line for f in findings] == [1, 3]


def test_a_cut_snippet_still_merges_with_its_one_full_version_in_either_order():
    for order in ([(EDGE, 1), (CUT, 2)], [(CUT, 1), (EDGE, 2)]):
        merged, findings = merge_records(snippets(*order))
        assert [(len(p.sources), p.fields["abstract"]) for p in merged] == [(2, EDGE)] and not findings


def test_same_title_with_different_first_authors_is_not_merged():
    a = paper(1, key="a", title="Attention Is All You Need", author="Vaswani, A.")
    b = paper(2, key="b", title="Attention is all you need", author="Smith, B.")
    c = paper(3, key="c", title="Attention is all you need!", author="Ashish Vaswani")
    assert [len(p.sources) for p in merge_duplicates([a, b, c], merge_user_entries=True)] == [2, 1]


def test_a_year_that_cannot_be_read_does_not_keep_one_work_apart_and_two_years_do():
    def entry(line: int, year: str) -> Paper:
        return paper(line, key=f"k{line}", title="Attention Is All You Need", author="Vaswani, A.", year=year)

    # The typo "12021" was read as the year 1202, and the two entries as two works.
    assert len(merge_duplicates([entry(1, "2021"), entry(2, "12021")], merge_user_entries=True)) == 1
    assert len(merge_duplicates([entry(1, "2021"), entry(2, "2015")], merge_user_entries=True)) == 2
    # A short title is one work only with the same authors and year: "(2016)" is the year 2016.
    short = [
        paper(n, key=f"s{n}", title="Layer normalization", author="Ba, J.", year=y)
        for n, y in ((1, "2016"), (2, "(2016)"))
    ]
    assert len(merge_duplicates(short, merge_user_entries=True)) == 1


def resolved(line, title, author, year):
    return replace(
        paper(line, Origin.SNIPPET, title=title, author=author, year=year, abstract=f"text {line} " * 10),
        resolution=Resolution("catalog", "k", "abstract", 1.0),
    )


def test_key_formula_and_collision_suffixes():
    a = resolved(1, "GShard: Scaling Giant Models", "Dmitry Lepikhin and X Y", "2021")
    b = resolved(2, "GShard: Another Paper", "Lepikhin, Dmitry", "2021")
    assert key_base(a) == "lepikhin2021gshard"
    keyed, _ = assign_keys([a, b])
    assert sorted(p.key for p in keyed) == ["lepikhin2021gshard", "lepikhin2021gshardb"]


def test_pinned_keys_survive_insertions_and_removals():
    papers = [resolved(i, f"Title {w} Here", "Ann Lee", "2020") for i, w in enumerate(["Alpha", "Beta", "Gamma"], 1)]
    first, pins = assign_keys(papers)
    newcomer = resolved(7, "Title Zeta Here", "Ann Lee", "2020")
    second, _ = assign_keys([newcomer, *papers[1:]], pins)
    before = {p.sources: p.key for p in first}
    assert all(before[p.sources] == p.key for p in second if p.sources in before)
    assert len({p.key for p in second}) == 3


def test_user_keys_are_always_kept():
    mine = paper(1, key="MyKey2020", title="A Title Of Mine", author="Zed")
    [keyed], _ = assign_keys([mine])
    assert keyed.key == "MyKey2020"


def test_keys_differing_only_in_case_are_one_key_as_bibtex_reads_them():
    # BibTeX drops the second of "Smith2020" and "smith2020" as a repeated entry: it gets a key of its own.
    first = paper(1, key="Smith2020", title="One Paper on Sharding", author="Ann Smith")
    second = paper(2, key="smith2020", title="Another Paper on Pipelines", author="Bob Smith")
    keyed, _ = assign_keys([first, second])
    assert [p.key for p in keyed] == ["Smith2020", "smith2020b"]
    [finding] = key_findings([first, second], keyed)
    assert (finding.check, finding.key, finding.location.line, finding.places) == (
        "duplicate-key",
        "smith2020",
        2,
        (first.sources[0],),
    )
    assert (
        "keeps it as 'Smith2020': BibTeX compares keys ignoring case" in finding.message
        and "'smith2020b'" in finding.message
    )
    merged = replace(paper(1, key="j", title="A Merged Work Here"), aliases=("M",))
    keyed, _ = assign_keys([merged, paper(9, key="m", title="Unrelated Work Using That Key")])
    assert [p.key for p in keyed] == ["j", "mb"]


def test_unresolved_snippets_get_stable_fingerprint_keys():
    snippet = paper(3, Origin.SNIPPET, abstract=SNIPPET)
    assert key_base(snippet) == key_base(replace(snippet, sources=(SourceLocation("y.txt", 40),)))
    assert key_base(snippet).startswith("anon-sharding-")


def test_unresolved_ids_get_keys_that_differ_in_their_hash_not_by_a_suffix():
    ids = [paper(n, Origin.IDENTIFIER, doi=f"10.1145/33413{n:02d}") for n in range(20)]
    ids += [paper(30 + n, Origin.IDENTIFIER, eprint=f"2104.148{n:02d}") for n in range(20)]
    keyed, _ = assign_keys(ids)
    keys = [p.key for p in keyed]
    assert len(set(keys)) == 40 and all(len(k) == len("anon-entry-646f") for k in keys)
    assert keys == [p.key for p in assign_keys(ids)[0]]  # the same ids, the same keys


def test_identities_are_computed_once_per_paper_and_shared_by_merging_and_keys(monkeypatch):
    calls = []
    real = merge.identities
    monkeypatch.setattr(merge, "identities", lambda found: calls.append(found) or real(found))
    first = paper(1, title="Pipeline Parallelism for Large Models", doi="10.1/x")
    same = paper(2, title="Pipeline Parallelism for Large Models", doi="10.1/x")
    other = paper(3, title="Sharded Data Parallel Training at Scale")
    cache = IdentityCache()
    merged = merge_duplicates([first, same, other], cache)
    assert len(calls) == 3  # equal papers are still two objects
    keyed = assign_keys(merged, {}, cache)
    assert len(calls) == 4  # only the merged paper is new; the other one was not recomputed
    assert keyed == assign_keys(merge_duplicates([first, same, other]), {})


def test_a_renamed_duplicate_key_is_no_alias_and_absorbed_keys_are_never_given_to_another_entry():
    first = paper(1, key="k", title="The First Paper Here", author="Ann Lee")
    second = paper(5, key="k", title="Another Paper Entirely", author="Bo Chen")
    keyed, _ = assign_keys([first, second])
    assert [(p.key, p.aliases) for p in keyed] == [
        ("k", ()),
        ("kb", ()),
    ]  # 'k' is the first entry's, not an alias of 'kb'
    merged = replace(paper(1, key="j", title="A Merged Work Here"), aliases=("m",))
    newcomer = paper(9, key="m", title="Unrelated Work Using That Key")
    keyed, _ = assign_keys([merged, newcomer])
    assert [p.key for p in keyed] == ["j", "mb"]  # \cite{m} keeps meaning the merged entry (biblatex ids)


def test_merge_findings_name_both_keys_their_places_and_the_shared_evidence():
    a = paper(1, key="a", title="Pipeline Parallelism at Scale", doi="10.1/x", author="Lee, Ann", year="2020")
    b = paper(7, key="b", title="Pipeline parallelism at scale", doi="10.1/X", author="Ann Lee", year="2020")
    c = paper(9, key="c", title="A Different Paper Altogether", doi="10.1/x", author="Bo Chen", year="2021")
    merged, findings = merge_records([a, b, c])
    assert [p.key for p in merged] == ["a", "b", "c"]
    findings.sort(key=lambda f: f.location.line)  # as the pipeline orders them; entries kept apart come last
    assert [(f.check, f.key, f.location.line) for f in findings] == [
        ("duplicate-entry", "b", 7),
        ("suspicious-duplicate-id", "c", 9),
    ]
    assert findings[0].message == (
        "'b' (x.bib:7) and 'a' (x.bib:1) look like the same work: the same DOI 10.1/x; both are kept"
    )
    assert "their titles differ" in findings[1].message


def test_a_key_two_different_entries_use_is_never_absorbed_by_a_requested_merge():
    first = paper(1, key="k", title="Pipeline Parallelism at Scale", doi="10.1/x")
    other = paper(3, key="k", title="Something Else Entirely Here")
    same_work = paper(5, key="j", title="Pipeline Parallelism at Scale", doi="10.1/x")
    merged = merge_duplicates([first, other, same_work], merge_user_entries=True)
    assert [(p.key, p.aliases) for p in merged] == [("k", ()), ("k", ()), ("j", ())]


def test_an_identical_copy_of_a_reported_duplicate_is_merged_and_not_reported_again():
    first = paper(1, key="Smith2009", title="Quantum somethings", author="Caroline JA Smith", year="2009")
    variant = paper(
        5, key="Smith2009a", title="Quantum somethings", author="Caroline JA Smith", year="2009", booktitle="blah"
    )
    copy = paper(9, key="Smith2009", title="Quantum somethings", author="Caroline JA Smith", year="2009")
    merged, findings = merge_records([first, variant, copy])
    assert [(p.key, [s.line for s in p.sources]) for p in merged] == [("Smith2009", [1, 9]), ("Smith2009a", [5])]
    assert [(f.check, f.key) for f in findings] == [("duplicate-entry", "Smith2009a")]


def test_two_chapters_sharing_an_abstract_keep_their_keys_when_one_leaves():
    abstract = "Chapter abstracts in edited volumes are often the volume's blurb, shared word for word by every chapter"
    chapters = [
        replace(
            Paper(
                Origin.SNIPPET,
                (SourceLocation("l.txt", n),),
                frozen_mapping({"title": title, "author": "Ann Lee", "year": "2020", "abstract": abstract}),
            ),
            resolution=Resolution("catalog", "volume", "abstract", 1.0),
        )
        for n, title in ((1, "Preface"), (2, "Preface II"))
    ]
    first, pins = assign_keys(chapters)
    assert sorted(p.key for p in first) == ["lee2020preface", "lee2020prefaceb"]
    for leaving in range(2):
        again, _ = assign_keys([chapters[1 - leaving]], pins)
        assert again[0].key == first[1 - leaving].key  # the pin of the chapter that left is not handed over


def test_merging_a_google_scholar_preprint_keeps_its_full_names_and_its_arxiv_id():
    published = paper(1, key="pub", title="Pipe Dreams at Scale", author="Narayanan, D. and Harlap, A. and others")
    published = replace(published, fields=frozen_mapping({**published.fields, "booktitle": "SOSP", "year": "2019"}))
    preprint = paper(
        9,
        key="pre",
        title="Pipe Dreams at Scale",
        author="Narayanan, Deepak and Harlap, Aaron and Phanishayee, Amar",
        journal="arXiv preprint arXiv:1806.03377",
        year="2018",
    )
    [merged] = merge_duplicates([published, preprint], merge_user_entries=True)
    assert merged.fields["author"] == "Narayanan, Deepak and Harlap, Aaron and Phanishayee, Amar"
    assert merged.fields["eprint"] == "1806.03377" and merged.fields["archiveprefix"] == "arXiv"
    assert merged.fields["booktitle"] == "SOSP" and merged.fields["year"] == "2019" and "journal" not in merged.fields
    # The published record's own arXiv id, or one in its eprint field, is never replaced.
    with_id = replace(published, fields=frozen_mapping({**published.fields, "eprint": "1806.03377v2"}))
    [merged] = merge_duplicates([with_id, preprint], merge_user_entries=True)
    assert merged.fields["eprint"] == "1806.03377v2" and "archiveprefix" not in merged.fields


def test_a_name_list_replaces_the_kept_one_only_when_it_names_the_same_people_more_fully():
    def merged_authors(kept: str, other: str) -> str:
        first = paper(1, key="a", title="Pipe Dreams at Scale", author=kept, booktitle="SOSP", year="2019")
        second = paper(2, key="b", title="Pipe Dreams at Scale", author=other, year="2019")
        [merged] = merge_duplicates([first, second], merge_user_entries=True)
        return merged.fields["author"]

    full = "Narayanan, Deepak and Harlap, Aaron"
    assert merged_authors("Narayanan, D. and Harlap, A.", full) == full  # initials, then whole given names
    assert merged_authors("D. Narayanan and others", full) == full  # "and others" said there were more
    assert merged_authors(full, "Narayanan, D. and Harlap, A.") == full  # never the shorter spelling
    # A list that names someone else, or more people than a list without "others" says there are: kept as read.
    assert merged_authors("Narayanan, D. and Harlap, A.", "Narayanan, Deepak and Smith, Aaron") == (
        "Narayanan, D. and Harlap, A."
    )
    assert merged_authors(
        "Narayanan, D. and Harlap, A.", "Narayanan, Deepak and Harlap, Aaron and Phanishayee, Amar"
    ) == ("Narayanan, D. and Harlap, A.")
    assert merged_authors("Narayanan, Dan and Harlap, A.", full) == "Narayanan, Dan and Harlap, A."  # Dan is not Deepak


def test_a_column_title_in_two_months_of_one_journal_is_two_works():
    def column(line: int, key: str, **when: str) -> Paper:
        return paper(line, key=key, title="Letter from the Editor", journal="Commun. ACM", year="2020", **when)

    march, april = column(1, "mar", month="mar"), column(9, "apr", month="April")
    assert len(merge_duplicates([march, april], merge_user_entries=True)) == 2
    dated = column(17, "dated", date="2020-04-01")  # biblatex's date says the month too
    assert len(merge_duplicates([march, dated], merge_user_entries=True)) == 2
    assert len(merge_duplicates([april, dated], merge_user_entries=True)) == 1

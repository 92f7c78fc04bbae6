"""`surveytool complete` against services on 127.0.0.1 that spell the first author their own way."""

import json

import pytest
from helpers import run_cli
from loopback import FakeServices, serve

MINE = """@article{van2008visualizing,
  title={Visualizing data using t-SNE.},
  author={Van der Maaten, Laurens and Hinton, Geoffrey},
  journal={Journal of machine learning research},
  volume={9},
  number={11},
  year={2008}
}

@article{atlas2012observation,
  title={Observation of a new particle in the search for the Standard Model Higgs boson with the ATLAS detector at the LHC},
  author={{ATLAS Collaboration}},
  journal={Physics Letters B},
  year={2012}
}

@inproceedings{li2017feature,
  title={Feature pyramid networks for object detection},
  author={Li, Tsung-Yi and Doll{\\'a}r, Piotr},
  booktitle={CVPR},
  year={2017}
}
"""

# Semantic Scholar abbreviates the particles as if they were given names.
S2_SEARCH = {
    "total": 1,
    "data": [
        {
            "paperId": "1c46943103bd7b7a2c7be86859995a4144d1938b",
            "externalIds": {"MAG": "2187089797", "DBLP": "journals/jmlr/MaatenH08", "CorpusId": 5855042},
            "publicationVenue": {"name": "Journal of machine learning research", "type": "journal"},
            "title": "Visualizing Data using t-SNE",
            "venue": "Journal of machine learning research",
            "year": 2008,
            "journal": {"name": "J. Mach. Learn. Res.", "volume": "9", "pages": "2579-2605"},
            "authors": [{"authorId": "1731948", "name": "L. V. D. Maaten"}, {"name": "Geoffrey E. Hinton"}],
        }
    ],
}


def dblp_hit(key, title, authors, venue, year, kind, **more):
    people = [{"@pid": str(n), "text": name} for n, name in enumerate(authors)]
    info = {"authors": {"author": people}, "title": title, "venue": venue, "year": year, "type": kind, "key": key}
    return {"info": {**info, **more}}


# DBLP writes the particles as they are, in the given-name-first order.
DBLP_SEARCH = {
    "result": {
        "hits": {
            "@total": "2",
            "hit": [
                dblp_hit(
                    "journals/jmlr/MaatenH08",
                    "Visualizing Data using t-SNE.",
                    ["Laurens van der Maaten", "Geoffrey E. Hinton"],
                    "J. Mach. Learn. Res.",
                    "2008",
                    "Journal Articles",
                    volume="9",
                    pages="2579-2605",
                    ee="http://jmlr.org/papers/v9/vandermaaten08a.html",
                ),
                dblp_hit(
                    "conf/cvpr/LinDGHHB17",
                    "Feature Pyramid Networks for Object Detection.",
                    ["Tsung-Yi Lin", "Piotr Dollár", "Ross B. Girshick"],
                    "CVPR",
                    "2017",
                    "Conference and Workshop Papers",
                    pages="936-944",
                    doi="10.1109/CVPR.2017.106",
                    ee="https://doi.org/10.1109/CVPR.2017.106",
                ),
            ],
        }
    }
}

# Crossref names an organisation by "name" alone, before the people.
CROSSREF_SEARCH = {
    "message": {
        "items": [
            {
                "DOI": "10.1016/j.physletb.2012.08.020",
                "type": "journal-article",
                "title": [
                    "Observation of a new particle in the search for the Standard Model Higgs boson with the ATLAS "
                    "detector at the LHC"
                ],
                "author": [
                    {"name": "ATLAS Collaboration", "sequence": "first", "affiliation": []},
                    {"given": "G.", "family": "Aad", "sequence": "additional", "affiliation": []},
                ],
                "container-title": ["Physics Letters B"],
                "issued": {"date-parts": [[2012, 9]]},
                "volume": "716",
                "issue": "1",
                "page": "1-29",
                "publisher": "Elsevier BV",
            }
        ]
    }
}


@pytest.fixture
def services(tmp_path):
    FakeServices.routes, FakeServices.seen = {}, []
    with serve(FakeServices) as base:
        names = ("openalex", "crossref", "arxiv", "dblp", "semantic_scholar")
        lines = "".join(f'{name}_url = "{base}/{name}"\n' for name in names)
        (tmp_path / "surveytool.toml").write_text(f"[online]\n{lines}timeout = 1\nretries = 0\nmin_interval = 0\n")
        FakeServices.routes = {
            f"/{name}": [(200, {"Content-Type": "application/json"}, json.dumps(answer), 0)]
            for name, answer in (
                ("semantic_scholar/graph/v1/paper/search", S2_SEARCH),
                ("dblp/search/publ/api", DBLP_SEARCH),
                ("crossref/works", CROSSREF_SEARCH),
            )
        }
        yield FakeServices


def test_first_authors_spelled_another_way_by_each_service_are_completed_and_a_lookalike_is_not(services, tmp_path):
    bib = tmp_path / "my.bib"
    bib.write_text(MINE, encoding="utf-8")
    result = run_cli("complete", "my.bib", "--online", "--in-place", "--cache", "cache.sqlite", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert bib.read_text(encoding="utf-8") == MINE.replace(
        "  year={2008}\n",
        "  year={2008},\n  pages={2579--2605},\n  url={http://jmlr.org/papers/v9/vandermaaten08a.html}\n",
    ).replace(
        "  year={2012}\n",
        "  year={2012},\n  volume={716},\n  number={1},\n  pages={1--29},\n  publisher={Elsevier BV},\n"
        "  doi={10.1016/j.physletb.2012.08.020}\n",
    )
    out = result.stdout
    # "Van der Maaten, Laurens" is Semantic Scholar's "L. V. D. Maaten" and DBLP's "Laurens van der Maaten".
    assert "my.bib:1: van2008visualizing: added pages = 2579-2605 (semantic_scholar 1c469431" in out
    assert "added url = http://jmlr.org/papers/v9/vandermaaten08a.html (dblp journals/jmlr/MaatenH08)" in out
    # "{ATLAS Collaboration}" is Crossref's organisation author, not the first person it lists.
    assert "my.bib:10: atlas2012observation: added doi = 10.1016/j.physletb.2012.08.020 (crossref" in out
    # DBLP's record of the same title and year is by Lin, not Li: nothing is taken.
    assert "li2017feature" not in out and "7 change(s) made in 2 entr(ies) of my.bib" in out

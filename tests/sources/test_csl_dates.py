"""CSL-JSON dates and states of publication read as a .bib writes them."""

import json

from helpers import run_cli

from surveytool.sources.csl_json import csl_to_papers


def test_only_in_press_and_its_kin_become_the_year_of_an_item_with_no_date(tmp_path):
    # Any status of an undated item became its year: "accepted" read as year = {accepted}, junk as a year of junk.
    statuses = ("in press", "Forthcoming", "accepted", "under review at <i>J</i>", "prepublished", "in press")
    items = [{"id": f"s{n}", "title": "T", "status": state} for n, state in enumerate(statuses)]
    items[-1]["issued"] = {"literal": "n.d."}  # no date, said so: its state is still kept
    papers, findings = csl_to_papers(items, "x.json", "")
    assert findings == []
    got = [{f: p.fields[f] for f in ("year", "pubstate") if f in p.fields} for p in papers]
    assert got == [
        {"year": "in press"},
        {"year": "Forthcoming"},
        {"pubstate": "accepted"},
        {"pubstate": "under review at J"},
        {"pubstate": "prepublished"},
        {"year": "n.d.", "pubstate": "inpress"},
    ]
    (tmp_path / "s.json").write_text(json.dumps(items[2:3]), encoding="utf-8")
    bib = run_cli("bib", "s.json", "-o", "-", cwd=tmp_path, check=True).stdout
    assert "pubstate = {accepted}," in bib and "year =" not in bib

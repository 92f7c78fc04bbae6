"""url-scheme: a url field that links to no web page (a file, a program, a script) is reported and left out of
the .bib surveytool writes; the user's file keeps it."""

import pytest
from helpers import run_cli

from surveytool.text.addresses import web_address

# As the security review wrote them: each a PDF link once a style prints the field in \url.
LINKS_ELSEWHERE = """@misc{share,
  title = {A}, author = {Doe, Jane}, year = {2021},
  url = {file://attacker/share/x.pdf}
}
@misc{program,
  title = {B}, author = {Doe, Jane}, year = {2021},
  url = {run:/bin/sh}
}
@misc{script,
  title = {C}, author = {Doe, Jane}, year = {2021},
  url = { JavaScript:app.alert(1)}
}
@misc{path,
  title = {D}, author = {Doe, Jane}, year = {2021},
  url = {../../../../home}
}
@misc{web,
  title = {E}, author = {Doe, Jane}, year = {2021},
  url = {https://x.org/a}
}
"""


@pytest.mark.parametrize(
    "address",
    [
        "file:///etc/passwd",
        "run:/bin/sh",
        "javascript:alert(1)",
        "data:text/html,x",
        "../a",
        "//host/share",
        "C:\\papers\\a.pdf",
        "mailto:a@x.org",
        "javascript.x.org:alert(1)",
        "/etc/passwd",
    ],
)
def test_an_address_that_leads_off_the_web_is_no_web_address(address):
    assert web_address(address) is None


@pytest.mark.parametrize(
    "address", ["https://x.org/a", "HTTP://x.org", "ftp://ftp.cs.x.edu/pub/tr.ps.gz", "x.org/a", "x.org:8080/a", ""]
)
def test_a_web_address_stays_one(address):
    assert web_address(address) == address


def test_bib_reports_each_on_its_line_and_writes_none_of_them(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(LINKS_ELSEWHERE, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    found = [line.split(" (")[0] for line in result.stderr.splitlines() if "[url-scheme]" in line]
    assert found == [
        "refs.bib:3: error [url-scheme] url of 'share' is a file: address, not a web page: file://attacker/share/x.pdf",
        "refs.bib:7: error [url-scheme] url of 'program' is a run: address, not a web page: run:/bin/sh",
        "refs.bib:11: error [url-scheme] url of 'script' is a javascript: address, not a web page: JavaScript:app.alert(1)",
        "refs.bib:15: error [url-scheme] url of 'path' is a path on the reader's machine, not a web page: ../../../../home",
    ]
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert written.count("url = ") == 1 and "url = {https://x.org/a}" in written
    assert bib.read_text(encoding="utf-8") == LINKS_ELSEWHERE


def test_bib_in_place_leaves_them_in_the_users_file(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(LINKS_ELSEWHERE, encoding="utf-8")
    result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert "url of 'program' is a run: address, not a web page: run:/bin/sh" in result.stderr
    assert bib.read_text(encoding="utf-8") == LINKS_ELSEWHERE

"""url-scheme: a url field that links to no web page (a file, a program, a script) is reported and left out of
the .bib surveytool writes; the user's file keeps it."""

import subprocess

import pytest
from helpers import requires_latex, run_bibtex, run_cli

from surveytool.text.addresses import web_address, www_links_to_the_web

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
        "javascript.x.org:alert(1)",
        "smith2020.pdf",
        "papers/report.html",
        "/etc/passwd",
    ],
)
def test_an_address_that_leads_off_the_web_is_no_web_address(address):
    assert web_address(address) is None


@pytest.mark.parametrize(
    "address", ["https://x.org/a", "HTTP://x.org", "ftp://ftp.cs.x.edu/pub/tr.ps.gz", "mailto:a@x.org", ""]
)
def test_a_web_address_stays_one(address):
    assert web_address(address) == address


@pytest.mark.parametrize(
    "address", ["x.org/a", "x.org:8080/a", "www.x.org", "www.a/../../etc/passwd", "192.0.2.1/x", "x.org/a.pdf"]
)
def test_a_host_written_without_its_scheme_is_given_https(address):
    assert web_address(address) == "https://" + address


@pytest.mark.parametrize(
    ("address", "link"),
    [
        ("doi:10.1000/x_y", "https://doi.org/10.1000/x_y"),
        ("10.1000/abc", "https://doi.org/10.1000/abc"),
        ("arXiv:2101.00001v2", "https://arxiv.org/abs/2101.00001v2"),
        ("<https://x.org/p>", "https://x.org/p"),
    ],
)
def test_an_identifier_or_a_bracketed_address_is_the_link_it_stands_for(address, link):
    assert web_address(address) == link


def test_a_www_address_of_url_or_href_is_given_https_and_nothing_else_is():
    latex = (
        "\\href {WWW.a/../x}{a} \\url{ www.b.org} \\href{https://www.c.org}{c} www.d.org \\textbackslash{}url{www.e}"
    )
    assert www_links_to_the_web(latex) == (
        "\\href {https://WWW.a/../x}{a} \\url{ https://www.b.org} \\href{https://www.c.org}{c} www.d.org "
        "\\textbackslash{}url{www.e}"
    )


def test_bib_reports_each_on_its_line_and_writes_none_of_them(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(LINKS_ELSEWHERE, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    found = [line.split(" (")[0] for line in result.stderr.splitlines() if "[url-scheme]" in line]
    assert found == [
        "refs.bib:3: error [url-scheme] url of 'share' is a link with the scheme file:, not a web page: "
        "file://attacker/share/x.pdf",
        "refs.bib:7: error [url-scheme] url of 'program' is a link with the scheme run:, not a web page: run:/bin/sh",
        "refs.bib:11: error [url-scheme] url of 'script' is a link with the scheme javascript:, not a web page: "
        "JavaScript:app.alert(1)",
        "refs.bib:15: error [url-scheme] url of 'path' is a path on the reader's machine, not a web page: ../../../../home",
    ]
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert written.count("url = ") == 1 and "url = {https://x.org/a}" in written
    assert bib.read_text(encoding="utf-8") == LINKS_ELSEWHERE


def test_bib_in_place_leaves_them_in_the_users_file(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(LINKS_ELSEWHERE, encoding="utf-8")
    result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert "url of 'program' is a link with the scheme run:, not a web page: run:/bin/sh" in result.stderr
    assert bib.read_text(encoding="utf-8") == LINKS_ELSEWHERE


# hyperref links \href{www.x}{...} to the local file www.x.pdf (a GoToR action), and \url{www.x} or a url field
# of a host relative to the PDF's folder: the review's \href{www.a/../../../../etc/passwd}.
LINKS_WITHOUT_A_SCHEME = """@string{site = "see \\href{www.s.org/x}{here}"}
@article{traversal,
  title = {Hello \\href{www.a/../../../../etc/passwd}{click} \\url{www.x/../../bin/sh}},
  author = {Smith, John}, year = {2020}, journal = {J}, note = site,
  url = {www.y.org/a}
}
@misc{host, title = {C}, author = {Doe, J}, year = 2020, url = {citeseer.nj.nec.com/a.html}}
"""


def test_the_written_bib_links_each_www_address_to_the_web(tmp_path):
    (tmp_path / "refs.bib").write_text(LINKS_WITHOUT_A_SCHEME, encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert '@string{site = "see \\href{https://www.s.org/x}{here}"}' in written
    assert "\\href{https://www.a/../../../../etc/passwd}{click} \\url{https://www.x/../../bin/sh}" in written
    assert "url = {https://www.y.org/a}" in written and "url = {https://citeseer.nj.nec.com/a.html}" in written
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == LINKS_WITHOUT_A_SCHEME


def test_a_string_whose_other_command_is_made_inert_links_its_www_address_to_the_web_too(tmp_path):
    # Such a @string is written as safe_bibtex_value makes it, not as written: it had missed the https:// there.
    bib = '@string{site = "see \\href{www.s.org/x}{here}, \\input{notes}"}\n@misc{a, title = {A}, note = site}\n'
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "@string{site = {see \\href{https://www.s.org/x}{here}, \\textbackslash{}input{notes}}}" in written
    assert "www" not in written.replace("https://www.", "")


@requires_latex
def test_the_pdf_has_web_links_only(tmp_path):
    (tmp_path / "coauthor.bib").write_text(LINKS_WITHOUT_A_SCHEME, encoding="utf-8")
    run_cli("bib", "coauthor.bib", "-o", "references.bib", cwd=tmp_path, check=True)
    preamble = "\\pdfcompresslevel=0 \\pdfobjcompresslevel=0 \\usepackage{url}\\usepackage{hyperref}"
    result, bbl = run_bibtex(tmp_path, preamble, style="plainnat")
    assert result.returncode == 0, result.stdout
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "all.tex"], cwd=tmp_path, capture_output=True)
    pdf = (tmp_path / "all.pdf").read_bytes()
    assert b"/S/URI/URI(https://www.y.org/a)" in pdf and b"/URI(https://www.a/../../../../etc/passwd)" in pdf
    assert b"GoToR" not in pdf and b"/Launch" not in pdf and b"/URI(www." not in pdf


# Addresses as the wild writes them: a home page's ~, a --, a url wrapped in \href, a DOI, a mail address, a
# scheme a viewer hands to another program, a file beside the .bib.
ADDRESSES_AS_WRITTEN = """@misc{tilde, title = {A}, author = {Doe, J}, year = 2020, url = {www.x.org/~user/a%20b}}
@misc{dashes, title = {B}, author = {Doe, J}, year = 2020, url = {www.x.org/a--b/c}}
@misc{wrapped, title = {C}, author = {Doe, J}, year = 2020, url = {\\href{www.x.org/p}{here}}}
@misc{mail, title = {D}, author = {Doe, J}, year = 2020, URL = {mailto:jane@x.org}}
@misc{doi, title = {E}, author = {Doe, J}, year = 2020, url = {doi:10.1000/x}}
@misc{file, title = {F}, author = {Doe, J}, year = 2020, Url = {smith2020.pdf}}
@misc{shell, title = {G}, author = {Doe, J}, year = 2020, url = {ssh://h/x}}
"""


def test_an_address_is_written_as_written_with_only_its_scheme_added(tmp_path):
    (tmp_path / "refs.bib").write_text(ADDRESSES_AS_WRITTEN, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    urls = [line.strip() for line in written.splitlines() if line.strip().startswith("url = ")]
    assert sorted(urls) == sorted(
        [
            "url = {https://doi.org/10.1000/x},",
            "url = {https://www.x.org/a--b/c},",  # not an en dash
            "url = {mailto:jane@x.org},",
            "url = {https://www.x.org/~user/a%20b},",  # a ~ is no space in an address
            "url = {https://www.x.org/p},",
        ]
    )
    found = [line.split(" (")[0] for line in result.stderr.splitlines() if "[url-scheme]" in line]
    assert found == [
        "refs.bib:6: error [url-scheme] Url of 'file' is a path on the reader's machine, not a web page: smith2020.pdf",
        "refs.bib:7: warning [url-scheme] url of 'shell' is a link with the scheme ssh:, not a web page: ssh://h/x",
    ]

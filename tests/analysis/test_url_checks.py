"""url-malformed: an address with LaTeX escapes (Mendeley's {\\_}) or a space in it, and what check --fix makes of it."""

import json

from helpers import run_cli

# As Mendeley Desktop exports it: "_" and "#" escaped in the url, two addresses joined by a space.
MENDELEY = """@misc{Huggingface,
author = {{Hugging Face}},
title = {{Model parallelism}},
url = {https://huggingface.co/docs/transformers/parallelism{\\#}tensor-parallelism},
year = {2022}
}
@inproceedings{Li2020,
author = {Li, Shen},
booktitle = {Proceedings of the VLDB Endowment},
title = {{PyTorch Distributed}},
url = {https://www.vldb.org/pvldb/vol13/p3005-li.pdf http://dl.acm.org/citation.cfm?doid=3415478.3415530},
year = {2020}
}
@misc{Readme,
author = {{NVIDIA}},
title = {{Megatron}},
url = "https://github.com/NVIDIA/Megatron\\_LM/blob/main/README{\\_}old.md{~}x",
year = {2021}
}
"""


def _found(tmp_path):
    result = run_cli("check", "refs.bib", "--checks", "url-malformed", "--json", cwd=tmp_path)
    return [(f["key"], f["line"], f["message"]) for f in json.loads(result.stdout)]


def test_escaped_addresses_and_several_addresses_are_reported_on_their_line(tmp_path):
    (tmp_path / "refs.bib").write_text(MENDELEY, encoding="utf-8")
    assert _found(tmp_path) == [
        ("Huggingface", 4, "url of 'Huggingface' has LaTeX escapes in its address: {\\#}"),
        (
            "Li2020",
            11,
            "url of 'Li2020' holds 2 addresses or a space: it prints as one link that leads nowhere",
        ),
        ("Readme", 17, "url of 'Readme' has LaTeX escapes in its address: \\_, {\\_}, {~}"),
    ]


def test_fix_writes_the_characters_themselves_and_nothing_else(tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_bytes(MENDELEY.replace("\n", "\r\n").encode())
    fixed = run_cli("check", "refs.bib", "--fix", "--checks", "url-malformed", cwd=tmp_path)
    assert "fixed refs.bib:14: Readme: url: \\_ -> _, {\\_} -> _, {~} -> ~" in fixed.stdout
    expected = (
        MENDELEY.replace("{\\#}tensor", "#tensor")
        .replace("Megatron\\_LM/blob/main/README{\\_}old.md{~}x", "Megatron_LM/blob/main/README_old.md~x")
        .replace("\n", "\r\n")
    )
    assert bib.read_bytes() == expected.encode()
    # The second address is the user's to choose: it is still reported, and a second run changes nothing.
    assert [key for key, _, _ in _found(tmp_path)] == ["Li2020"]
    assert bib.read_bytes() == expected.encode()


def test_a_plain_address_and_other_fields_are_left_alone(tmp_path):
    text = MENDELEY.replace("{\\#}", "#").replace(" http://dl", "").replace("\\_", "_").replace("{~}", "~")
    text = text.replace("title = {{Megatron}}", "title = {{Megatron\\_LM}}, note = {see {\\_}x}")
    (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
    assert _found(tmp_path) == []


def test_the_hint_on_a_url_named_twice_is_the_one_every_field_check_gives(tmp_path):
    # The url check wrote its own hint for a field named twice, worded unlike the other field checks' hint.
    bib = "@misc{m,\n  title = {T},\n  url = {https://a.org/x{\\_}y},\n  url = {https://a.org/x_y},\n}\n"
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    result = run_cli("check", "refs.bib", "--checks", "url-malformed", "--json", cwd=tmp_path)
    [finding] = json.loads(result.stdout)
    assert (finding["line"], finding["hint"]) == (
        3,
        "surveytool check --fix leaves url alone, named twice (duplicate-field): delete the value you do not mean",
    )
    run_cli("check", "refs.bib", "--fix", "--checks", "url-malformed", cwd=tmp_path)
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == bib

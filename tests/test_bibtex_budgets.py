"""The BibTeX reader's budgets (issue 37, item 3): the pathological shapes of the issue, each
refused (or read) with an error naming the budget, in time linear in the file's size. Each
shape is the size the issue measured (seconds to minutes, or gigabytes, before the budgets):
a test that ends in well under a second here is the bound."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_mcp import connect, text_of

import paperlens
from paperlens.errors import BibTeXSyntaxError
from paperlens.sandbox import Sandbox
from paperlens.workflows._bibtex import MAX_BRACE_DEPTH, MAX_BYTES, MAX_EXPANDED_BYTES, read_bibtex

MIB = 1 << 20


def one_string_used_5000_times() -> str:
    """A 1 MiB ``@string`` used 5,000 times: 5 GB once expanded (over 4 GiB before the budget)."""
    uses = "\n".join(f"@misc{{k{n}, title = big}}" for n in range(5000))
    return '@string{big = "' + "x" * MIB + '"}\n' + uses + "\n"


def test_a_macro_expanded_past_its_budget_is_refused_naming_the_budget_and_the_entry():
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex(one_string_used_5000_times())
    message = str(caught.value)
    assert f"max_expanded_bytes ({MAX_EXPANDED_BYTES})" in message
    assert caught.value.key == f"k{MAX_EXPANDED_BYTES // MIB}"  # the first use past 64 MiB: entry 65
    assert caught.value.line == 2 + MAX_EXPANDED_BYTES // MIB
    assert (caught.value.param, caught.value.rule) == ("source", "max_expanded_bytes")


def test_macros_that_double_each_other_are_refused_by_the_fixed_cap_of_parts_naming_it():
    doubling = "".join(f"@string{{m{n} = m{n - 1} # m{n - 1}}}\n" for n in range(1, 40))
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex('@string{m0 = "x"}\n' + doubling + "@misc{k, title = m39}\n", max_expanded_bytes=2**60)
    assert str(caught.value).endswith("its macros expand to more than 2097152 parts (a fixed cap)")
    assert (caught.value.key, caught.value.line, caught.value.rule) == ("@string", 22, "macro parts")


def test_macro_uses_within_the_budget_read_whole():
    text = '@string{kb = "' + "y" * 1024 + '"}\n' + "".join(f"@misc{{k{n}, title = kb # {{!}}}}\n" for n in range(5000))
    entries = read_bibtex(text)
    assert [e.fields["title"] for e in entries] == ["y" * 1024 + "!"] * 5000
    with pytest.raises(BibTeXSyntaxError, match=r"max_expanded_bytes \(4096\)"):
        read_bibtex(text, max_expanded_bytes=4096)


def test_an_unclosed_entry_repeated_80000_times_is_refused_at_once():
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex("@a{" * 80000)
    assert (caught.value.ordinal, caught.value.line, caught.value.rule) == (1, 1, "max_brace_depth")


def test_braces_nested_200000_deep_are_refused_naming_the_budget():
    text = "@misc{ok, title = {fine}}\n@misc{deep, title = " + "{" * 200_000 + "x" + "}" * 200_000 + "}\n"
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex(text)
    assert (caught.value.key, caught.value.line) == ("deep", 2)
    assert f"max_brace_depth ({MAX_BRACE_DEPTH})" in str(caught.value) and caught.value.rule == "max_brace_depth"
    nested = "@misc{k, title = " + "{" * 50 + "x" + "}" * 50 + "}"
    assert read_bibtex(nested)[0].fields["title"] == "x"  # within the budget


def test_five_megabytes_of_junk_after_an_entry_is_refused_naming_the_entry():
    rng = random.Random(37)
    alphabet = 'abcdefghij @"%=,#\\\n()0123456789'  # no braces: their depth would be refused first
    junk = "".join(rng.choices(alphabet, k=5 * 10**6))
    with pytest.raises(BibTeXSyntaxError) as caught:
        read_bibtex("@article{first, title = {ok}}\n@article{" + junk)
    assert (caught.value.line, caught.value.ordinal, caught.value.rule) == (2, 2, "BibTeX syntax")


def test_an_entry_of_20000_quoted_values_cut_by_a_braced_quote_is_refused_naming_it():
    fields = ", ".join(f'f{n} = "a {{"}}b"' for n in range(20_000))
    with pytest.raises(BibTeXSyntaxError, match="more than 32 quoted values holding a quote in braces") as caught:
        read_bibtex('@misc{fine, title = "a {"}b"}\n@misc{cut, ' + fields + "}\n")
    assert (caught.value.key, caught.value.line) == ("cut", 2)


def test_a_file_over_max_bytes_is_refused_before_it_is_read_whole(tmp_path: Path):
    path = tmp_path / "big.bib"
    path.write_text("@misc{k, title = {x}}\n" + "%" * 4000 + "\n", encoding="utf-8")
    for source in (path, path.read_text(encoding="utf-8")):
        with pytest.raises(BibTeXSyntaxError, match=r"more than max_bytes \(1000\)") as caught:
            read_bibtex(source, max_bytes=1000)
        assert (caught.value.param, caught.value.rule) == ("source", "max_bytes")
    assert MAX_BYTES == 64 * MIB and [e.key for e in read_bibtex(path)] == ["k"]


def test_verify_citations_refuses_the_same_before_any_request(tmp_path: Path):
    with Sandbox(papers=50, seed=1) as sandbox:
        client = paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, rate_limits=None)
        with pytest.raises(BibTeXSyntaxError, match="max_expanded_bytes"):
            client.verify_citations(one_string_used_5000_times())
        assert sandbox.requests() == []


async def test_the_mcp_tools_bibtex_argument_goes_through_the_same_reader(tmp_path: Path):
    with Sandbox(papers=50, seed=1) as sandbox:
        async with connect("stdio", sandbox, tmp_path) as (session, _):
            answer = await session.call_tool("verify_citations", {"bibtex": one_string_used_5000_times()})
        assert answer.is_error and f"max_expanded_bytes ({MAX_EXPANDED_BYTES})" in text_of(answer)
        assert [r.path for r in sandbox.requests()] == []

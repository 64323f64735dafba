"""An integer argument past what the binding holds (a Python int of any size) is an error
naming the parameter, of the class and wording a value out of the setting's range gets, with
the int as Python wrote it: never a bare OverflowError."""

from __future__ import annotations

import enum
import sys
from typing import Any

import pytest

import paperlens
from paperlens.sandbox import Sandbox
from paperlens.workflows._bibtex import read_bibtex

from conftest import TOKEN

URL = "http://127.0.0.1:9"
I64, U16, U32, U64 = 2**63 - 1, 2**16 - 1, 2**32 - 1, 2**64 - 1
SEMAPHORE_MOST = 2**61 - 1  # tokio::sync::Semaphore::MAX_PERMITS
BEYOND = (2**63, 2**64, -(2**63) - 1)

#: name, least, most of each integer setting of a client (`with_options` takes those it names).
CLIENT = [
    ("max_retries", 0, U32),
    ("max_concurrency", 1, SEMAPHORE_MOST),
    ("max_response_bytes", 1, I64),
    ("max_download_bytes", 1, I64),
    ("max_compression_ratio", 1, I64),
]
WITH_OPTIONS = [setting for setting in CLIENT if setting[0] != "max_concurrency"]


def outside(name: str, least: int, most: int, value: int) -> str:
    if value < least:
        return f"{name} must be at least {least}, got {value}"
    return f"{name} must be at most {most}, got {value}"


def cases(settings: list[tuple[str, int, int]]) -> list[Any]:
    """Each setting with the ints of BEYOND outside its range, and the ints just outside it."""
    return [
        pytest.param(name, least, most, value, id=f"{name}={value}")
        for name, least, most in settings
        for value in dict.fromkeys((*BEYOND, least - 1, most + 1))
        if not least <= value <= most
    ]


@pytest.mark.parametrize(("name", "least", "most", "value"), cases(CLIENT))
def test_a_client_setting_past_64_bits_is_a_configuration_error_naming_it(name, least, most, value):
    with pytest.raises(paperlens.ConfigurationError) as caught:
        paperlens.Client(api_token=TOKEN, base_url=URL, **{name: value})
    assert str(caught.value) == outside(name, least, most, value)


@pytest.mark.parametrize("value", [*BEYOND, -1, U32 + 1])
def test_a_client_rate_limit_out_of_range_is_a_configuration_error_naming_its_quota(value):
    with pytest.raises(paperlens.ConfigurationError) as caught:
        paperlens.Client(api_token=TOKEN, base_url=URL, rate_limits={"meta-search": 30, "paper-schema": value})
    rule = "at least 0" if value < 0 else f"at most {U32}"
    assert str(caught.value) == f'rate_limits["paper-schema"]: requests per minute must be {rule}, got {value}'


@pytest.mark.parametrize(
    ("rate_limits", "expected"),
    [
        ({"content": 30}, 'rate_limits["content"]: an unknown quota resource; known: meta-search, paper-schema'),
        ({"content": 2**40}, 'rate_limits["content"]: an unknown quota resource; known: meta-search, paper-schema'),
        ({"meta-search": "30"}, """rate_limits["meta-search"]: requests per minute must be a whole number, got '30'"""),
        (
            {"meta-search": 30, "paper-schema": 2.5},
            'rate_limits["paper-schema"]: requests per minute must be a whole number, got 2.5',
        ),
        (
            {"meta-search": -1, "search": 1},
            'rate_limits["meta-search"]: requests per minute must be at least 0, got -1',
        ),
        (
            {"search": 1, "meta-search": -1},
            'rate_limits["search"]: an unknown quota resource; known: meta-search, paper-schema',
        ),
        ({1: 30}, 'rate_limits must be "default", None or a dict of requests per minute'),
        ("fast", 'rate_limits must be "default", None or a dict of requests per minute'),
        ([("meta-search", 30)], 'rate_limits must be "default", None or a dict of requests per minute'),
    ],
)
def test_a_client_rate_limits_of_another_kind_is_a_configuration_error_naming_the_first_bad_entry(
    rate_limits, expected
):
    with pytest.raises(paperlens.ConfigurationError) as caught:
        paperlens.Client(api_token=TOKEN, base_url=URL, rate_limits=rate_limits)
    assert str(caught.value) == expected


def test_the_largest_rate_limit_paces_and_0_turns_a_quota_off():
    client = paperlens.Client(api_token=TOKEN, base_url=URL, rate_limits={"meta-search": U32, "paper-schema": 0})
    assert client._core.pacing_rates() == {"meta-search": U32}


@pytest.mark.parametrize(("name", "least", "most", "value"), cases(WITH_OPTIONS))
def test_with_options_past_64_bits_is_a_configuration_error_naming_it(name, least, most, value):
    client = paperlens.Client(api_token=TOKEN, base_url=URL)
    with pytest.raises(paperlens.ConfigurationError) as caught:
        client.with_options(**{name: value})
    assert str(caught.value) == outside(name, least, most, value)


def test_the_async_client_names_the_setting_too():
    with pytest.raises(paperlens.ConfigurationError) as caught:
        paperlens.AsyncClient(api_token=TOKEN, base_url=URL, max_download_bytes=2**64)
    assert str(caught.value) == f"max_download_bytes must be at most {I64}, got {2**64}"


class Huge(enum.IntEnum):
    BYTES = 2**70


def test_an_int_subclass_is_shown_as_its_digits_and_one_without_digits_by_its_size():
    with pytest.raises(paperlens.ConfigurationError) as caught:
        paperlens.Client(api_token=TOKEN, base_url=URL, max_response_bytes=Huge.BYTES)
    assert str(caught.value) == f"max_response_bytes must be at most {I64}, got {2**70}"
    # More digits than Python writes (sys.get_int_max_str_digits(), 4300 by default).
    giant = 10**5000
    with pytest.raises(paperlens.ConfigurationError) as caught:
        paperlens.Client(api_token=TOKEN, base_url=URL, max_concurrency=-giant)
    assert str(caught.value) == f"max_concurrency must be at least 1, got an int of {giant.bit_length()} bits"


def test_other_types_are_still_type_errors():
    with pytest.raises(TypeError, match="'str' object cannot be interpreted as an integer"):
        paperlens.Client(api_token=TOKEN, base_url=URL, max_retries="3")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        paperlens.Client(api_token=TOKEN, base_url=URL, max_response_bytes=1.5)  # type: ignore[arg-type]


def records(client: paperlens.Client) -> Any:
    answer = client.meta_search("a", page_size=20).to_dict()
    del answer["search_time_ms"]  # the sandbox's own timing
    return answer


def test_the_largest_values_in_range_still_make_a_working_client():
    most = {name: most for name, _, most in CLIENT}
    with Sandbox(papers=100) as sandbox:
        with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url) as plain:
            expected = records(plain)
        assert len(expected["results"]) == 20
        with paperlens.Client(api_token=sandbox.token, base_url=sandbox.base_url, **most) as client:
            assert client._core.max_retries == U32
            assert records(client) == expected
            derived = client.with_options(max_retries=0, max_response_bytes=I64, max_download_bytes=1)
            assert derived._core.max_retries == 0
            assert records(derived) == expected


#: name, least, most of the sandbox's integer arguments (`reveal_after` below its least is
#: refused by `paperlens.sandbox.Sandbox` itself, in its own words).
SANDBOX = [("papers", 1, 1_000_000), ("seed", 0, U64), ("port", 0, U16), ("reveal_after", 0, U64)]
SANDBOX_OWN_WORDS = {"reveal_after": "reveal_after must be a number of requests >= 0, got {value}"}


@pytest.mark.parametrize(("name", "least", "most", "value"), cases(SANDBOX))
def test_a_sandbox_argument_out_of_range_is_a_value_error_naming_it(name, least, most, value):
    with pytest.raises(ValueError) as caught:
        Sandbox(**{name: value})
    expected = outside(name, least, most, value)
    if value < least and name in SANDBOX_OWN_WORDS:
        expected = SANDBOX_OWN_WORDS[name].format(value=value)
    assert str(caught.value) == expected


@pytest.mark.parametrize("value", [*BEYOND, -1, 0, U32 + 1])
def test_a_sandbox_rate_limit_out_of_range_is_a_value_error_naming_its_resource(value):
    rule = "at least 1" if value < 1 else f"at most {U32}"
    with pytest.raises(ValueError) as caught:
        Sandbox(rate_limits={"meta-search": 30, "paper-schema": value})
    assert str(caught.value) == f"rate limit of paper-schema must be {rule} request per minute, got {value}"


@pytest.fixture(scope="module")
def small_sandbox():
    with Sandbox(papers=10, seed=U64) as sandbox:
        yield sandbox


def test_the_largest_seed_makes_a_sandbox(small_sandbox):
    with paperlens.Client(api_token=small_sandbox.token, base_url=small_sandbox.base_url) as client:
        assert client.meta_search("a", page_size=50).total_count == 10


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        *[
            ({"status": value}, f"status must be an HTTP error status 400-599, got {value}")
            for value in (*BEYOND, 399, 600, U16 + 1, -1)
        ],
        *[({"status": 503, "times": value}, outside("times", 1, U32, value)) for value in (*BEYOND, 0, U32 + 1)],
    ],
)
def test_a_fault_outside_its_range_is_a_value_error_naming_it(small_sandbox, arguments, expected):
    with pytest.raises(ValueError) as caught:
        small_sandbox.inject_fault("/meta-search", **arguments)
    assert str(caught.value) == expected
    with paperlens.Client(api_token=small_sandbox.token, base_url=small_sandbox.base_url, max_retries=0) as client:
        assert client.meta_search("a", page_size=50).total_count == 10  # no fault was injected


BUDGET_MOST = sys.maxsize - 1


@pytest.mark.parametrize("name", ["max_bytes", "max_expanded_bytes", "max_brace_depth"])
@pytest.mark.parametrize("value", [*BEYOND, -1, BUDGET_MOST + 1, "1000", 1.5], ids=repr)
@pytest.mark.parametrize("given", ["text", "path"])
def test_a_bibtex_budget_out_of_range_is_refused_naming_it_before_the_file_is_read(tmp_path, name, value, given):
    text = "@article{a, title = {T}}\n"
    path = tmp_path / "refs.bib"
    path.write_text(text)
    with pytest.raises(paperlens.ValidationError) as caught:
        read_bibtex(text if given == "text" else path, **{name: value})
    assert str(caught.value) == f"{name}: must be an integer from 0 to {BUDGET_MOST} (got {value!r})"
    assert caught.value.param == name

"""strict_json: RFC 8259 strict parsing, RFC 8785 canonical form, type-sensitive equality."""

from __future__ import annotations

import contextlib
import json
import math
import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_lab.strict_json import (
    JSONValue,
    StrictJSONError,
    canonical_dumps,
    ensure_json_data,
    escape_pointer_token,
    has_pointer,
    loads,
    pointer_tokens,
    same_json,
)
from tests.conftest import corpus

if TYPE_CHECKING:
    from pathlib import Path

# JSONTestSuite conformance ---------------------------------------------------

PARSING = corpus("json-test-suite", "test_parsing")


def files(prefix: str) -> list[Path]:
    found = sorted(PARSING.glob(f"{prefix}_*.json"))
    assert found, f"no {prefix}_ files in {PARSING}"
    return found


def repeats_a_key(data: bytes) -> bool:
    """Oracle for duplicate keys, from the standard library's permissive parser."""
    duplicated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicated
        duplicated |= len({key for key, _ in items}) != len(items)
        return dict(items)

    json.loads(data, object_pairs_hook=pairs)
    return duplicated


def parse_both_ways(data: bytes) -> tuple[JSONValue | StrictJSONError, JSONValue | StrictJSONError]:
    """Parse the bytes directly, and as str after a strict UTF-8 decode (the fallback's path)."""
    outcomes: list[JSONValue | StrictJSONError] = []
    try:
        outcomes.append(loads(data))
    except StrictJSONError as err:
        outcomes.append(err)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Rejected at the decode step: the str path never sees it.
        outcomes.append(StrictJSONError("encoding", "rejected at decode"))
    else:
        try:
            outcomes.append(loads(text))
        except StrictJSONError as err:
            outcomes.append(err)
    return outcomes[0], outcomes[1]


def contains_non_finite_or_surrogate(value: JSONValue) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, list):
        return any(contains_non_finite_or_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(
            contains_non_finite_or_surrogate(k) or contains_non_finite_or_surrogate(v)
            for k, v in value.items()
        )
    return False


@pytest.mark.parametrize("path", files("y"), ids=lambda p: p.name)
def test_json_test_suite_y_files_are_accepted(path: Path) -> None:
    """Every y_ file is accepted, except those that repeat a key, rejected by design (K17)."""
    data = path.read_bytes()
    by_bytes, by_text = parse_both_ways(data)
    if repeats_a_key(data):
        for outcome in (by_bytes, by_text):
            assert isinstance(outcome, StrictJSONError)
            assert outcome.reason == "duplicate_key"
        return
    for outcome in (by_bytes, by_text):
        assert not isinstance(outcome, StrictJSONError), f"{path.name}: {outcome}"
        assert same_json(outcome, json.loads(data))


@pytest.mark.parametrize("path", files("n"), ids=lambda p: p.name)
def test_json_test_suite_n_files_are_rejected_with_strict_json_error(path: Path) -> None:
    """Every n_ file is rejected with StrictJSONError: no RecursionError, no UnicodeDecodeError."""
    by_bytes, by_text = parse_both_ways(path.read_bytes())
    assert isinstance(by_bytes, StrictJSONError)
    assert isinstance(by_text, StrictJSONError)


@pytest.mark.parametrize("path", files("i"), ids=lambda p: p.name)
def test_json_test_suite_i_files_follow_the_documented_policy(path: Path) -> None:
    """i_ files: accepted or cleanly rejected; accepted values hold no NaN/inf/lone surrogate."""
    for outcome in parse_both_ways(path.read_bytes()):
        if isinstance(outcome, StrictJSONError):
            assert outcome.reason in {
                "encoding",
                "lone_surrogate",
                "non_finite_number",
                "too_deep",
                "syntax",
                "number_too_long",
            }
        else:
            assert not contains_non_finite_or_surrogate(outcome)


# The policy, row by row -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a": 1, "a": 1}', "duplicate_key"),
        ('[{"x": {"k": 1, "k": 2}}]', "duplicate_key"),
        ("NaN", "syntax"),
        ("[Infinity]", "syntax"),
        ("-Infinity", "syntax"),
        ("1e400", "non_finite_number"),
        ("[-1e400]", "non_finite_number"),
        ('"\\ud800"', "lone_surrogate"),
        ('{"\\udc00": 1}', "lone_surrogate"),
        ('"\\ud800\\u0041"', "lone_surrogate"),
        ('"\ud800"', "lone_surrogate"),
        ("1" * 5000, "number_too_long"),
        ("[" * 65 + "]" * 65, "too_deep"),
        ("[" * 100_000, "too_deep"),
        ('{"a": [1,]}', "syntax"),
        ("{'a': 1}", "syntax"),
        ("[1] // c", "syntax"),
        ("\ufeff{}", "syntax"),
        ('"tab\there"', "syntax"),
        ("", "syntax"),
        (" ", "syntax"),
        ("01", "syntax"),
        ("[.5]", "syntax"),
        ("[1.]", "syntax"),
        ("[0x1]", "syntax"),
        ("\u00a0[]", "syntax"),
    ],
)
def test_rejections_carry_their_reason(text: str, reason: str) -> None:
    """Each rejection is a StrictJSONError (a ValueError) with a machine-readable reason."""
    with pytest.raises(StrictJSONError) as caught:
        loads(text)
    assert caught.value.reason == reason
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "text",
    [
        "1e-400",
        "123456789012345678901234567890",
        "-99999999999999999999999",
        '"\\ud83d\\ude00"',
        '"\\\\ud800"',
        "[" * 64 + "]" * 64,
        '"' + "[" * 100 + '"',
        '{"a": "}}}]]]"}',
        "1",
        "1.0",
        "null",
    ],
    ids=[
        "underflow-to-zero",
        "big-int-exact",
        "big-negative-int",
        "surrogate-pair",
        "escaped-backslash-not-surrogate",
        "depth-64-inclusive",
        "brackets-inside-a-string",
        "closing-brackets-inside-a-string",
        "int",
        "float",
        "null",
    ],
)
def test_acceptances(text: str) -> None:
    """Underflow rounds, big ints stay exact, depth is inclusive, strings hide brackets."""
    assert same_json(loads(text), json.loads(text))


def test_size_is_measured_in_utf8_bytes() -> None:
    """The size bound counts UTF-8 bytes, both for str and for bytes input."""
    text = '"' + "é" * 10 + '"'  # 22 bytes, 12 characters
    assert loads(text, max_bytes=22) == "é" * 10
    with pytest.raises(StrictJSONError, match="exceeds") as caught:
        loads(text, max_bytes=21)
    assert caught.value.reason == "too_large"
    with pytest.raises(StrictJSONError):
        loads(text.encode(), max_bytes=21)


@pytest.mark.parametrize(
    "data",
    [b"\xef\xbb\xbf{}", b"\xff\xfe[\x00]\x00", b'"\xed\xa0\x80"', b'"\xc0\xaf"', b'"\xe9"'],
    ids=["bom", "utf16", "encoded-surrogate", "overlong", "latin1"],
)
def test_bytes_must_be_utf8_without_bom(data: bytes) -> None:
    """Bytes input is strict UTF-8, with no byte order mark."""
    with pytest.raises(StrictJSONError) as caught:
        loads(data)
    assert caught.value.reason == "encoding"


# same_json --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (True, 1),
        (1, 1.0),
        (0, False),
        (None, 0),
        ({"a": [1, {"b": True}]}, {"a": [1, {"b": 1}]}),
        ({"a": 1}, {"a": 1, "b": 2}),
        ([1, 2], [2, 1]),
        ("1", 1),
        (math.nan, math.nan),
        ((1,), (1,)),
        ({"a": Decimal(1)}, {"a": Decimal(1)}),
    ],
)
def test_same_json_is_type_sensitive_at_every_depth(a: object, b: object) -> None:
    """same_json: true is not 1, 1 is not 1.0, key sets and order matter, non-JSON never matches."""
    assert not same_json(a, b)
    assert not same_json(b, a)


def test_same_json_treats_zero_and_negative_zero_alike() -> None:
    """0.0 and -0.0 are the same JSON number (RFC 8785 writes both as 0)."""
    assert same_json(0.0, -0.0)


# Hypothesis properties ---------------------------------------------------------

SAFE_INT = 2**53 - 1
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5)
    ),
    max_leaves=30,
)
rfc_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-SAFE_INT, SAFE_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(), children, max_size=5)
    ),
    max_leaves=30,
)


@given(json_values)
def test_loads_round_trips_standard_serialisations(value: JSONValue) -> None:
    """loads(json.dumps(x)) is x, type for type, with or without ASCII escapes."""
    for ascii_only in (True, False):
        text = json.dumps(value, ensure_ascii=ascii_only)
        assert same_json(loads(text, max_depth=1000), value)


@given(json_values)
def test_same_json_is_reflexive_and_agrees_with_canonical_form(value: JSONValue) -> None:
    """same_json(x, x); equal values have equal canonical text; canonical text is a fixed point."""
    assert same_json(value, value)
    copy = ensure_json_data(value)
    assert same_json(value, copy)
    assert same_json(copy, value)
    canonical = canonical_dumps(value)
    assert canonical_dumps(copy) == canonical
    assert canonical_dumps(loads(canonical, max_depth=1000)) == canonical


@given(rfc_values)
def test_canonical_dumps_matches_an_independent_rfc8785_implementation(value: JSONValue) -> None:
    """canonical_dumps is RFC 8785 wherever integers fit a double exactly."""
    assert canonical_dumps(value) == rfc8785.dumps(value).decode("utf-8")


@given(st.integers())
def test_integers_never_equal_floats_and_stay_exact(n: int) -> None:
    """An integer is never the same as the float of the same value; canonical ints stay exact."""
    assert not same_json(n, float(n)) or not math.isfinite(float(n))
    assert not same_json([n], [float(n)])
    assert canonical_dumps(n) == str(n)


@given(st.text())
@settings(max_examples=300)
def test_loads_never_fails_except_with_strict_json_error_on_text(text: str) -> None:
    """Arbitrary text is parsed or rejected cleanly."""
    with contextlib.suppress(StrictJSONError):
        loads(text)


@given(st.binary())
@settings(max_examples=300)
def test_loads_never_fails_except_with_strict_json_error_on_bytes(data: bytes) -> None:
    """Arbitrary bytes are parsed or rejected cleanly."""
    with contextlib.suppress(StrictJSONError):
        loads(data)


@given(json_values)
def test_loads_rejects_any_duplicated_key(value: JSONValue) -> None:
    """Any object with a repeated key is rejected, however deep."""
    text = '{"k": 1, "k": ' + json.dumps(value) + "}"
    with pytest.raises(StrictJSONError):
        loads(text, max_depth=1000)


@given(st.lists(st.text(max_size=6), min_size=1, max_size=4))
def test_pointer_tokens_undo_escape_and_has_pointer_finds_the_value(tokens: list[str]) -> None:
    """RFC 6901 round trip: escaped tokens come back; the pointer names the nested value."""
    pointer = "".join("/" + escape_pointer_token(token) for token in tokens)
    assert pointer_tokens(pointer) == tokens
    document: object = "leaf"
    for token in reversed(tokens):
        document = {token: document}
    assert has_pointer(document, pointer)
    assert not has_pointer(document, pointer + "/deeper")


def test_has_pointer_reads_array_indexes() -> None:
    assert has_pointer({"a": [1, {"b": 2}]}, "/a/1/b")
    assert not has_pointer({"a": [1]}, "/a/1")
    assert not has_pointer({"a": [1]}, "/a/x")
    assert has_pointer({}, "")


# Linear time on adversarial text (hardening, item 1) ---------------------------------------

ADVERSARIAL = {
    "escaped quotes after 65 brackets": "[" * 65 + '\\"' * 32_000,
    "bare quotes after 65 brackets": "[" * 65 + '"a' * 32_000,
    "escaped quotes after 65 objects": '{"a":' * 65 + '\\"' * 30_000,
    "an unterminated string after 65 brackets": "[" * 65 + '"' + "a" * 64_000,
    "backslash runs in an unterminated string": '"' + "\\\\" * 32_000,
}


@pytest.mark.parametrize("text", list(ADVERSARIAL.values()), ids=list(ADVERSARIAL))
def test_adversarial_text_of_64_kib_is_refused_in_linear_time(text: str) -> None:
    """A quadratic depth pre-check took about 30 s on the first shape; linear takes milliseconds.

    The bound is 60x what this machine needs, so only a quadratic scan can miss it;
    benchmarks/bench_strict_json.py measures the shapes at 1 MiB."""
    started = time.perf_counter()
    with pytest.raises(StrictJSONError):
        loads(text)
    assert time.perf_counter() - started < 1.0

"""A declared reply is said only over a result that does not report failure."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_lab.errors import DefinitionError
from agent_lab.kernel.models import EventDefinition
from agent_lab.kernel.registry import EventRegistry
from agent_lab.kernel.reply import (
    FAILED_STATUSES,
    FAILED_TEXT,
    has_failed,
    reports_failure,
    say,
)
from agent_lab.strict_json import JSONValue

FAILURE_KEYS = frozenset({"error", "errors", "success", "ok", "status"})

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)
truthy = json_values.filter(bool)


def any_case(word: str) -> st.SearchStrategy[str]:
    """``word`` with each letter upper or lower case."""
    cases = [st.sampled_from([c.lower(), c.upper()]) for c in word]
    return st.tuples(*cases).map("".join)


@pytest.mark.parametrize(
    ("result", "failed"),
    [
        (None, True),
        ("", True),
        ("  \n", True),
        ("Error: timers are broken", True),
        ("  ERROR upstream down", True),
        ("Failed to set the timer", True),
        ("failure", True),
        ("Exception: KeyError('minutes')", True),
        ("Traceback (most recent call last):", True),
        ({"error": "upstream weather API down"}, True),
        ({"Error": {"code": 503}}, True),
        ({"errors": [{"message": "bad city"}]}, True),
        ({"minutes": 10, "success": False}, True),
        ({"ok": False}, True),
        ({"status": "Failed"}, True),
        ({"status": "error", "minutes": 10}, True),
        ({"STATUS": "FAILURE"}, True),
        ("Timer set for 10 minutes", False),
        ("done", False),
        ({"minutes": 10}, False),
        ({"minutes": 10, "error": None}, False),
        ({"error": "", "errors": []}, False),
        ({"success": True, "ok": True, "status": "done"}, False),
        ({"ok": 0}, False),
        ({"status": 500}, False),
        ({"result": {"error": "nested"}}, False),
        ({}, False),
        ([], False),
        ([{"error": "in a list"}], False),
        (False, False),
        (0, False),
    ],
)
def test_the_conservative_rule(result: JSONValue, *, failed: bool) -> None:
    """No result, blank or error text, and a top-level error mark fail; the rest does not."""
    assert reports_failure(result) is failed


@given(json_values)
def test_the_rule_says_yes_or_no_for_any_json(result: JSONValue) -> None:
    assert type(reports_failure(result)) is bool


@given(
    st.dictionaries(st.text(), json_values, max_size=4),
    st.sampled_from(["error", "errors"]).flatmap(any_case),
    truthy,
)
def test_a_truthy_error_fails_whatever_else_the_object_holds(
    result: dict[str, JSONValue], key: str, error: JSONValue
) -> None:
    assert reports_failure({**result, key: error})


@given(
    st.dictionaries(st.text(), json_values, max_size=4),
    st.sampled_from(sorted(FAILED_STATUSES)).flatmap(any_case),
    st.sampled_from(["success", "ok"]).flatmap(any_case),
)
def test_a_failed_status_or_a_false_success_fails(
    result: dict[str, JSONValue], status: str, flag: str
) -> None:
    assert reports_failure({**result, "status": status})
    assert reports_failure({**result, flag: False})


@given(
    st.dictionaries(
        st.text().filter(lambda key: key.lower() not in FAILURE_KEYS), json_values, max_size=5
    )
)
def test_an_object_without_a_failure_key_does_not_fail(result: dict[str, JSONValue]) -> None:
    assert not reports_failure(result)


@given(
    st.text(" \t\n", max_size=3),
    st.sampled_from(FAILED_TEXT).flatmap(any_case),
    st.text(),
)
def test_text_that_starts_with_an_error_word_fails(blank: str, word: str, rest: str) -> None:
    assert reports_failure(blank + word + rest)


@given(st.text().filter(lambda text: not text.lstrip().lower().startswith(FAILED_TEXT)))
def test_other_text_fails_only_when_blank(text: str) -> None:
    assert reports_failure(text) is (not text.strip())


def says_done(result: JSONValue) -> str:
    return "Your timer is set."


def raises(result: JSONValue) -> bool:
    raise KeyError("state")


def rejected(result: JSONValue) -> bool:
    return isinstance(result, dict) and result.get("state") == "rejected"


def test_a_reply_says_nothing_over_a_failure() -> None:
    """The words a reply would say over anything: none over a failed result."""
    assert say(says_done, {"minutes": 10}) == "Your timer is set."
    assert say(says_done, {"error": "timers are down"}) is None
    assert say("Your timer is set.", {"error": "timers are down"}) is None
    assert say(says_done, "Error: timers are down") is None
    assert say(says_done, None) is None


def test_the_events_own_failed_replaces_the_rule() -> None:
    """``failed`` decides alone: its failure is no reply, and its success is said."""
    assert say(says_done, {"state": "rejected"}, failed=rejected) is None
    assert say(says_done, {"state": "rejected"}) == "Your timer is set."
    assert say(says_done, {"state": "set", "errors": ["slow"]}, failed=rejected) is not None


def answering(answer: object) -> Any:
    """A ``failed`` that answers ``answer`` whatever the result."""

    def failed(result: JSONValue) -> object:
        return answer

    return failed


@pytest.mark.parametrize(
    ("failed", "verdict"),
    [
        (raises, True),
        (answering(None), True),
        (answering("no"), True),
        (answering(0), True),
        (answering(True), True),
        (answering(False), False),
    ],
    ids=["raises", "None", "a string", "zero", "True", "False"],
)
def test_a_failed_that_raises_or_answers_no_bool_says_failure(
    failed: Any, *, verdict: bool
) -> None:
    """Conservative: only a plain ``False`` lets the reply be said."""
    assert has_failed(failed, {"minutes": 10}) is verdict


def test_a_failed_that_is_no_function_is_refused_at_registration() -> None:
    """A broken ``failed`` is the plugin author's mistake, as a broken reply is."""
    not_a_function: Any = 42
    definition = EventDefinition("set_timer", parameters={"type": "object"}, failed=not_a_function)
    with pytest.raises(DefinitionError, match="failed"):
        EventRegistry().register(definition)
    registered = EventRegistry().register(
        EventDefinition("set_timer", parameters={"type": "object"}, failed=rejected)
    )
    assert registered.failed is rejected

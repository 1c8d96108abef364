"""Scoring a trial against its case's ground truth: the event, then exact or acceptable values.

A trial is right only when it did what the case expects (L11, the fair
protocol): for a request that can succeed, it dispatched the expected event
with the expected arguments; for a request whose information is missing, or
that no event serves, it took no action (it asked, or declined); for an
invalid one, the expected event reported ``invalid_arguments``.

Ground truth may list several acceptable values per argument (BFCL's answer
format): ``{"unit": ["units", ""], "base": [10]}``: ``base`` must be 10; ``unit`` may
be ``"units"`` or left out. An object in a list is itself a map of lists,
at any depth, inside arrays too.

Two matching rules, and every trial is scored by both:

* ``exact`` (the default): type-sensitive (``same_json``): ``5`` does not
  stand for ``5.0``, nor ``true`` for ``1``.
* ``bfcl``: BFCL's own checker, where it is looser: an integer is accepted
  for a float (``5`` for ``5.0``, not the other way), and strings compare
  after its ``standardize_string`` (lowercased; spaces and ``,./-_*^``
  removed; ``'`` read as ``"``).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from agent_lab.kernel.models import Status
from agent_lab.log_replay.trial_status import TrialStatus
from agent_lab.strict_json import same_json

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.log_replay.case import Case, ExpectedCall
    from agent_lab.strict_json import JSONObject

__all__ = [
    "OMITTED",
    "Matching",
    "Produced",
    "Score",
    "acceptable",
    "declined",
    "field_counts",
    "matches",
    "score",
]

OMITTED = ""
"""In a list of acceptable values: the argument may be left out."""


class Matching(StrEnum):
    """How argument values are compared with the truth."""

    EXACT = "exact"
    """Type-sensitive JSON equality."""
    BFCL = "bfcl"
    """BFCL's checker: an int for a float, strings standardised."""


_MATCHINGS = {rule.value: rule for rule in Matching}


def _matching(name: str) -> Matching:
    # Asked once per trial: a dict lookup, 0.5 us less than Matching(name), whose
    # ValueError an unknown name still gets.
    return _MATCHINGS.get(name) or Matching(name)


_BFCL_STRIP = re.compile(r"[ ,./\-_*^]")


def _bfcl_string(text: str) -> str:
    # BFCL's ast_checker.standardize_string.
    return _BFCL_STRIP.sub("", text).lower().replace("'", '"')


def _equal(value: object, option: object, rules: Matching) -> bool:
    if rules is Matching.BFCL:
        if type(option) is float and type(value) is int:
            return float(value) == option
        if type(option) is str and type(value) is str:
            return _bfcl_string(value) == _bfcl_string(option)
    return same_json(value, option)


def _is_map_of_lists(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, list) for v in cast("dict[str, Any]", value).values()
    )


def acceptable(value: object, options: list[Any], rules: Matching = Matching.EXACT) -> bool:
    """Whether ``value`` equals one of ``options`` (an option object is a map of lists)."""
    for option in options:
        if _is_map_of_lists(option):
            if isinstance(value, dict) and matches(
                cast("dict[str, Any]", value), cast("dict[str, list[Any]]", option), rules
            ):
                return True
        elif isinstance(option, list) and isinstance(value, list):
            items = cast("list[Any]", value)
            wanted = cast("list[Any]", option)
            pairs: list[tuple[Any, Any]] = list(zip(items, wanted, strict=False))
            if len(items) == len(wanted) and all(acceptable(i, [w], rules) for i, w in pairs):
                return True
        elif _equal(cast("object", value), cast("object", option), rules):
            return True
    return False


def matches(
    arguments: dict[str, Any], alternatives: dict[str, list[Any]], rules: Matching = Matching.EXACT
) -> bool:
    """Every argument acceptable, none unexpected, none required left out."""
    if any(name not in alternatives for name in arguments):
        return False
    for name, options in alternatives.items():
        if name in arguments:
            if not acceptable(arguments[name], options, rules):
                return False
        elif OMITTED not in options:
            return False
    return True


def field_counts(
    arguments: object, alternatives: dict[str, list[Any]], rules: Matching = Matching.EXACT
) -> tuple[int, int, int]:
    """True positives, false positives and false negatives over top-level arguments."""
    given = cast("dict[str, Any]", arguments) if isinstance(arguments, dict) else {}
    right = sum(
        1 for k, v in given.items() if k in alternatives and acceptable(v, alternatives[k], rules)
    )
    needed = sum(1 for k, options in alternatives.items() if k in given or OMITTED not in options)
    return right, len(given) - right, needed - right


class Score(NamedTuple):
    """Whether a trial is right (by the case's rule and exactly), and its field counts."""

    correct: bool
    """Right by the case's matching rule (``exact`` unless it names another)."""
    correct_exact: bool
    """Right by type-sensitive equality, whatever the case's rule."""
    field_tp: int
    """Arguments given and right."""
    field_fp: int
    """Arguments given and wrong, or not expected at all."""
    field_fn: int
    """Arguments expected and not given right."""


def declined(status: TrialStatus, event: str | None) -> bool:
    """Whether the agent took no action: no event dispatched (it asked, or found none)."""
    return status == TrialStatus.UNKNOWN_EVENT and event is None


def _outcome_right(case: Case, status: TrialStatus, event: str | None) -> bool:
    """Everything but the arguments: the event, and the kind of ending the case expects."""
    expected = case.expected.status
    if expected is Status.SUCCESS:
        return status == TrialStatus.SUCCESS and event == case.event
    if expected is Status.MISSING_INFORMATION:
        # Asking is right: the kernel's missing_information for this event, or a reply
        # with no tool call (a model's question), or no action at all.
        asked = status == TrialStatus.MISSING_INFORMATION and event in (case.event, None)
        return asked or declined(status, event)
    if expected is Status.UNKNOWN_EVENT:
        return declined(status, event)
    return status == expected and event == case.event


def _arguments_right(case: Case, arguments: JSONObject | None, rules: Matching) -> bool:
    alternatives = cast("dict[str, list[Any]] | None", case.expected.alternatives)
    if alternatives is not None:
        return isinstance(arguments, dict) and matches(arguments, alternatives, rules)
    expected = case.expected.arguments
    if rules is Matching.EXACT or not isinstance(expected, dict) or not isinstance(arguments, dict):
        return same_json(arguments, expected)
    return matches(arguments, {name: [value] for name, value in expected.items()}, rules)


Produced = tuple[str, TrialStatus, "JSONObject | None"]
"""One call an agent made: its event, how it ended, its arguments."""


def _call_right(call: Produced, wanted: ExpectedCall, rules: Matching) -> bool:
    event, status, arguments = call
    if event != wanted.event or status != TrialStatus.SUCCESS or not isinstance(arguments, dict):
        return False
    alternatives = cast("dict[str, list[Any]] | None", wanted.alternatives)
    if alternatives is None:
        alternatives = {name: [value] for name, value in wanted.arguments.items()}
    return matches(arguments, alternatives, rules)


def _calls_matched(
    produced: Sequence[Produced], wanted: Sequence[ExpectedCall], rules: Matching
) -> int:
    """How many wanted calls a distinct produced call matches (in any order)."""
    left = list(produced)
    matched = 0
    for call in wanted:
        hit = next((p for p in left if _call_right(p, call, rules)), None)
        if hit is not None:
            left.remove(hit)
            matched += 1
    return matched


def _score_calls(case: Case, produced: Sequence[Produced]) -> Score:
    # Scored call by call: right when every wanted call is made, and nothing else; the field
    # counts count calls (made and right, made and wrong, wanted and missed).
    wanted = case.expected.calls or ()
    rules = _matching(case.matching)
    matched = _calls_matched(produced, wanted, rules)
    exact = _calls_matched(produced, wanted, Matching.EXACT)
    extra = len(produced) - matched
    return Score(
        matched == len(wanted) and extra == 0,
        exact == len(wanted) and len(produced) == exact,
        matched,
        extra,
        len(wanted) - matched,
    )


def score(
    case: Case,
    status: TrialStatus,
    arguments: JSONObject | None,
    event: str | None = None,
    calls: Sequence[Produced] | None = None,
) -> Score:
    """Score a trial: right or not (by the case's rule, and exactly), and its field counts.

    Right means the outcome the case expects (the event it names, see the
    module docstring) and, for ``success``, arguments matching the truth.
    Fields are counted only where success was expected, by the case's rule.
    A case that wants several calls is scored call by call (``calls``: what the
    agent made; one call, ``event`` with ``arguments``, when it made one).
    """
    if case.expected.calls:
        made = list(calls) if calls else ([(event, status, arguments)] if event else [])
        return _score_calls(case, made)
    rules = _matching(case.matching)
    outcome = _outcome_right(case, status, event)
    needs_arguments = case.expected.status is Status.SUCCESS
    correct = outcome and (not needs_arguments or _arguments_right(case, arguments, rules))
    # Under the exact rule (most cases) the two verdicts are one comparison, made once.
    correct_exact = (
        correct
        if rules is Matching.EXACT
        else outcome and (not needs_arguments or _arguments_right(case, arguments, Matching.EXACT))
    )
    if not needs_arguments:
        return Score(correct, correct_exact, 0, 0, 0)
    given = arguments if status == TrialStatus.SUCCESS and event == case.event else None
    alternatives = cast("dict[str, list[Any]] | None", case.expected.alternatives)
    if alternatives is None:
        expected = case.expected.arguments or {}
        alternatives = {name: [value] for name, value in expected.items()}
    return Score(correct, correct_exact, *field_counts(given, alternatives, rules))

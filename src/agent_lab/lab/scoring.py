"""Scoring a trial against its case's ground truth: exact, or by acceptable values.

Ground truth may list several acceptable values per argument (BFCL's answer
format): ``{"unit": ["units", ""], "base": [10]}``: ``base`` must be 10; ``unit`` may
be ``"units"`` or left out. An object in a list is itself a map of lists,
at any depth, inside arrays too. Every comparison is type-sensitive
(``same_json``): ``5`` does not stand for ``5.0``, nor ``true`` for ``1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, cast

from agent_lab.application.events.models import Status
from agent_lab.lab.records import TrialStatus
from agent_lab.strict_json import same_json

if TYPE_CHECKING:
    from agent_lab.lab.workload import Case
    from agent_lab.strict_json import JSONObject

__all__ = ["OMITTED", "Score", "acceptable", "field_counts", "matches", "score"]

OMITTED = ""
"""In a list of acceptable values: the argument may be left out."""


def _is_map_of_lists(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, list) for v in cast("dict[str, Any]", value).values()
    )


def acceptable(value: object, options: list[Any]) -> bool:
    """Whether ``value`` equals one of ``options`` (an option object is a map of lists)."""
    for option in options:
        if _is_map_of_lists(option):
            if isinstance(value, dict) and matches(
                cast("dict[str, Any]", value), cast("dict[str, list[Any]]", option)
            ):
                return True
        elif isinstance(option, list) and isinstance(value, list):
            items = cast("list[Any]", value)
            wanted = cast("list[Any]", option)
            pairs: list[tuple[Any, Any]] = list(zip(items, wanted, strict=False))
            if len(items) == len(wanted) and all(acceptable(i, [w]) for i, w in pairs):
                return True
        elif same_json(cast("object", value), cast("object", option)):
            return True
    return False


def matches(arguments: dict[str, Any], alternatives: dict[str, list[Any]]) -> bool:
    """Every argument acceptable, none unexpected, none required left out."""
    if any(name not in alternatives for name in arguments):
        return False
    for name, options in alternatives.items():
        if name in arguments:
            if not acceptable(arguments[name], options):
                return False
        elif OMITTED not in options:
            return False
    return True


def field_counts(arguments: object, alternatives: dict[str, list[Any]]) -> tuple[int, int, int]:
    """True positives, false positives and false negatives over top-level arguments."""
    given = cast("dict[str, Any]", arguments) if isinstance(arguments, dict) else {}
    right = sum(1 for k, v in given.items() if k in alternatives and acceptable(v, alternatives[k]))
    needed = sum(1 for k, options in alternatives.items() if k in given or OMITTED not in options)
    return right, len(given) - right, needed - right


def _exact_field_counts(arguments: object, expected: object) -> tuple[int, int, int]:
    actual = cast("dict[str, Any]", arguments) if isinstance(arguments, dict) else {}
    truth = cast("dict[str, Any]", expected) if isinstance(expected, dict) else {}
    true_positive = sum(1 for k, v in actual.items() if k in truth and same_json(v, truth[k]))
    return true_positive, len(actual) - true_positive, len(truth) - true_positive


class Score(NamedTuple):
    """Whether a trial is right, and its field counts."""

    correct: bool
    field_tp: int
    """Arguments given and right."""
    field_fp: int
    """Arguments given and wrong, or not expected at all."""
    field_fn: int
    """Arguments expected and not given right."""


def score(case: Case, status: TrialStatus, arguments: JSONObject | None) -> Score:
    """Score a trial: right or not, and its field counts.

    Right means the expected status and, for ``success``, arguments equal to the
    expected ones canonically and type-sensitively (or, when the case lists
    alternatives, each argument one of its acceptable values). Fields are counted only
    where success was expected.
    """
    alternatives = cast("dict[str, list[Any]] | None", case.expected.alternatives)
    if alternatives is not None:
        right = isinstance(arguments, dict) and matches(arguments, alternatives)
    else:
        right = same_json(arguments, case.expected.arguments)
    succeeded = status == TrialStatus.SUCCESS
    # Two StrEnums: equal when their strings are (a TrialStatus mirrors each Status).
    correct = status == case.expected.status and (not succeeded or right)
    if case.expected.status is not Status.SUCCESS:
        return Score(correct, 0, 0, 0)
    given = arguments if succeeded else None
    if alternatives is not None:
        return Score(correct, *field_counts(given, alternatives))
    return Score(correct, *_exact_field_counts(given, case.expected.arguments))

"""Ground truth that lists several acceptable values per argument (BFCL's answer format).

``{"unit": ["units", ""], "base": [10]}``: ``base`` must be 10; ``unit`` may
be ``"units"`` or left out. An object in a list is itself a map of lists,
at any depth, inside arrays too. Every comparison is type-sensitive
(``same_json``): ``5`` does not stand for ``5.0``, nor ``true`` for ``1``.
"""

from __future__ import annotations

from typing import Any, cast

from agent_lab.strict_json import same_json

__all__ = ["OMITTED", "acceptable", "field_counts", "matches"]

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

"""Parameters only the user can supply: where a schema marks them, and whether a pointer is one.

Some values a model must never fill in: how many people a table is for, the
amount of a payment, the recipient of a message. When the user did not say
it, the assistant asks; an LLM fallback that supplies one invents it. Such a
parameter is marked in its schema with ``"x-user-only": true`` (a JSON Schema
annotation: validators ignore it), or named in ``EventDefinition.user_only``.
The kernel then never asks the fallback for it: a dispatch that misses one
ends ``missing_information`` naming it, and a value a reply holds for one is
dropped and noted in the ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, cast

from agent_lab.strict_json import escape_pointer_token

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = ["USER_ONLY", "marked_user_only", "under_any"]

USER_ONLY: Final = "x-user-only"
"""The schema annotation that marks a property only the user can supply (``true``)."""

_MAX_DEPTH = 32


def marked_user_only(schema: Mapping[str, Any], named: Iterable[str] = ()) -> tuple[str, ...]:
    """The pointers of the properties only the user can supply.

    Those the schema marks with ``"x-user-only": true`` (under ``properties``,
    at any depth of nested objects), and those ``named`` (property names or
    JSON pointers, as ``Resolution.missing`` takes them).
    """
    found = dict.fromkeys(_marked(schema, "", 0))
    for name in named:
        found[name if name.startswith("/") else "/" + escape_pointer_token(name)] = None
    return tuple(found)


def _marked(schema: Mapping[str, Any], pointer: str, depth: int) -> Iterator[str]:
    properties = schema.get("properties")
    if depth > _MAX_DEPTH or not isinstance(properties, Mapping):
        return
    for key, sub in cast("Mapping[str, object]", properties).items():
        if not isinstance(sub, Mapping):
            continue
        child = cast("Mapping[str, Any]", sub)
        at = f"{pointer}/{escape_pointer_token(key)}"
        if child.get(USER_ONLY) is True:
            yield at
        yield from _marked(child, at, depth + 1)


def under_any(pointer: str, marked: tuple[str, ...]) -> bool:
    """Whether ``pointer`` is one of ``marked``, or inside one."""
    return any(pointer == mark or pointer.startswith(mark + "/") for mark in marked)

"""A benchmark's JSON read with every value's type checked: a wrong one is a ``ShapeError``.

Importers read each field through these functions, never by indexing raw data,
so that a value of the wrong type anywhere is a counted skip with its JSON
pointer (L4), never a ``TypeError`` out of the middle of an import. The
pointer is put together only when there is an error, on its way up: reading
a well-formed dataset builds none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

from agent_lab.errors import InputError
from agent_lab.strict_json import to_pointer

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from agent_lab.strict_json import JSONValue

__all__ = [
    "ShapeError",
    "array",
    "boolean",
    "each",
    "need",
    "obj",
    "optional",
    "string",
    "string_map",
    "strings",
]

_T = TypeVar("_T")


class ShapeError(InputError):
    """A value missing, or of the wrong type, somewhere in the item being read.

    An ``InputError``: the corpus a user imports is at fault, one item of it.

    Attributes:
        problem: What is wrong, e.g. ``expected a string, not null``.
        path: The keys and indices from the item's root down to the value.
    """

    def __init__(self, problem: str, path: tuple[str | int, ...] = ()) -> None:
        self.problem = problem
        self.path = path
        super().__init__(f"at {self.pointer or '/'}: {problem}")

    @property
    def pointer(self) -> str:
        """The JSON pointer of the value at fault, from the item's root."""
        return to_pointer(self.path)

    def under(self, *tokens: str | int) -> ShapeError:
        """The same error, seen from ``tokens`` further up."""
        return ShapeError(self.problem, (*tokens, *self.path))


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _wrong(value: object, expected: str) -> ShapeError:
    return ShapeError(f"expected {expected}, not {_kind(value)}")


def obj(value: object) -> Mapping[str, JSONValue]:
    """An object."""
    if not isinstance(value, dict):
        raise _wrong(value, "an object")
    return cast("dict[str, JSONValue]", value)


def array(value: object) -> list[JSONValue]:
    """A list."""
    if not isinstance(value, list):
        raise _wrong(value, "a list")
    return cast("list[JSONValue]", value)


def string(value: object) -> str:
    """A string."""
    if not isinstance(value, str):
        raise _wrong(value, "a string")
    return value


def boolean(value: object) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise _wrong(value, "a boolean")
    return value


def each(value: object, read: Callable[[object], _T]) -> tuple[_T, ...]:
    """A list, each item read with ``read``."""
    read_items: list[_T] = []
    for index, item in enumerate(array(value)):
        try:
            read_items.append(read(item))
        except ShapeError as err:
            raise err.under(index) from None
    return tuple(read_items)


def strings(value: object) -> tuple[str, ...]:
    """A list of strings."""
    return each(value, string)


def string_map(value: object) -> dict[str, str]:
    """An object whose every value is a string."""
    mapping = obj(value)
    for key, item in mapping.items():
        if not isinstance(item, str):
            raise _wrong(item, "a string").under(key)
    return cast("dict[str, str]", mapping)


def need(mapping: Mapping[str, JSONValue], key: str, read: Callable[[object], _T]) -> _T:
    """The field ``key``, read with ``read``; missing is a ``ShapeError``."""
    if key not in mapping:
        raise ShapeError("missing", (key,))
    try:
        return read(mapping[key])
    except ShapeError as err:
        raise err.under(key) from None


def optional(
    mapping: Mapping[str, JSONValue], key: str, read: Callable[[object], _T], default: _T
) -> _T:
    """The field ``key``, read with ``read`` when present and not null, else ``default``."""
    value = mapping.get(key)
    if value is None:
        return default
    try:
        return read(value)
    except ShapeError as err:
        raise err.under(key) from None

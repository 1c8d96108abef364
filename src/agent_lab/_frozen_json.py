"""Read-only JSON: a frozen deep copy, and a plain one back.

Private: ``agent_lab.strict_json``'s ``freeze_json`` and ``thaw_json`` are the
typed public face, and it re-exports ``FrozenJSONObject``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn, Self, cast

from agent_lab.errors import StrictJSONError, WrongTypeError

__all__ = ["FrozenJSONObject", "freeze", "thaw"]


class FrozenJSONObject(dict[str, Any]):
    """A JSON object that refuses every change: a ``dict``, so ``json.dumps`` takes it as is.

    ``freeze_json`` builds these: a read-only view (``MappingProxyType``) would
    protect as well, but ``json.dumps`` and most JSON tools refuse it, and a
    registered schema is handed to exactly such tools.
    """

    __slots__ = ()

    # Each mutator refuses.
    def __setitem__(self, key: str, value: Any) -> None:
        """Refused."""
        _refuse()

    def __delitem__(self, key: str) -> None:
        """Refused."""
        _refuse()

    def __ior__(self, other: Any) -> Self:
        """Refused."""
        _refuse()

    def clear(self) -> None:
        """Refused."""
        _refuse()

    def pop(self, *_: Any) -> Any:
        """Refused."""
        _refuse()

    def popitem(self) -> tuple[str, Any]:
        """Refused."""
        _refuse()

    def setdefault(self, *_: Any) -> Any:
        """Refused."""
        _refuse()

    def update(self, *_: Any, **__: Any) -> None:
        """Refused."""
        _refuse()

    def __reduce__(self) -> tuple[type[FrozenJSONObject], tuple[dict[str, Any]]]:
        """Rebuilt whole (pickle, ``copy``), never item by item through ``__setitem__``."""
        return (FrozenJSONObject, (dict(self),))


def _refuse() -> NoReturn:
    raise WrongTypeError("a frozen JSON object cannot be changed; thaw_json() gives a copy")


def freeze(value: Any) -> Any:
    """A read-only deep copy of JSON data: objects become ``FrozenJSONObject``, arrays tuples."""
    if isinstance(value, dict):
        items = cast("dict[str, Any]", value)
        return FrozenJSONObject({key: freeze(item) for key, item in items.items()})
    if isinstance(value, list):
        return tuple(freeze(item) for item in cast("list[Any]", value))
    return value


def thaw(value: object, max_depth: int) -> Any:
    """A plain, mutable deep copy of a frozen (or plain) JSON value.

    Raises:
        StrictJSONError: ``too_deep``, past ``max_depth`` nested containers.
    """
    return _thaw(value, 1, max_depth)


def _thaw(value: object, depth: int, limit: int) -> Any:
    if isinstance(value, Mapping | tuple | list) and depth > limit:
        raise StrictJSONError("too_deep", f"nesting deeper than {limit}")
    if isinstance(value, Mapping):
        mapping: Mapping[str, object] = value  # type: ignore[assignment]
        return {key: _thaw(item, depth + 1, limit) for key, item in mapping.items()}
    if isinstance(value, tuple | list):
        items: tuple[object, ...] | list[object] = value  # type: ignore[assignment]
        return [_thaw(item, depth + 1, limit) for item in items]
    return value  # scalars are already JSON data

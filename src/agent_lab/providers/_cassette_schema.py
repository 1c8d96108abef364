"""The cassette's typed schema: replies as JSON, read back through their dataclasses' own fields.

Encoding and decoding walk ``dataclasses.fields`` and the fields' type hints,
so a field added to ``ProviderReply`` (or to ``Usage``, ``ToolCall``,
``ProviderFailure``) is recorded and replayed with no converter to update.
Decoding is strict: a value of the wrong type, or a key the dataclass does
not have, is a ``CassetteError``, never a reply built from a guess.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any, TypeVar, cast

from agent_lab.agents.port import ProviderReply
from agent_lab.errors import CassetteError

if typing.TYPE_CHECKING:
    from agent_lab.strict_json import JSONValue

__all__ = ["decode_reply", "encode_reply"]

_T = TypeVar("_T")


class _JSONData:
    """Stands for ``JSONValue``/``JSONObject`` in type hints: JSON-shaped data, checked as such.

    Non-finite floats are kept: an adapter's permissive parse of ``NaN`` is
    recorded as it was, for the kernel to audit on replay (K18).
    """


_MAX_DEPTH = 256


def _json_shaped(data: object, path: str, depth: int = 1) -> object:
    if isinstance(data, dict | list) and depth > _MAX_DEPTH:
        raise CassetteError(f"{path}: nested deeper than {_MAX_DEPTH}")
    if isinstance(data, dict):
        mapping = cast("dict[object, object]", data)
        for key, item in mapping.items():
            if type(key) is not str:
                raise CassetteError(f"{path}: a non-string key")
            _json_shaped(item, f"{path}.{key}", depth + 1)
    elif isinstance(data, list):
        for index, item in enumerate(cast("list[object]", data)):
            _json_shaped(item, f"{path}[{index}]", depth + 1)
    elif data is not None and type(data) not in (str, int, float, bool):
        raise CassetteError(f"{path}: {type(data).__name__} is not JSON data")
    return cast("object", data)


_HINT_NAMES = {"JSONValue": _JSONData, "JSONObject": _JSONData}


@cache
def _hints(kind: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(kind, localns=_HINT_NAMES)


def encode_reply(reply: ProviderReply) -> JSONValue:
    """The reply as JSON data, every field included."""
    return _encode(reply)


def decode_reply(data: object) -> ProviderReply:
    """The reply that ``encode_reply`` wrote.

    Raises:
        CassetteError: When ``data`` does not follow the schema; the message
            names the path of the first bad value.
    """
    return _decode(ProviderReply, data, "reply")


def _encode(value: object) -> JSONValue:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_encode(item) for item in cast("tuple[object, ...]", value)]
    if isinstance(value, Decimal):
        # A string keeps the exact amount; a float would round it.
        return str(value)
    return cast("JSONValue", value)


def _decode(kind: Any, data: object, path: str) -> Any:
    if kind is _JSONData:
        return _json_shaped(data, path)
    origin = typing.get_origin(kind)
    if origin is types.UnionType or origin is typing.Union:
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        if data is None and len(options) < len(typing.get_args(kind)):
            return None
        if len(options) != 1:
            raise CassetteError(f"{path}: unsupported type {kind}")
        return _decode(options[0], data, path)
    if origin is tuple:
        if not isinstance(data, list):
            raise CassetteError(f"{path}: expected a list, not {type(data).__name__}")
        item_kind = typing.get_args(kind)[0]
        items = cast("list[object]", data)
        return tuple(_decode(item_kind, item, f"{path}[{i}]") for i, item in enumerate(items))
    if dataclasses.is_dataclass(kind):
        return _decode_dataclass(cast("type[Any]", kind), data, path)
    if kind is Decimal:
        if type(data) is not str:
            raise CassetteError(f"{path}: expected a decimal string, not {type(data).__name__}")
        try:
            return Decimal(data)
        except InvalidOperation as err:
            raise CassetteError(f"{path}: not a decimal: {data!r}") from err
    if kind in (str, int, bool) and type(data) is kind:
        return data
    if kind is float and type(data) in (int, float):
        return float(cast("float", data))
    raise CassetteError(f"{path}: expected {getattr(kind, '__name__', kind)}, not {data!r}")


def _decode_dataclass(kind: type[_T], data: object, path: str) -> _T:
    if not isinstance(data, dict):
        raise CassetteError(f"{path}: expected an object, not {type(data).__name__}")
    mapping = cast("dict[str, object]", data)
    fields = {f.name: f for f in dataclasses.fields(cast("Any", kind))}
    unknown = sorted(set(mapping) - set(fields))
    if unknown:
        raise CassetteError(f"{path}: unknown field {unknown[0]!r}")
    hints = _hints(kind)
    values: dict[str, Any] = {}
    for name, spec in fields.items():
        if name in mapping:
            values[name] = _decode(hints[name], mapping[name], f"{path}.{name}")
        elif spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
            raise CassetteError(f"{path}: missing field {name!r}")
    try:
        return kind(**values)
    except (TypeError, ValueError) as err:
        raise CassetteError(f"{path}: {err}") from err

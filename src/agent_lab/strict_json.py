"""Strict RFC 8259 parsing, RFC 8785 canonical text, and type-sensitive JSON equality.

The policy for everything RFC 8259 leaves to the implementation:

============================  ==============================================
input                         policy
============================  ==============================================
duplicate object names        rejected (``duplicate_key``): two parsers could
                              see two different values, which defeats the
                              kernel's raw/parsed audit (K17)
``NaN``, ``Infinity``         rejected (``syntax``): not JSON
number overflowing a double   rejected (``non_finite_number``), e.g. ``1e400``
number underflowing           accepted, rounded by IEEE 754 (``1e-400`` is 0.0)
integer of any size           accepted as an exact ``int``; integers longer
                              than Python's ``sys.get_int_max_str_digits()``
                              (4300 digits by default) are rejected
                              (``number_too_long``), a guard against the
                              quadratic cost of converting them
lone UTF-16 surrogate         rejected (``lone_surrogate``), escaped or raw: it
                              cannot be encoded as UTF-8, hashed or stored
bytes input                   must be UTF-8 without a byte order mark;
                              anything else is rejected (``encoding``)
size                          at most ``max_bytes`` UTF-8 bytes (default
                              1 MiB), else ``too_large``
nesting                       at most ``max_depth`` containers deep (default
                              64; the top-level container is depth 1), else
                              ``too_deep``; never a ``RecursionError``
top-level scalars             accepted (RFC 8259); the kernel itself requires
                              an object
============================  ==============================================
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from agent_lab._canonical import write_canonical
from agent_lab._frozen_json import FrozenJSONObject, freeze, thaw
from agent_lab._json_walk import NotJSONDataError, checked_copy_array, checked_copy_object
from agent_lab.errors import StrictJSONError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "FrozenJSONObject",
    "JSONObject",
    "JSONValue",
    "StrictJSONError",
    "canonical_dumps",
    "ensure_json_data",
    "escape_pointer_token",
    "freeze_json",
    "has_pointer",
    "loads",
    "pointer_tokens",
    "same_json",
    "thaw_json",
    "to_pointer",
]

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
"""A JSON value as plain Python data: what ``loads`` returns."""

JSONObject: TypeAlias = dict[str, JSONValue]
"""A JSON object as a plain ``dict``."""

DEFAULT_MAX_BYTES = 1 << 20
"""Default bound on the UTF-8 size of a text given to ``loads`` (1 MiB)."""

DEFAULT_MAX_DEPTH = 64
"""Default bound on nesting depth in ``loads``."""

_UTF8_BOM = b"\xef\xbb\xbf"
# A string, or an unterminated one to the end of the text: the closing quote
# is optional, so a match never fails once it has started. That keeps the scan
# linear: with a mandatory quote, every unmatched `"` rescanned to the end.
# Possessive quantifiers (Python 3.11+) keep no backtracking state per escape.
_STRING_TOKEN = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_DELTA = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _reject_constant(name: str) -> float:
    raise StrictJSONError("syntax", f"{name} is not JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise StrictJSONError("non_finite_number", f"number {text[:40]} overflows a double")
    return value


def _object_from_pairs(pairs: list[tuple[str, JSONValue]]) -> JSONObject:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise StrictJSONError("duplicate_key", f"duplicate object key {key[:80]!r}")
            seen.add(key)
    return obj


_DECODER = json.JSONDecoder(
    object_pairs_hook=_object_from_pairs,
    parse_constant=_reject_constant,
    parse_float=_parse_float,
    strict=True,
)
# The decoder's C scanner (not in the type stubs), and JSON whitespace, which
# always matches (possibly empty), hence the declared non-optional Match.
_SCAN: Callable[[str, int], tuple[JSONValue, int]] = _DECODER.scan_once  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType]
_WHITESPACE: Callable[[str, int], re.Match[str]] = re.compile(r"[ \t\n\r]*").match  # type: ignore[assignment]


def _max_depth(text: str) -> int:
    # Strings may hold brackets; drop them first. On text that is not JSON the
    # count can only err upwards before an unterminated string, and the decoder
    # stops at the first error, never entering what follows such a string: so
    # whatever the decoder recurses into has been counted exactly.
    brackets = _NOT_BRACKET.sub("", _STRING_TOKEN.sub("", text))
    if not brackets:
        return 0
    return max(accumulate(map(_BRACKET_DELTA.__getitem__, brackets)))


def _has_surrogate(value: JSONValue) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    if isinstance(value, dict):
        return any(
            _SURROGATE.search(key) is not None or _has_surrogate(item)
            for key, item in value.items()
        )
    return False


def loads(
    text: str | bytes,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> JSONValue:
    """Parse one JSON text strictly (RFC 8259 plus the policy in this module's docstring).

    Args:
        text: The JSON text; ``bytes`` must be UTF-8 without a byte order mark.
        max_bytes: Largest accepted size in UTF-8 bytes.
        max_depth: Deepest accepted nesting of arrays and objects.

    Returns:
        The value as plain ``dict``/``list``/``str``/``int``/``float``/``bool``/``None``.

    Raises:
        StrictJSONError: The text is not strict JSON or exceeds a bound.
    """
    if isinstance(text, bytes):
        if len(text) > max_bytes:
            raise StrictJSONError("too_large", f"{len(text)} bytes exceeds {max_bytes}")
        if text.startswith(_UTF8_BOM):
            raise StrictJSONError("encoding", "a byte order mark is not allowed", position=0)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise StrictJSONError(
                "encoding", f"not UTF-8: {err.reason}", position=err.start
            ) from err
    else:
        # isascii() is O(1) in CPython; only other text needs encoding to be measured.
        if text.isascii():
            size = len(text)
        else:
            try:
                size = len(text.encode("utf-8"))
            except UnicodeEncodeError as err:
                raise StrictJSONError(
                    "lone_surrogate", "lone UTF-16 surrogate", position=err.start
                ) from err
        if size > max_bytes:
            raise StrictJSONError("too_large", f"{size} bytes exceeds {max_bytes}")
    # str.count is a C loop; the exact scan runs only when the text could be too deep.
    if text.count("[") + text.count("{") > max_depth and _max_depth(text) > max_depth:
        raise StrictJSONError("too_deep", f"nesting deeper than {max_depth}")
    try:
        # What JSONDecoder.decode does, minus a layer of calls: this runs on every reply.
        start = _WHITESPACE(text, 0).end()
        try:
            value, end = _SCAN(text, start)
        except StopIteration as stop:
            raise StrictJSONError("syntax", "Expecting value", position=stop.value) from None
        end = _WHITESPACE(text, end).end()
        if end != len(text):
            raise StrictJSONError("syntax", "Extra data", position=end)
    except json.JSONDecodeError as err:
        raise StrictJSONError("syntax", err.msg, position=err.pos) from err
    except ValueError as err:
        if isinstance(err, StrictJSONError):
            raise
        # int() refuses digit strings over sys.get_int_max_str_digits().
        raise StrictJSONError("number_too_long", str(err)) from err
    except RecursionError as err:  # pragma: no cover - the depth bound prevents it
        raise StrictJSONError("too_deep", "nesting too deep") from err
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None and _has_surrogate(value):
        raise StrictJSONError("lone_surrogate", "lone UTF-16 surrogate escape")
    return value


def escape_pointer_token(token: str | int) -> str:
    """Escape one JSON pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def to_pointer(path: Iterable[str | int]) -> str:
    """Build a JSON pointer (RFC 6901) from unescaped segments: ``["a/b", 0]`` -> ``/a~1b/0``."""
    return "".join("/" + escape_pointer_token(segment) for segment in path)


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a JSON pointer: ``/a~1b/0`` -> ``["a/b", "0"]``."""
    return [raw.replace("~1", "/").replace("~0", "~") for raw in pointer.split("/")[1:]]


def has_pointer(document: object, pointer: str) -> bool:
    """Whether the JSON pointer names a value inside ``document`` (objects and arrays)."""
    node = document
    for token in pointer_tokens(pointer):
        if isinstance(node, dict):
            mapping = cast("dict[str, object]", node)
            if token not in mapping:
                return False
            node = mapping[token]
        elif isinstance(node, list):
            items = cast("list[object]", node)
            if not token.isdigit() or int(token) >= len(items):
                return False
            node = items[int(token)]
        else:
            return False
    return True


def ensure_json_data(
    value: object, pointer: str = "", *, max_depth: int = DEFAULT_MAX_DEPTH
) -> JSONValue:
    """Return a plain deep copy of ``value`` if it is JSON data, else raise.

    JSON data is ``None``, ``bool``, ``int``, finite ``float``, ``str``
    without lone surrogates, ``list`` of JSON data, and any ``Mapping`` with
    ``str`` keys and JSON data values (copied into a ``dict``). Tuples, sets,
    bytes, NaN, infinities, subclasses of the scalar types (enums) and any
    other object are not. Nesting is bounded like the parser's (``max_depth``
    containers, the top-level one being depth 1), which also stops a
    container that holds itself; a ``Mapping`` whose methods raise is not
    JSON data either.

    Args:
        value: The value to check and copy.
        pointer: Where ``value`` sits, prefixed to the pointer of an error.
        max_depth: The deepest nesting accepted.

    Raises:
        StrictJSONError: With reason ``not_json_data`` (or ``too_deep``) and
            the JSON pointer of the first offending value.
    """
    kind = type(value)
    if (kind is str and value.isascii()) or kind is int or kind is bool or value is None:  # type: ignore[union-attr]
        return value  # type: ignore[return-value]  # a scalar: nothing to copy
    try:
        if kind is dict:
            # The common case, without the wrapper.
            return checked_copy_object(value, 1, max_depth)
        # The wrapper list is depth 0, so the value itself is depth 1.
        wrapped: list[JSONValue] = checked_copy_array([value], 0, max_depth)
    except NotJSONDataError as error:
        if type(value) is dict:
            error.path.append(0)  # stands for the wrapper the general path adds
        where = pointer + "".join(
            "/" + escape_pointer_token(token) for token in reversed(error.path[:-1])
        )
        raise StrictJSONError(
            error.reason, f"{error.what} at {where or '/'}", pointer=where
        ) from None
    return wrapped[0]


def same_json(a: object, b: object) -> bool:
    """Whether two JSON values are equal in value and in JSON type, at every depth.

    ``True`` is not ``1``, ``1`` is not ``1.0``, objects must have the same
    keys and arrays the same order. ``0.0`` and ``-0.0`` are the same number.
    Values that are not JSON data (NaN, tuples, enums...) are never the same
    as anything, themselves included. Unlike comparing ``canonical_dumps``
    output, this tells ``1`` from ``1.0``.

    Raises:
        StrictJSONError: ``too_deep``, for values nested deeper than
            ``DEFAULT_MAX_DEPTH``, which no parse or check lets through.
    """
    return _same(a, b, 1)


def _same(a: object, b: object, depth: int) -> bool:
    kind = type(a)
    if kind is not type(b):
        return False
    # Explicit loops rather than all(...): this runs on every fallback reply (K18).
    if kind is dict:
        left: dict[object, object] = a  # type: ignore[assignment]
        right: dict[object, object] = b  # type: ignore[assignment]
        if len(left) != len(right):
            return False
        if depth > DEFAULT_MAX_DEPTH:
            raise StrictJSONError("too_deep", f"nesting deeper than {DEFAULT_MAX_DEPTH}")
        for key, item in left.items():
            if type(key) is not str or key not in right or not _same(item, right[key], depth + 1):
                return False
        return True
    if kind is list:
        left_items: list[object] = a  # type: ignore[assignment]
        right_items: list[object] = b  # type: ignore[assignment]
        if len(left_items) != len(right_items):
            return False
        if depth > DEFAULT_MAX_DEPTH:
            raise StrictJSONError("too_deep", f"nesting deeper than {DEFAULT_MAX_DEPTH}")
        for x, y in zip(left_items, right_items, strict=True):  # noqa: SIM110 - see above
            if not _same(x, y, depth + 1):
                return False
        return True
    if kind is float:
        return math.isfinite(a) and a == b  # type: ignore[arg-type]
    if kind is str:
        return a == b and (a.isascii() or _SURROGATE.search(a) is None)  # type: ignore[union-attr,arg-type]
    if a is None or kind is bool or kind is int:
        return a == b
    return False


def canonical_dumps(value: object, *, max_depth: int = DEFAULT_MAX_DEPTH) -> str:
    """Serialize JSON data in the RFC 8785 (JCS) canonical form, for fingerprints.

    Keys are sorted by UTF-16 code units, there is no whitespace, strings are
    escaped minimally and floats use the ECMAScript number format, so ``1.0``
    is written ``1`` (compare values with ``same_json``, not with this).
    One deliberate extension: integers are written exactly at any size,
    where RFC 8785 would first round them to a double, so that two distinct
    large integers never share a fingerprint.

    Raises:
        StrictJSONError: ``value`` is not JSON data (see ``ensure_json_data``,
            which bounds its nesting at ``max_depth``), or holds an integer
            too long to write (``number_too_long``).
    """
    data = ensure_json_data(value, max_depth=max_depth)
    out: list[str] = []
    write_canonical(data, out)
    return "".join(out)


def freeze_json(value: JSONValue) -> Any:
    """Return a read-only deep copy: objects become ``FrozenJSONObject``, arrays tuples."""
    return freeze(value)


def thaw_json(value: object, *, max_depth: int = DEFAULT_MAX_DEPTH) -> JSONValue:
    """Return a plain, mutable deep copy of a frozen (or plain) JSON value.

    Raises:
        StrictJSONError: ``too_deep``, past ``max_depth`` nested containers
            (which also stops a container that holds itself).
    """
    return cast("JSONValue", thaw(value, max_depth))

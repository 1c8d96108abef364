"""A chat completion request's body, read once with the strict parser, its fields' types checked.

The gateway answers 400, in the API's words and error shape (``param`` names
the field), for a body the API would refuse: not JSON, not an object, no
``messages``, or a field the API defines given a value of the wrong type
(``temperature: "hot"``, ``model: 5``, ``n: true``, ``tools`` as an object, a
tool whose ``parameters`` is no object). Such a body never reaches the
upstream, so a client is told what it sent wrong, not that "the upstream
answered HTTP 500". Fields the API does not define pass unchecked (an
upstream may take its own), and ``null`` is taken for every optional field.

A body the strict parser refuses for its policy, not its syntax (a duplicate
key, a lone surrogate, a number too long, nesting deeper than the bound), is
forwarded undecided: JSON the upstream may take, which plain code does not
decide on (``Body.undecided``). So is an integer field given as a number with
a zero fraction (``n: 1.0``): the API's own parser judges it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_lab.errors import StrictJSONError
from agent_lab.strict_json import loads

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Body", "Refused", "read_body"]

Kind = Literal["string", "number", "integer", "boolean", "object", "array", "string_or_array"]

_FIELDS: dict[str, tuple[Kind, ...]] = {
    "model": ("string",),
    "messages": ("array",),
    "tools": ("array",),
    "tool_choice": ("string", "object"),
    "parallel_tool_calls": ("boolean",),
    "stream": ("boolean",),
    "stream_options": ("object",),
    "n": ("integer",),
    "temperature": ("number",),
    "top_p": ("number",),
    "presence_penalty": ("number",),
    "frequency_penalty": ("number",),
    "max_tokens": ("integer",),
    "max_completion_tokens": ("integer",),
    "seed": ("integer",),
    "top_logprobs": ("integer",),
    "logprobs": ("boolean",),
    "store": ("boolean",),
    "stop": ("string", "array"),
    "user": ("string",),
    "service_tier": ("string",),
    "safety_identifier": ("string",),
    "prompt_cache_key": ("string",),
    "reasoning_effort": ("string",),
    "verbosity": ("string",),
    "metadata": ("object",),
    "logit_bias": ("object",),
    "response_format": ("object",),
    "audio": ("object",),
    "prediction": ("object",),
    "web_search_options": ("object",),
    "modalities": ("array",),
    "functions": ("array",),
    "function_call": ("string", "object"),
}
"""The request fields the API defines, and the JSON types each takes (besides ``null``)."""

_FUNCTION_FIELDS: tuple[tuple[str, tuple[Kind, ...]], ...] = (
    ("name", ("string",)),
    ("parameters", ("object",)),
)
_WORDS = {
    "string": "a string",
    "number": "a decimal",
    "integer": "an integer",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
}
_POLICY = frozenset({"duplicate_key", "lone_surrogate", "non_finite_number", "number_too_long"})
"""Strict-parser refusals of JSON text another parser may take: forwarded undecided."""


@dataclass(frozen=True, slots=True)
class Body:
    """A body the API would take: the parsed object, or ``None`` when plain code does not decide.

    ``undecided`` says why a body is forwarded without a decision (a fixed word).
    """

    value: JSONObject | None
    undecided: str | None = None


@dataclass(frozen=True, slots=True)
class Refused:
    """A body the API would refuse: 400, with the API's message, ``param`` and ``code``."""

    message: str
    param: str | None
    code: str | None


def _kind(value: JSONValue) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "null"


def _fits(value: JSONValue, kinds: tuple[Kind, ...]) -> bool | None:
    """``True``, ``False``, or ``None`` for an integer field given as a float with no fraction."""
    found = _kind(value)
    if found == "null" or found in kinds:
        return True
    if "number" in kinds and found == "integer":
        return True
    if "integer" in kinds and isinstance(value, float) and value.is_integer():
        return None
    return False


def _wrong(param: str, kinds: tuple[Kind, ...], value: JSONValue) -> Refused:
    expected = " or ".join(_WORDS[kind] for kind in kinds)
    got = {"integer": "an integer", "number": "a decimal number"}.get(
        _kind(value), _WORDS.get(_kind(value), "null")
    )
    return Refused(
        f"Invalid type for '{param}': expected {expected}, but got {got} instead.",
        param,
        "invalid_type",
    )


def _items(name: str, items: list[JSONValue]) -> Refused | None:
    """The messages or tools, each an object whose few typed fields have their types."""
    for index, item in enumerate(items):
        where = f"{name}[{index}]"
        if not isinstance(item, dict):
            return _wrong(where, ("object",), item)
        if name == "messages":
            role = item.get("role")
            if not isinstance(role, str):
                return _wrong(f"{where}.role", ("string",), role)
            content = item.get("content")
            if not _fits(content, ("string", "array")):
                return _wrong(f"{where}.content", ("string", "array"), content)
            calls = item.get("tool_calls")
            if not _fits(calls, ("array",)):
                return _wrong(f"{where}.tool_calls", ("array",), calls)
            continue
        function = item.get("function")
        if not _fits(function, ("object",)):
            return _wrong(f"{where}.function", ("object",), function)
        if isinstance(function, dict):
            for key, kinds in _FUNCTION_FIELDS:
                given = function.get(key)
                if not _fits(given, kinds):
                    return _wrong(f"{where}.function.{key}", kinds, given)
    return None


def read_body(raw: bytes, *, max_bytes: int) -> Body | Refused:
    """The body as the API would read it, or what it would say refusing it."""
    try:
        parsed = loads(raw, max_bytes=max_bytes, max_depth=128)
    except StrictJSONError as err:
        if err.reason in _POLICY or err.reason == "too_deep":
            return Body(None, undecided="not_strict_json")
        return Refused(
            f"We could not parse the JSON body of your request ({err.reason}). The API "
            "expects a JSON object.",
            None,
            None,
        )
    if not isinstance(parsed, dict):
        return Refused("The request body must be a JSON object.", None, None)
    if parsed.get("messages") is None:
        return Refused(
            "Missing required parameter: 'messages'.", "messages", "missing_required_parameter"
        )
    undecided: str | None = None
    for name, value in parsed.items():
        kinds = _FIELDS.get(name)
        if kinds is None:
            continue
        fits = _fits(value, kinds)
        if fits is None:
            undecided = "integral_float"
        elif not fits:
            return _wrong(name, kinds, value)
        if (
            name == "stop"
            and isinstance(value, list)
            and not all(isinstance(s, str) for s in value)
        ):
            return _wrong("stop", ("string", "array"), value)
        if name in ("messages", "tools") and isinstance(value, list):
            refused = _items(name, value)
            if refused is not None:
                return refused
    if parsed["messages"] == []:
        return Refused(
            "Invalid 'messages': empty array. Expected an array with minimum length 1.",
            "messages",
            "empty_array",
        )
    return Body(None if undecided else parsed, undecided)

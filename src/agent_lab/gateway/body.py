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

import re
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
    ("description", ("string",)),
    ("parameters", ("object",)),
    ("strict", ("boolean",)),
)
_MESSAGE_FIELDS: tuple[tuple[str, tuple[Kind, ...]], ...] = (
    ("content", ("string", "array")),
    ("tool_calls", ("array",)),
    ("name", ("string",)),
)
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_NAME = re.compile(r"[a-zA-Z0-9_-]+")
_PARTS: dict[str, frozenset[str]] = {
    "user": frozenset({"text", "image_url", "input_audio", "file"}),
    "assistant": frozenset({"text", "refusal"}),
    "system": frozenset({"text"}),
    "developer": frozenset({"text"}),
    "tool": frozenset({"text"}),
}
"""The content parts each role's message takes."""
_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0, 2),
    "top_p": (0, 1),
    "presence_penalty": (-2, 2),
    "frequency_penalty": (-2, 2),
    "n": (1, 128),
    "max_tokens": (1, 2**31 - 1),
    "max_completion_tokens": (1, 2**31 - 1),
    "top_logprobs": (0, 20),
    "seed": (-(2**63), 2**63 - 1),
}
"""The API's bounds on numbers: a value past them is forwarded, the upstream's to refuse."""
_MAX_STOP = 4
_MAX_METADATA = 16
_TIERS = frozenset({"auto", "default", "flex", "priority", "scale"})
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


def _invalid(param: str, message: str) -> Refused:
    return Refused(f"Invalid '{param}': {message}", param, "invalid_value")


def _message(where: str, item: JSONObject) -> Refused | None:
    """One message as the API takes it: its role, its content, its calls, its name."""
    role = item.get("role")
    if not isinstance(role, str):
        return _wrong(f"{where}.role", ("string",), role)
    for key, kinds in _MESSAGE_FIELDS:
        given = item.get(key)
        if not _fits(given, kinds):
            return _wrong(f"{where}.{key}", kinds, given)
    content, calls = item.get("content"), item.get("tool_calls")
    if content is None and role != "assistant":
        return Refused(
            f"Invalid value for '{where}.content': expected a string or an array, got null.",
            f"{where}.content",
            "invalid_type",
        )
    if role == "assistant" and calls == []:
        return _invalid(
            f"{where}.tool_calls",
            "empty array. Expected an array with minimum length 1, but got an empty array instead.",
        )
    if role == "assistant" and content is None and not calls and "function_call" not in item:
        return Refused(
            f"Missing required parameter: '{where}.content'.",
            f"{where}.content",
            "missing_required_parameter",
        )
    if role == "tool" and not isinstance(item.get("tool_call_id"), str):
        return _wrong(f"{where}.tool_call_id", ("string",), item.get("tool_call_id"))
    name = item.get("name")
    if isinstance(name, str) and not _NAME.fullmatch(name):
        return _invalid(f"{where}.name", "string does not match pattern '^[a-zA-Z0-9_-]+$'.")
    for index, part in enumerate(content if isinstance(content, list) else []):
        at = f"{where}.content[{index}]"
        if not isinstance(part, dict):
            return _wrong(at, ("object",), part)
        if not isinstance(part.get("type"), str):
            return _wrong(f"{at}.type", ("string",), part.get("type"))
        if part["type"] not in _PARTS.get(role, _PARTS["user"]):
            return _invalid(f"{at}.type", f"a {role} message takes no {part['type']!r} part.")
        if part["type"] == "text" and not isinstance(part.get("text"), str):
            return _wrong(f"{at}.text", ("string",), part.get("text"))
    for index, call in enumerate(calls if isinstance(calls, list) else []):
        refused = _call(f"{where}.tool_calls[{index}]", call)
        if refused is not None:
            return refused
    return None


def _call(where: str, call: JSONValue) -> Refused | None:
    """One tool call of an assistant message: an id, a type, a function with its arguments' text."""
    if not isinstance(call, dict):
        return _wrong(where, ("object",), call)
    if not isinstance(call.get("id"), str):
        return _wrong(f"{where}.id", ("string",), call.get("id"))
    if call.get("type") not in ("function", "custom"):
        return _invalid(f"{where}.type", "expected 'function' or 'custom'.")
    function = call.get("function")
    if call["type"] == "function":
        if not isinstance(function, dict):
            return _wrong(f"{where}.function", ("object",), function)
        for key in ("name", "arguments"):
            if not isinstance(function.get(key), str):
                return _wrong(f"{where}.function.{key}", ("string",), function.get(key))
    return None


def _tool(where: str, item: JSONObject) -> Refused | None:
    """One tool offered: its type, and a function's name, description and parameters."""
    kind = item.get("type")
    if kind is None:
        return Refused(
            f"Missing required parameter: '{where}.type'.",
            f"{where}.type",
            "missing_required_parameter",
        )
    if kind != "function":
        return None  # a custom or hosted tool: the upstream's to judge (never decided here)
    function = item.get("function")
    if not isinstance(function, dict):
        return _wrong(f"{where}.function", ("object",), function)
    for key, kinds in _FUNCTION_FIELDS:
        given = function.get(key)
        if not _fits(given, kinds):
            return _wrong(f"{where}.function.{key}", kinds, given)
    name = function.get("name")
    if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
        return _invalid(
            f"{where}.function.name",
            "string does not match pattern. Expected a string that matches the pattern "
            "'^[a-zA-Z0-9_-]{1,64}$'.",
        )
    return None


def _items(name: str, items: list[JSONValue]) -> Refused | None:
    """The messages or tools, each an object of the shape the API takes."""
    for index, item in enumerate(items):
        where = f"{name}[{index}]"
        if not isinstance(item, dict):
            return _wrong(where, ("object",), item)
        refused = _message(where, item) if name == "messages" else _tool(where, item)
        if refused is not None:
            return refused
    return None


def _out_of_range(body: JSONObject) -> bool:
    """Whether a value has its type but one the API would refuse, or a local answer not honour.

    Such a request is forwarded undecided, for the upstream to judge: no
    ``model`` (or an empty one), a ``strict`` tool, a number past the API's bounds,
    more than 4 ``stop`` strings or an empty one, more
    metadata than the API keeps, an unknown ``service_tier``, ``stream_options``
    without ``stream``.
    """
    if not isinstance(body.get("model"), str) or not body["model"]:
        return True
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("strict") is True:
            return True  # structured outputs: the schema's strict rules are the model's to keep
    for key, (low, high) in _RANGES.items():
        value = body.get(key)
        if isinstance(value, int | float) and not low <= value <= high:
            return True
    stop, metadata = body.get("stop"), body.get("metadata")
    if (isinstance(stop, list) and (len(stop) > _MAX_STOP or "" in stop)) or stop == "":
        return True
    if isinstance(metadata, dict) and (
        len(metadata) > _MAX_METADATA
        or not all(
            isinstance(v, str) and len(v) <= 512 and len(k) <= 64 for k, v in metadata.items()
        )
    ):
        return True
    tier = body.get("service_tier")
    if tier is not None and tier not in _TIERS:
        return True
    options = body.get("stream_options")
    return isinstance(options, dict) and (
        body.get("stream") is not True or not all(isinstance(v, bool) for v in options.values())
    )


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
    if undecided is None and _out_of_range(parsed):
        undecided = "out_of_range"
    if parsed["messages"] == []:
        return Refused(
            "Invalid 'messages': empty array. Expected an array with minimum length 1.",
            "messages",
            "empty_array",
        )
    return Body(None if undecided else parsed, undecided)

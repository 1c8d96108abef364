"""What the model is told: the fallback prompt and its projected schema; the tool-choice prompt."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.port import Message, ProviderRequest
from agent_lab.strict_json import (
    JSONObject,
    JSONValue,
    ensure_json_data,
    pointer_tokens,
    thaw_json,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.kernel.models import FallbackRequest

__all__ = ["fallback_request", "project_schema", "tool_choice_request"]

FALLBACK_SYSTEM = (
    "You fill in missing arguments of a function call from a user's request. "
    "Reply with one JSON object holding exactly the fields asked for, following the schema. "
    "The facts already known are fixed: do not repeat or change them."
)
TOOL_CHOICE_SYSTEM = (
    "Choose the one function that serves the user's request and call it with all of its "
    "arguments, read from the request. If no function fits, answer without calling one."
)


def _project(
    schema: Mapping[str, Any], paths: list[list[str]], must: list[list[str]] | None = None
) -> JSONObject:
    declared: Any = schema.get("properties")
    properties: dict[str, Any] = declared if isinstance(declared, dict) else {}  # pyright: ignore[reportUnknownVariableType]
    projected: dict[str, JSONValue] = {}
    required: list[JSONValue] = []
    children: dict[str, list[list[str]]] = {}
    for path in paths:
        children.setdefault(path[0], []).append(path[1:])
    must_children: dict[str, list[list[str]]] = {}
    for path in paths if must is None else must:
        must_children.setdefault(path[0], []).append(path[1:])
    for name, rests in children.items():
        sub: Any = properties.get(name, {})
        if name in must_children:
            required.append(name)
        nested = [rest for rest in rests if rest]
        if nested and len(nested) == len(rests) and isinstance(sub, dict) and "properties" in sub:
            inner = [rest for rest in must_children.get(name, []) if rest]
            projected[name] = _project(cast("dict[str, Any]", sub), nested, inner)
        else:
            projected[name] = sub
    return {
        "type": "object",
        "properties": projected,
        "required": required,
        "additionalProperties": False,
    }


def _paths(pointers: Sequence[str]) -> list[list[str]]:
    return [
        pointer_tokens(pointer)
        for pointer in pointers
        if pointer.startswith("/") and len(pointer) > 1
    ]


def project_schema(
    schema: Mapping[str, Any], missing: Sequence[str], required: Sequence[str] | None = None
) -> JSONObject:
    """The part of an event's schema that covers only the missing fields.

    ``missing`` holds JSON pointers (``/duration_seconds``, ``/when/date``).
    Nested pointers keep their parents as objects with only the missing
    children; ``$defs`` (and Draft 7 ``definitions``) come along so that
    references still resolve. Those in ``required`` (default: all) are
    required; the others the model may leave out, so that a grammar or a
    strict schema never forces it to invent a value the user did not state.
    """
    plain: Any = thaw_json(schema)
    projected = _project(plain, _paths(missing), None if required is None else _paths(required))
    for keyword in ("$defs", "definitions"):
        if keyword in plain:
            projected[keyword] = plain[keyword]
    return projected


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def fallback_request(
    request: FallbackRequest,
    *,
    model: str | None = None,
    max_tokens: int = 256,
    temperature: float = 0.0,
    seed: int | None = None,
) -> ProviderRequest:
    """Turn the kernel's ``FallbackRequest`` into what a model is sent."""
    definition = request.definition
    schema = project_schema(definition.parameters, request.missing, request.must_fill)  # type: ignore[arg-type]
    resolved = thaw_json(request.resolved)
    payload = thaw_json(request.event.payload)
    lines = [
        f"Function: {definition.name}",
        f"What it does: {definition.description or '(no description)'}",
        f"The user's words: {request.event.text!r}",
    ]
    if payload:
        lines.append(f"Structured data that came with the request: {_json(payload)}")
    lines += [
        f"Already known (fixed facts): {_json(resolved)}",
        "Fill in: " + ", ".join(request.must_fill or ("nothing required",)),
        *(
            ["Also, only if the user stated them: " + ", ".join(optional)]
            if (optional := [p for p in request.missing if p not in request.must_fill])
            else []
        ),
        f"Reply with JSON that follows this schema: {_json(schema)}",
    ]
    return ProviderRequest(
        purpose="fallback",
        model=model,
        messages=(Message("system", FALLBACK_SYSTEM), Message("user", "\n".join(lines))),
        response_schema=schema,
        schema_name=definition.name,
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        context={
            **_context(request.event.name, request.event.text, request.event.context),
            "missing": list(request.missing),
            "required": list(request.must_fill),
            "resolved": resolved,
            "payload": payload,
        },
    )


def tool_choice_request(
    text: str,
    tools: Sequence[JSONObject],
    *,
    payload: Mapping[str, JSONValue] | None = None,
    context: Mapping[str, object] | None = None,
    model: str | None = None,
    max_tokens: int = 256,
    temperature: float = 0.0,
    seed: int | None = None,
) -> ProviderRequest:
    """The request for the LLM-always agent: the user's words and every tool."""
    content = text if not payload else f"{text}\n\nStructured data: {_json(thaw_json(payload))}"
    return ProviderRequest(
        purpose="tool_choice",
        model=model,
        messages=(Message("system", TOOL_CHOICE_SYSTEM), Message("user", content)),
        tools=tools if isinstance(tools, tuple) else tuple(tools),
        tool_choice="auto",
        max_tokens=max_tokens,
        temperature=temperature,
        seed=seed,
        context={
            **_context(None, text, context or {}),
            "payload": thaw_json(payload) if payload else {},
        },
    )


def _context(event: str | None, text: str, extra: Mapping[str, object]) -> dict[str, JSONValue]:
    known: dict[str, JSONValue] = {"event": event, "text": text}
    for key, value in extra.items():
        try:
            known[key] = ensure_json_data(value)
        except ValueError:
            continue  # only JSON data travels with a request; the rest stays with the plugin
    return known

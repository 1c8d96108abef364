"""The tool layer: tool specs and the total status mapping (K30)."""

from __future__ import annotations

import json

import pytest

from agent_lab import EventDefinition, EventRegistry, EventResult, Status, ValidationIssue
from agent_lab.kernel.tools import (
    anthropic_tool,
    is_retryable,
    openai_tool,
    to_tool_result,
    tool_status,
)

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def registered() -> EventDefinition:
    return EventRegistry().register(
        EventDefinition("weather", description="Weather forecast", parameters=SCHEMA)
    )


def test_openai_tool_spec() -> None:
    """K30: an OpenAI function tool, plain JSON-ready data."""
    spec = openai_tool(registered())
    assert spec == {
        "type": "function",
        "function": {"name": "weather", "description": "Weather forecast", "parameters": SCHEMA},
    }
    json.dumps(spec)


def test_anthropic_tool_spec() -> None:
    """K30: an Anthropic tool, plain JSON-ready data."""
    spec = anthropic_tool(registered())
    assert spec == {"name": "weather", "description": "Weather forecast", "input_schema": SCHEMA}
    json.dumps(spec)


def test_unregistered_pydantic_definition_has_no_spec_yet() -> None:
    """A definition whose parameters are still a model class must be registered first."""
    from pydantic import BaseModel

    class Model(BaseModel):
        city: str

    with pytest.raises(TypeError):
        openai_tool(EventDefinition("m", parameters=Model))


STATUS_TABLE = [
    (Status.SUCCESS, "ok", False),
    (Status.INVALID_ARGUMENTS, "invalid_arguments", False),
    (Status.MISSING_INFORMATION, "needs_input", False),
    (Status.FALLBACK_FAILED, "error", True),
    (Status.DEFINITION_ERROR, "error", False),
    (Status.UNKNOWN_EVENT, "unknown_tool", False),
    (Status.HANDLER_ERROR, "error", False),
]


def test_status_table_covers_every_status() -> None:
    """K30: the mapping is total: a new Status must be added to the table."""
    assert {row[0] for row in STATUS_TABLE} == set(Status)


@pytest.mark.parametrize(
    ("status", "tool", "retryable"), STATUS_TABLE, ids=[s.value for s, _, _ in STATUS_TABLE]
)
def test_status_mapping(status: Status, tool: str, retryable: bool) -> None:
    """K30: each kernel status maps to its tool status and retryability."""
    assert tool_status(status) == tool
    assert is_retryable(status) is retryable
    result = to_tool_result(EventResult(status=status, reason="r", event="weather"))
    assert result.status == tool
    assert result.retryable is retryable
    assert json.loads(result.content)["status"] == tool


def test_tool_result_content_carries_what_the_model_needs() -> None:
    """K30: the content tells the model the output, the errors or what is missing."""
    ok = to_tool_result(
        EventResult(status=Status.SUCCESS, reason="completed", event="w", output={"t": 3})
    )
    assert json.loads(ok.content) == {"status": "ok", "output": {"t": 3}}
    invalid = to_tool_result(
        EventResult(
            status=Status.INVALID_ARGUMENTS,
            reason="invalid_arguments",
            event="w",
            errors=(ValidationIssue(pointer="/days", keyword="maximum", message="too big"),),
        )
    )
    assert json.loads(invalid.content)["errors"] == [
        {"pointer": "/days", "keyword": "maximum", "message": "too big"}
    ]
    missing = to_tool_result(
        EventResult(
            status=Status.MISSING_INFORMATION, reason="no_fallback", event="w", missing=("/city",)
        )
    )
    assert json.loads(missing.content)["missing"] == ["/city"]
    internal = to_tool_result(
        EventResult(
            status=Status.DEFINITION_ERROR, reason="resolver_error", event="w", message="secret"
        )
    )
    assert "secret" not in internal.content

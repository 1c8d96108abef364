"""The schema given to llama.cpp's grammar converter: what it drops, and what it keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.providers._grammar_schema import grammar_safe

if TYPE_CHECKING:
    from agent_lab.strict_json import JSONObject


def test_keywords_the_converter_dies_on_are_left_out() -> None:
    schema = {
        "type": "object",
        "properties": {
            "day": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\d$", "format": "date"}
        },
        "if": {"required": ["day"]},
        "then": {"required": ["day"]},
    }
    assert grammar_safe(schema) == {"type": "object", "properties": {"day": {"type": "string"}}}


def test_properties_named_like_keywords_are_kept() -> None:
    # A field called "format" or "pattern" is data, not the keyword.
    schema = {
        "type": "object",
        "properties": {"format": {"type": "string"}, "pattern": {"enum": ["a", "b"]}},
        "required": ["format"],
        "$defs": {"not": {"type": "integer"}},
    }
    assert grammar_safe(schema) == schema


def test_free_strings_are_capped_only_when_asked() -> None:
    schema = {"type": "string", "maxLength": 200}
    assert grammar_safe(schema) == schema
    assert grammar_safe(schema, 80) == {"type": "string", "maxLength": 80}
    assert grammar_safe({"type": "string", "enum": ["x"]}, 80) == {"type": "string", "enum": ["x"]}
    assert grammar_safe({"type": "string", "maxLength": 5}, 80) == {
        "type": "string",
        "maxLength": 5,
    }


def test_json_object_requests_carry_the_safe_schema_and_json_schema_the_whole() -> None:
    from agent_lab.providers import Message, ProviderRequest
    from agent_lab.providers._openai_wire import request_body

    schema: JSONObject = {
        "type": "object",
        "properties": {"day": {"type": "string", "pattern": "^x$"}},
    }
    request = ProviderRequest(
        purpose="fallback", messages=(Message("user", "x"),), response_schema=schema
    )
    llama = request_body(
        request, "m", structured_output="json_object", strict=False, token_limit="max_tokens"
    )
    openai = request_body(
        request, "m", structured_output="json_schema", strict=False, token_limit="max_tokens"
    )
    assert llama["response_format"]["schema"] == {
        "type": "object",
        "properties": {"day": {"type": "string"}},
    }
    assert openai["response_format"]["json_schema"]["schema"] == schema

"""The fault server acting as the OpenAI-compatible servers users point agent-lab at.

Each persona answers by the request's shape, with the request and error
shapes those servers document:

- vLLM's error body is ``{"object": "error", "message", "type", "param", "code"}``
  at the top level, with HTTP 400 for a request it cannot serve.
- Ollama's OpenAI layer wraps errors as ``{"error": {"message", "type", "param",
  "code"}}``; releases before structured outputs took ``response_format:
  json_object`` and answered a ``json_schema`` request as plain chat.
- llama-cpp-python's server refuses ``json_schema`` with HTTP 500 and a
  pydantic message naming ``response_format`` (its text is copied from a run of
  that server, see ``tests/providers/test_llama_cpp_server.py``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.openai_server import Behavior, content, status, tool_calls

__all__ = [
    "LLAMA_CPP_REFUSAL",
    "llama_cpp",
    "ollama_before_structured_outputs",
    "ollama_without_tools",
    "status",
    "tools_only",
    "vllm",
]

if TYPE_CHECKING:
    from collections.abc import Callable


LLAMA_CPP_REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}"
)


def _format(body: dict[str, Any]) -> str | None:
    response_format = body.get("response_format")
    return None if response_format is None else str(response_format.get("type"))


def _vllm_error(message: str) -> Behavior:
    return status(
        400,
        json.dumps(
            {"object": "error", "message": message, "type": "BadRequestError", "param": None,
             "code": 400}
        ),
    )  # fmt: skip


def _ollama_error(message: str) -> Behavior:
    return status(
        400,
        json.dumps(
            {"error": {"message": message, "type": "invalid_request_error", "param": None,
                       "code": None}}
        ),
    )  # fmt: skip


def vllm(
    answer: str, *, json_schema: bool = True, call: tuple[str, str] | None = None
) -> Callable[[dict[str, Any]], Behavior]:
    """vLLM: takes ``json_schema``; ``json_schema=False`` is a build that refuses it.

    With tools it makes ``call`` (name, arguments); with none given it declines in
    text, unless ``tool_choice`` is ``required``, when it calls the first tool.
    """

    def respond(body: dict[str, Any]) -> Behavior:
        if "tools" in body:
            if call is not None:
                return tool_calls(call)
            if body.get("tool_choice") == "required":
                return tool_calls((body["tools"][0]["function"]["name"], "{}"))
            return content("None of these tools fits.")
        if _format(body) == "json_schema" and not json_schema:
            return _vllm_error(
                "response_format.type 'json_schema' is not supported: guided decoding is off"
            )
        return content(answer)

    return respond


def ollama_before_structured_outputs(answer: str) -> Callable[[dict[str, Any]], Behavior]:
    """Ollama before structured outputs: ``json_schema`` is ignored, ``json_object`` held."""

    def respond(body: dict[str, Any]) -> Behavior:
        if _format(body) == "json_object":
            return content(answer)
        return content("Sure! Here is what I found for you.")

    return respond


def ollama_without_tools(answer: str) -> Callable[[dict[str, Any]], Behavior]:
    """Ollama serving a model with no tool support, which takes no ``response_format``."""

    def respond(body: dict[str, Any]) -> Behavior:
        if "tools" in body:
            return _ollama_error(f"{body['model']} does not support tools")
        if "response_format" in body:
            return _ollama_error("unknown field response_format")
        return content(answer)

    return respond


def llama_cpp(
    answer: str, choice: str = '{"name": "none"}'
) -> Callable[[dict[str, Any]], Behavior]:
    """llama-cpp-python's server: 500 for ``json_schema``, ``json_object`` with a schema held.

    With a plain chat format it ignores ``tools``, even ``tool_choice="required"``,
    and chats; ``choice`` is its answer to a tool choice asked as JSON.
    """

    def respond(body: dict[str, Any]) -> Behavior:
        if "tools" in body:
            return content("I'm ready to help. What's your task?")
        if _format(body) == "json_object" and "anyOf" in body["response_format"]["schema"]:
            return content(choice)
        if _format(body) == "json_schema":
            return status(
                500,
                json.dumps(
                    {"error": {"message": LLAMA_CPP_REFUSAL, "type": "internal_server_error",
                               "param": None, "code": None}}
                ),
            )  # fmt: skip
        return content(answer)

    return respond


def tools_only(arguments: str) -> Callable[[dict[str, Any]], Behavior]:
    """A server with tool calling and no ``response_format`` (a 422 naming the field)."""

    def respond(body: dict[str, Any]) -> Behavior:
        if "response_format" in body:
            return status(422, json.dumps({"detail": "extra field not permitted: response_format"}))
        name = body["tool_choice"]["function"]["name"]
        return tool_calls((name, arguments))

    return respond

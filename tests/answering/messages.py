"""Messages and tools as an OpenAI chat request holds them, for the answering tests."""

from __future__ import annotations

import json
from typing import Any


def tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Any:
    """A function tool with an object of ``properties``."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def call(name: str, arguments: dict[str, Any], ident: str, result: Any) -> list[dict[str, Any]]:
    """The assistant's call of ``name`` and the tool's ``result`` for it."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": ident,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": ident, "content": json.dumps(result)},
    ]

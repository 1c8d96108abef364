r"""A JSON Schema as llama.cpp's schema-to-grammar converter can take it.

Some keywords it mistranslates or cannot express: a ``pattern`` such as
``"^\d{4}$"`` becomes a grammar that fails to parse, and the process (the
embedded model, or llama.cpp's server) then dies in native code. They are
left out of the grammar; the kernel still validates every reply against the
full schema (K17-K19), so the grammar is a guide, never the check.
"""

from __future__ import annotations

from typing import Any, Final, cast

__all__ = ["NOT_FOR_GRAMMAR", "grammar_safe"]

NOT_FOR_GRAMMAR: Final = frozenset(
    {"pattern", "format", "if", "then", "else", "not", "dependentRequired", "dependentSchemas",
     "dependencies", "unevaluatedProperties", "unevaluatedItems", "contains", "minContains",
     "maxContains", "patternProperties", "propertyNames", "$comment"}
)  # fmt: skip

# Keywords whose value maps names to schemas: the names are data, never keywords.
_NAMED_SCHEMAS: Final = frozenset({"properties", "$defs", "definitions"})


def grammar_safe(schema: Any, max_string_length: int | None = None) -> Any:
    """``schema`` without the keywords above; every free string capped when a cap is given.

    The cap keeps a runaway string from filling the token budget.
    """
    if isinstance(schema, list):
        return [grammar_safe(item, max_string_length) for item in cast("list[Any]", schema)]
    if not isinstance(schema, dict):
        return schema
    source = cast("dict[str, Any]", schema)
    safe: dict[str, Any] = {}
    for key, value in source.items():
        if key in NOT_FOR_GRAMMAR:
            continue
        if key in ("enum", "const"):
            safe[key] = value
        elif key in _NAMED_SCHEMAS and isinstance(value, dict):
            named = cast("dict[str, Any]", value)
            safe[key] = {name: grammar_safe(sub, max_string_length) for name, sub in named.items()}
        else:
            safe[key] = grammar_safe(value, max_string_length)
    free_string = safe.get("type") == "string" and "enum" not in safe and "const" not in safe
    if max_string_length is not None and free_string:
        safe["maxLength"] = min(int(safe.get("maxLength", max_string_length)), max_string_length)
    return safe

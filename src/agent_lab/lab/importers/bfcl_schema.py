"""BFCL's schema dialect into valid Draft 2020-12 JSON Schema, every conversion counted.

The rules are listed in the importer's docstring (``agent_lab.lab.importers.bfcl``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from collections import Counter

__all__ = ["convert_schema"]

_TYPES: dict[str, str | None] = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "tuple": "array",
    "Array": "array",
    "ArrayList": "array",
    "HashMap": "object",
    "long": "integer",
    "String": "string",
    "char": "string",
    "Boolean": "boolean",
    "any": None,
    "": None,
}
_STANDARD = {"object", "array", "string", "number", "integer", "boolean", "null"}
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf")


def _truthy(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("true", "yes"))


def _convert_type(kind: Any, at: str, notes: Counter[str]) -> tuple[bool, Any]:
    """(keep the keyword, its new value)."""
    if isinstance(kind, list):
        converted = [_TYPES.get(k, k) if isinstance(k, str) else k for k in cast("list[Any]", kind)]
        if any(k is None for k in converted):
            notes["type any in a list -> no type"] += 1
            return False, None
        if converted != kind:
            notes["type list converted"] += 1
        return True, converted
    if isinstance(kind, str) and kind not in _STANDARD:
        if kind in _TYPES:
            new = _TYPES[kind]
            notes[f"type {kind!r} -> {new or 'no type'}"] += 1
            return new is not None, new
        notes[f"unknown type {kind!r} at {at} kept"] += 1
    return True, kind


def convert_schema(node: Any, notes: Counter[str], at: str = "") -> Any:
    """BFCL's schema dialect into JSON Schema; ``notes`` counts every conversion."""
    if not isinstance(node, dict):
        return node
    source = cast("dict[str, Any]", node)
    out: dict[str, Any] = {}
    for key, value in source.items():
        if key == "type":
            keep, new = _convert_type(value, at, notes)
            if keep:
                out["type"] = new
            if value in ("float", "double"):
                # Its truth is written 5.0, not 5: the resolver renders floats.
                out["x-agent-lab"] = {"kind": "number", "format": "float"}
        elif key == "optional":
            notes["optional keyword removed"] += 1
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {
                name: convert_schema(sub, notes, f"{at}/{name}")
                for name, sub in cast("dict[str, Any]", value).items()
            }
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = convert_schema(value, notes, f"{at}/{key}")
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = [
                convert_schema(sub, notes, f"{at}/{i}")
                for i, sub in enumerate(cast("list[Any]", value))
            ]
            notes["tuple items -> prefixItems"] += 1
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [convert_schema(sub, notes, at) for sub in cast("list[Any]", value)]
        else:
            out[key] = value
    # Read only as the types they should be: the registry refuses what is not, and says why.
    given = out.get("properties")
    properties = cast("dict[str, Any]", given) if isinstance(given, dict) else {}
    required = out.get("required")
    if isinstance(required, list):
        names = [r for r in cast("list[Any]", required) if isinstance(r, str)]
        kept = [r for r in names if r in properties] if isinstance(given, dict) else names
        if len(kept) != len(cast("list[Any]", required)):
            notes["required names that are not properties dropped"] += 1
        out["required"] = kept
    optional_list = source.get("optional")
    if isinstance(optional_list, list) and isinstance(out.get("required"), list):
        # The object-level form: names that may be left out.
        notes["object-level optional list read"] += 1
    listed = out.get("required")
    required_now = cast("list[str]", listed) if isinstance(listed, list) else []
    source_properties = source.get("properties")
    if not isinstance(source_properties, dict):
        return out
    for name, sub in cast("dict[str, Any]", source_properties).items():
        if _truthy(cast("dict[str, Any]", sub).get("optional") if isinstance(sub, dict) else None):
            notes["optional property"] += 1
            if name in required_now:
                notes["optional and required: required wins"] += 1
    return out

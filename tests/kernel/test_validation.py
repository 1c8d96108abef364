"""Compiled validators: the relaxed fast path for missing properties agrees with the full walk."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_lab import Event, EventDefinition, EventKernel, EventRegistry, Status
from agent_lab.kernel.validation import (
    CompiledSchema,
    Dialect,
    build_resource_registry,
    compile_schema,
)

SCHEMAS: dict[str, dict[str, Any]] = {
    "flat": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"enum": [1, 2]}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    "nested-with-defs": {
        "type": "object",
        "$defs": {
            "p": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}
        },
        "properties": {
            "a": {"$ref": "#/$defs/p"},
            "b": {"type": "array", "items": {"$ref": "#/$defs/p"}},
        },
        "required": ["a", "b"],
    },
    "combinators": {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "b": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 10}]},
        },
        "required": ["a"],
        "if": {"required": ["b"]},
        "then": {"required": ["c"]},
    },
}

values = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.sampled_from(["x", "", "n"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(["n", "m"]), children, max_size=2)
    ),
    max_leaves=6,
)
instances = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), values, max_size=4)


def compiled_pair(schema: dict[str, Any]) -> tuple[CompiledSchema, CompiledSchema]:
    resources = build_resource_registry({}, Dialect.DRAFT_2020_12)
    fast = compile_schema(schema, Dialect.DRAFT_2020_12, resources)
    slow = CompiledSchema(jsonschema_rs.Draft202012Validator(schema))
    return fast, slow


@pytest.mark.parametrize("name", SCHEMAS)
@given(instance=instances)
@settings(max_examples=300)
def test_relaxed_fast_path_agrees_with_the_full_error_walk(
    name: str, instance: dict[str, Any]
) -> None:
    """The missing/invalid split is the same with and without the relaxed validator."""
    fast, slow = compiled_pair(SCHEMAS[name])
    quick, full = fast.check(instance), slow.check(instance)
    assert sorted(quick.missing) == sorted(full.missing)
    assert sorted((i.pointer, i.keyword) for i in quick.invalid) == sorted(
        (i.pointer, i.keyword) for i in full.invalid
    )


def test_schema_whose_references_reenter_the_root_reports_nested_missing() -> None:
    """A $ref to '#' makes every node required-checked; nested absences are still reported."""
    tree = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#"}},
        },
        "required": ["name"],
    }
    registry = EventRegistry()
    registry.register(
        EventDefinition(
            "tree", parameters=tree, resolver=lambda e: {"children": [{"name": "x"}, {}]}
        )
    )
    result = EventKernel(registry).dispatch(Event("tree"))
    assert result.status is Status.MISSING_INFORMATION
    assert sorted(result.missing) == ["/children/1/name", "/name"]

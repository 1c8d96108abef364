"""The K19 merge, as properties: resolved values always win, nothing supplied is lost silently."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from agent_lab.kernel.merge import merge_arguments
from agent_lab.strict_json import JSONObject, JSONValue, escape_pointer_token, same_json

keys = st.sampled_from(["a", "b", "c", "d/e", "f~g"])
leaves = (
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.sampled_from(["x", "y"])
)
values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=12,
)
objects = st.dictionaries(keys, values, max_size=4)


def leaves_of(value: JSONValue, pointer: str = "") -> dict[str, JSONValue]:
    """Every non-object value by its pointer (arrays are atomic, like in the merge)."""
    if type(value) is dict and value:
        found: dict[str, JSONValue] = {}
        for key, item in value.items():
            found |= leaves_of(item, f"{pointer}/{escape_pointer_token(key)}")
        return found
    return {pointer: value}


def holds(merged: JSONObject, pointer: str, value: JSONValue) -> bool:
    """The merge holds ``value`` at ``pointer``; an empty object only needs an object there."""
    found = lookup(merged, pointer)
    if value == {} and type(value) is dict:
        return type(found) is dict
    return same_json(found, value)


def lookup(value: JSONValue, pointer: str) -> JSONValue:
    for token in pointer.split("/")[1:]:
        assert type(value) is dict
        value = value[token.replace("~1", "/").replace("~0", "~")]
    return value


@given(objects, objects)
def test_resolved_leaves_survive_unchanged(resolved: JSONObject, supplied: JSONObject) -> None:
    """Every resolved value is in the merge, unchanged, at every depth."""
    merged, _, _ = merge_arguments(resolved, supplied)
    for pointer, value in leaves_of(resolved).items():
        if pointer:
            assert holds(merged, pointer, value)


@given(objects, objects)
def test_every_supplied_leaf_is_merged_or_reported(
    resolved: JSONObject, supplied: JSONObject
) -> None:
    """A supplied value is either in the merge or recorded as a conflict (at it or above it)."""
    merged, conflicts, _ = merge_arguments(resolved, supplied)
    conflict_pointers = {c.pointer for c in conflicts}
    for pointer, value in leaves_of(supplied).items():
        if not pointer:
            continue
        reported = any(pointer == p or pointer.startswith(p + "/") for p in conflict_pointers)
        if not reported:
            assert holds(merged, pointer, value)
    for conflict in conflicts:
        assert not same_json(conflict.resolved, conflict.fallback)
        assert same_json(lookup(resolved, conflict.pointer), conflict.resolved)
        assert same_json(lookup(supplied, conflict.pointer), conflict.fallback)


@given(objects, objects)
def test_merge_changes_neither_input(resolved: JSONObject, supplied: JSONObject) -> None:
    """The merge builds a new object."""
    before = copy.deepcopy((resolved, supplied))
    merge_arguments(resolved, supplied)
    assert same_json([resolved, supplied], list(before))


@given(objects)
def test_identities(value: JSONObject) -> None:
    """Merging with nothing, or with itself, changes nothing and reports nothing."""
    assert merge_arguments(value, {}) == (value, (), ())
    merged, conflicts, _ = merge_arguments({}, value)
    assert same_json(merged, value)
    assert conflicts == ()
    merged, conflicts, _ = merge_arguments(value, copy.deepcopy(value))
    assert same_json(merged, value)
    assert conflicts == ()

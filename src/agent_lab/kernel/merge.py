"""The merge of resolved and fallback arguments: resolved values win at every depth (K19)."""

from __future__ import annotations

from agent_lab.kernel.models import Conflict, Unrequested
from agent_lab.strict_json import JSONObject, escape_pointer_token, same_json

__all__ = ["merge_arguments"]


def merge_arguments(
    resolved: JSONObject, supplied: JSONObject, asked: tuple[str, ...] | None = None
) -> tuple[JSONObject, tuple[Conflict, ...], tuple[Unrequested, ...]]:
    """Fill what the resolver left out with what the fallback supplied.

    Objects merge key by key at every depth; arrays and scalars are atomic.
    A supplied value that differs (type-sensitively) from a resolved one is
    dropped and returned as a ``Conflict``: resolved values are
    authoritative, an LLM cannot change them (K12, K19). A supplied value
    the fallback was not asked for (not at, inside, or on the way to one of
    the ``asked`` pointers) is dropped and returned as ``Unrequested``: the
    fallback fills what was missing, nothing else. ``asked=None`` keeps every
    supplied value.

    Returns:
        The merged arguments (a new object; neither input is changed), the
        conflicts and the unrequested values, in the order the supplied keys came.
    """
    conflicts: list[Conflict] = []
    unrequested: list[Unrequested] = []
    merged = _merge(resolved, supplied, "", asked=asked, dropped=(conflicts, unrequested))
    return merged, tuple(conflicts), tuple(unrequested)


def _relation(pointer: str, asked: tuple[str, ...]) -> str:
    # "inside": at or below an asked pointer; "above": on the way to one; "" neither.
    above = False
    for target in asked:
        if pointer == target or pointer.startswith(target + "/"):
            return "inside"
        if target.startswith(pointer + "/"):
            above = True
    return "above" if above else ""


def _merge(
    resolved: JSONObject,
    supplied: JSONObject,
    pointer: str,
    *,
    asked: tuple[str, ...] | None,
    dropped: tuple[list[Conflict], list[Unrequested]],
) -> JSONObject:
    conflicts, unrequested = dropped
    merged = dict(resolved)
    for key, value in supplied.items():
        child = f"{pointer}/{escape_pointer_token(key)}"
        if key in resolved:
            kept = resolved[key]
            if type(kept) is dict and type(value) is dict:
                merged[key] = _merge(kept, value, child, asked=asked, dropped=dropped)
            elif not same_json(kept, value):
                conflicts.append(Conflict(pointer=child, resolved=kept, fallback=value))
            continue
        relation = "inside" if asked is None else _relation(child, asked)
        if relation == "inside":
            merged[key] = value
        elif relation == "above" and type(value) is dict:
            merged[key] = _merge({}, value, child, asked=asked, dropped=dropped)
        elif relation == "above":
            merged[key] = value  # not an object where one is needed: validation says so
        else:
            unrequested.append(Unrequested(pointer=child, value=value))
    return merged

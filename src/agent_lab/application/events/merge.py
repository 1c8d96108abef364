"""The merge of resolved and fallback arguments: resolved values win at every depth (K19)."""

from __future__ import annotations

from agent_lab.application.events.models import Conflict
from agent_lab.strict_json import JSONObject, escape_pointer_token, same_json

__all__ = ["merge_arguments"]


def merge_arguments(
    resolved: JSONObject, supplied: JSONObject
) -> tuple[JSONObject, tuple[Conflict, ...]]:
    """Fill what the resolver left out with what the fallback supplied.

    Objects merge key by key at every depth; arrays and scalars are atomic.
    A supplied value that differs (type-sensitively) from a resolved one is
    dropped and returned as a ``Conflict``: resolved values are
    authoritative, an LLM cannot change them (K12, K19).

    Returns:
        The merged arguments (a new object; neither input is changed) and
        the conflicts, in the order the supplied keys came.
    """
    conflicts: list[Conflict] = []
    merged = _merge(resolved, supplied, "", conflicts)
    return merged, tuple(conflicts)


def _merge(
    resolved: JSONObject, supplied: JSONObject, pointer: str, conflicts: list[Conflict]
) -> JSONObject:
    merged = dict(resolved)
    for key, value in supplied.items():
        if key not in resolved:
            merged[key] = value
            continue
        kept = resolved[key]
        child = f"{pointer}/{escape_pointer_token(key)}"
        if type(kept) is dict and type(value) is dict:
            merged[key] = _merge(kept, value, child, conflicts)
        elif not same_json(kept, value):
            conflicts.append(Conflict(pointer=child, resolved=kept, fallback=value))
    return merged

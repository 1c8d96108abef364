"""The reply audit (K17, K18): a fallback's text parsed strictly, held against the adapter's form.

Pure: it reads one ``FallbackReply`` and calls no plugin or provider code, so
the pipeline runs it inline, without a yield.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_lab.errors import StrictJSONError
from agent_lab.kernel.models import FallbackReply, Reason
from agent_lab.strict_json import JSONObject, ensure_json_data, loads, same_json

__all__ = ["Audit", "audit_reply"]


@dataclass(frozen=True, slots=True)
class Audit:
    """What the audit of one reply found."""

    arguments: JSONObject | None
    """The strict parse of ``raw``, when the reply passed; ``None`` otherwise."""
    adapter_form: JSONObject | None
    """The adapter's parsed form as JSON data, kept for audit whatever the outcome."""
    reason: Reason | None = None
    """Why the reply was refused; ``None`` when it passed."""
    message: str = ""
    """A human-readable explanation of ``reason``."""


def audit_reply(reply: FallbackReply, *, max_bytes: int, max_depth: int) -> Audit:
    """Parse ``reply.raw`` strictly (K17) and check the adapter's form against it (K18).

    The merge uses the strict parse of ``raw``, the text that came over the
    wire, never the adapter's form: the two must be the same JSON,
    type-sensitively (``true`` is not ``1``, ``1`` is not ``1.0``).
    """
    adapter_form: JSONObject | None = None
    adapter_problem: str | None = None
    if reply.arguments is not None:
        try:
            copied = ensure_json_data(reply.arguments)
        except StrictJSONError as err:
            adapter_problem = f"parsed arguments: {err}"
        else:
            if type(copied) is dict:
                adapter_form = copied
            else:
                adapter_problem = "parsed arguments must be a mapping"
    try:
        parsed = loads(reply.raw, max_bytes=max_bytes, max_depth=max_depth)
    except StrictJSONError as err:
        return Audit(None, adapter_form, Reason.FALLBACK_INVALID_JSON, f"{err.reason}: {err}")
    if type(parsed) is not dict:
        return Audit(
            None,
            adapter_form,
            Reason.FALLBACK_NOT_OBJECT,
            f"the reply must be a JSON object, not {type(parsed).__name__}",
        )
    if adapter_problem is not None:
        return Audit(None, adapter_form, Reason.FALLBACK_ARGUMENTS_NOT_JSON, adapter_problem)
    if adapter_form is not None and not same_json(parsed, adapter_form):
        return Audit(
            None,
            adapter_form,
            Reason.FALLBACK_MISMATCH,
            "the parsed arguments differ from the raw JSON",
        )
    return Audit(parsed, adapter_form)

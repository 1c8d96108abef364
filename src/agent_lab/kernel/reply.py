"""An event's words for its result, said with no model: a template or a function of the result.

Words are said only over a result that does not report failure: "Your timer is
set." over an error tells of a success that did not happen, so a failed result is the
model's to phrase (``reports_failure``, or the event's own ``failed``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeAlias

from agent_lab.strict_json import JSONValue

__all__ = [
    "FAILED_STATUSES",
    "FAILED_TEXT",
    "Failed",
    "Reply",
    "has_failed",
    "reports_failure",
    "say",
]

Reply: TypeAlias = str | Callable[[JSONValue], str]
"""How an event's result is said: a ``str.format`` template over the result (a JSON
object, its keys the template's fields), or a function of the result."""

Failed: TypeAlias = Callable[[JSONValue], bool]
"""How an event tells a failed result: ``True`` when the result reports a failure."""

FAILED_TEXT = ("error", "exception", "failed", "failure", "traceback")
"""Words a text result starts with (after blanks, in any case) when it reports a failure:
tool frameworks hand a tool's exception back as text such as ``"Error: ..."``."""

FAILED_STATUSES = frozenset({"error", "failed", "failure"})
"""Values of a result's ``status`` (in any case) that report a failure."""


def reports_failure(result: JSONValue) -> bool:
    """Whether ``result`` reports a failure, by a conservative rule that knows no event.

    A failure is: no result (``None``: no content, or content that is not
    text), blank text, text starting with one of ``FAILED_TEXT`` (in any case,
    after blanks), or a JSON object holding a truthy ``error`` or ``errors``,
    ``"success": false``, ``"ok": false``, or a ``status`` in
    ``FAILED_STATUSES`` (keys and the status in any case, top level only).
    Anything else does not: a number, ``false``, an array, or an object with
    ``"error": null``, as many APIs send on success. Wrongly calling a result
    failed costs one model request; wrongly calling it a success puts words
    of success over a failure, so the rule errs towards failure.
    """
    if result is None:
        return True
    if isinstance(result, str):
        return result.lstrip().lower().startswith(FAILED_TEXT) or not result.strip()
    if not isinstance(result, Mapping):
        return False
    for key, value in result.items():
        match key.lower():
            case "error" | "errors" if value:
                return True
            case "success" | "ok" if value is False:
                return True
            case "status" if isinstance(value, str) and value.lower() in FAILED_STATUSES:
                return True
            case _:
                pass
    return False


def has_failed(failed: Failed | None, result: JSONValue) -> bool:
    """Whether ``result`` failed, by the event's own ``failed`` or else by ``reports_failure``.

    A ``failed`` that raises or answers anything but ``True`` or ``False``
    counts as saying failure: the model then phrases the result, never a
    reply over a failure.
    """
    if failed is None:
        return reports_failure(result)
    try:
        verdict: object = failed(result)
    except Exception:  # noqa: BLE001 - a plugin's function, whatever it raises
        return True
    return verdict is not False


def say(reply: Reply | None, result: JSONValue, *, failed: Failed | None = None) -> str | None:
    """The words ``reply`` makes of ``result``, or ``None`` when it cannot say it.

    ``None`` for no reply, a result that reports failure (``has_failed``: by
    the event's ``failed`` when given), a template whose fields the result does not
    hold (or a result that is not a JSON object), a function that raises or
    returns no string, and for empty words: the model then phrases the result.
    Never raises, as a resolver's failure is a value, never a crash (K11).
    """
    if reply is None or has_failed(failed, result):
        return None
    try:
        if isinstance(reply, str):
            if not isinstance(result, Mapping):
                return None
            said: object = reply.format_map(dict(result))
        else:
            said = reply(result)
    except Exception:  # noqa: BLE001 - a plugin's template or function, whatever it raises
        return None
    return said if isinstance(said, str) and said.strip() else None

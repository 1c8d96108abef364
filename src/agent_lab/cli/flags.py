"""The command line's names for the fields below it, and its errors said with them."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from agent_lab.errors import ConfigMismatchError, InputError

if TYPE_CHECKING:
    from agent_lab.errors import AgentLabError

__all__ = ["FLAGS", "flag", "said"]

FLAGS = MappingProxyType(
    {
        # A run's configuration (what a resumed run must repeat).
        "workload": "the workload",
        "workload_hash": "the workload's cases",
        "plugins": "--plugins",
        "policies": "--policy",
        "provider": "--provider",
        "model": "--model",
        "repeats": "--repeats",
        "seed": "--seed",
        "limit": "--limit",
        "warmup": "--warmup",
        "concurrency": "--concurrency",
        "rate_limit": "--rate-limit",
        "timeout": "--timeout",
        # A provider's settings in it.
        "profile": "--llm-profile / --llm-error",
        "latency_ms": "--simulated-latency",
        "base_url": "--base-url",
        "structured_output": "--structured-output",
        "prices": "--prices",
        # Settings an error names.
        "vary": "--vary",
        "llm_error": "--llm-error",
        "latency": "--simulated-latency",
    }
)
"""Each field the lab and the providers name, and what sets it on the command line.

Below the command line an error names a field (``vary``); here it becomes the
flag (``--vary``). A field with no flag of its own keeps its name.
"""

_RESUME_ADVICE = "rerun with the same options, or start a new run without --resume"


def flag(field: str) -> str:
    """The flag that sets ``field``, or the field's own name when none does."""
    return FLAGS.get(field, field)


def said(problem: AgentLabError) -> str:
    """The error's message as the command line says it: flags where it names fields."""
    if isinstance(problem, ConfigMismatchError):
        return problem.worded(flag, advice=_RESUME_ADVICE)
    if isinstance(problem, InputError):
        return problem.worded(flag)
    return str(problem)

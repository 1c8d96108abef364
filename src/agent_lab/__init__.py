"""agent-lab: a deterministic-first event kernel for LLM agents, and a lab that measures it.

The names below are the stable public API (see ``docs/kernel-contract.md`` in the repository).
"""

import logging

from agent_lab.application.events.kernel import EventKernel
from agent_lab.application.events.ledger import DecisionLedger, LLMReason, RouteKind
from agent_lab.application.events.models import (
    Conflict,
    Event,
    EventDefinition,
    EventResult,
    FallbackReply,
    FallbackRequest,
    Reason,
    Resolution,
    Status,
    Timings,
    Usage,
    ValidationIssue,
)
from agent_lab.application.events.registry import EventRegistry
from agent_lab.clock import Clock, FakeClock, SystemClock
from agent_lab.errors import (
    AgentLabError,
    DefinitionError,
    InputError,
    MisuseError,
    ProviderError,
    StoreError,
    StrictJSONError,
)

__all__ = [
    "AgentLabError",
    "Clock",
    "Conflict",
    "DecisionLedger",
    "DefinitionError",
    "Event",
    "EventDefinition",
    "EventKernel",
    "EventRegistry",
    "EventResult",
    "FakeClock",
    "FallbackReply",
    "FallbackRequest",
    "InputError",
    "LLMReason",
    "MisuseError",
    "ProviderError",
    "Reason",
    "Resolution",
    "RouteKind",
    "Status",
    "StoreError",
    "StrictJSONError",
    "SystemClock",
    "Timings",
    "Usage",
    "ValidationIssue",
]

__version__ = "0.1.0"

# A library is silent unless its user configures logging (the logging HOWTO's advice):
# every module logs to a child of "agent_lab", and nothing reaches stderr by default.
logging.getLogger("agent_lab").addHandler(logging.NullHandler())

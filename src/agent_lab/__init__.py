"""agent-lab: a deterministic-first event kernel for LLM agents, and a lab that measures it.

Everything a user builds with is importable from here: the kernel (events,
their definitions, the registry and the kernel, results and statuses), the
agents and the one decision function every caller shares, the envelope
around it that the gateway, the framework wrappers and log replay ask
(``Answerer``: when plain code may answer a turn, and with what), the plugin sets
and routes, the schema-driven resolver, the tool layer (events as tool specs,
results as tool answers, K30), the model port and its providers, and the
exceptions; log replay (the log readers, ``replay`` of one logged request,
its figures); and rules learned from logs (``load_rules``, ``with_rules``).
Test doubles are in ``agent_lab.testing``. The providers, what the simulated
model is built from (its error profile, the truth it reads, its latency),
the price table and log replay load on first use (the OpenAI
SDK alone takes about 2 s to import).
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

from agent_lab.agents.choice import ToolChooser
from agent_lab.agents.decide import adecide, decide
from agent_lab.agents.decider import Decider
from agent_lab.agents.decision import Decision, DispatchedCall, FallbackPath, Routing
from agent_lab.agents.event_agent import Conversation, EventAgent
from agent_lab.agents.fallback import LLMFallback
from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.agents.port import (
    FailureReason,
    Message,
    Provider,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    ToolCall,
)
from agent_lab.agents.tool_agent import ToolAgent
from agent_lab.agents.turn import Turn
from agent_lab.answering import Answerer, Asked, Forward, LocalAnswer, LocalCall
from agent_lab.clock import Clock, SystemClock
from agent_lab.errors import (
    AgentLabError,
    DefinitionError,
    InputError,
    MisuseError,
    ProviderError,
    StoreError,
    StrictJSONError,
)
from agent_lab.kernel.event_kernel import EventKernel
from agent_lab.kernel.ledger import DecisionLedger, LLMReason, RouteKind
from agent_lab.kernel.models import (
    Conflict,
    Event,
    EventDefinition,
    EventResult,
    Failure,
    FallbackReply,
    FallbackRequest,
    Reason,
    Resolution,
    Status,
    Timings,
    Usage,
    ValidationIssue,
)
from agent_lab.kernel.registry import EventRegistry
from agent_lab.kernel.tools import anthropic_tool, openai_tool, to_tool_result, tool_status
from agent_lab.resolvers.schema import SchemaResolver

if TYPE_CHECKING:
    from agent_lab.agents.learned_rules import with_rules
    from agent_lab.log_replay.figures import ShadowFigures
    from agent_lab.log_replay.replayed import Replayed, replay
    from agent_lab.logs.reader import read_line, read_logs
    from agent_lab.logs.record import (
        LogError,
        LogFormat,
        LoggedRequest,
        LoggedToolCall,
        LoggedUsage,
        SkippedLine,
        SkipReason,
    )
    from agent_lab.providers.cassette import RecordingProvider, ReplayProvider
    from agent_lab.providers.local import LocalProvider
    from agent_lab.providers.openai_compat import OpenAIProvider
    from agent_lab.providers.pricing import PriceTable
    from agent_lab.providers.profiles import ErrorProfile
    from agent_lab.providers.request_log import RequestLog
    from agent_lab.providers.simulated import Expected, LatencyModel, SimulatedProvider
    from agent_lab.resolvers.learned import RuleBook, load_rules

__all__ = [
    "AgentLabError",
    "Answerer",
    "Asked",
    "Clock",
    "Conflict",
    "Conversation",
    "Decider",
    "Decision",
    "DecisionLedger",
    "DefinitionError",
    "DispatchedCall",
    "ErrorProfile",
    "Event",
    "EventAgent",
    "EventDefinition",
    "EventKernel",
    "EventRegistry",
    "EventResult",
    "Expected",
    "Failure",
    "FailureReason",
    "FallbackPath",
    "FallbackReply",
    "FallbackRequest",
    "Forward",
    "InputError",
    "LLMFallback",
    "LLMReason",
    "LatencyModel",
    "LocalAnswer",
    "LocalCall",
    "LocalProvider",
    "LogError",
    "LogFormat",
    "LoggedRequest",
    "LoggedToolCall",
    "LoggedUsage",
    "Message",
    "MisuseError",
    "OpenAIProvider",
    "PluginSet",
    "PriceTable",
    "Provider",
    "ProviderError",
    "ProviderFailure",
    "ProviderReply",
    "ProviderRequest",
    "Reason",
    "RecordingProvider",
    "ReplayProvider",
    "Replayed",
    "RequestLog",
    "Resolution",
    "Route",
    "RouteKind",
    "Routing",
    "RuleBook",
    "SchemaResolver",
    "ShadowFigures",
    "SimulatedProvider",
    "SkipReason",
    "SkippedLine",
    "Status",
    "StoreError",
    "StrictJSONError",
    "SystemClock",
    "Timings",
    "ToolAgent",
    "ToolCall",
    "ToolChooser",
    "Turn",
    "Usage",
    "ValidationIssue",
    "adecide",
    "anthropic_tool",
    "decide",
    "load_rules",
    "openai_tool",
    "read_line",
    "read_logs",
    "replay",
    "to_tool_result",
    "tool_status",
    "with_rules",
]

__version__ = "0.1.0"

_PROVIDERS = {
    "ErrorProfile": "agent_lab.providers.profiles",
    "Expected": "agent_lab.providers.simulated",
    "LatencyModel": "agent_lab.providers.simulated",
    "LocalProvider": "agent_lab.providers.local",
    "OpenAIProvider": "agent_lab.providers.openai_compat",
    "PriceTable": "agent_lab.providers.pricing",
    "RecordingProvider": "agent_lab.providers.cassette",
    "ReplayProvider": "agent_lab.providers.cassette",
    "SimulatedProvider": "agent_lab.providers.simulated",
    "RequestLog": "agent_lab.providers.request_log",
    # Log replay: the readers, and the replay of one logged request with its figures.
    "LogError": "agent_lab.logs.record",
    "LogFormat": "agent_lab.logs.record",
    "LoggedRequest": "agent_lab.logs.record",
    "LoggedToolCall": "agent_lab.logs.record",
    "LoggedUsage": "agent_lab.logs.record",
    "SkippedLine": "agent_lab.logs.record",
    "SkipReason": "agent_lab.logs.record",
    "read_line": "agent_lab.logs.reader",
    "read_logs": "agent_lab.logs.reader",
    "Replayed": "agent_lab.log_replay.replayed",
    "replay": "agent_lab.log_replay.replayed",
    "ShadowFigures": "agent_lab.log_replay.figures",
    # Rules learned from logs (agent-lab learn): read a rules file, apply it to a plugin set.
    "RuleBook": "agent_lab.resolvers.learned",
    "load_rules": "agent_lab.resolvers.learned",
    "with_rules": "agent_lab.agents.learned_rules",
}


def __getattr__(name: str) -> object:
    """Load a provider the first time it is asked for (PEP 562)."""
    module = _PROVIDERS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


# A library is silent unless its user configures logging (the logging HOWTO's advice):
# every module logs to a child of "agent_lab", and nothing reaches stderr by default.
logging.getLogger("agent_lab").addHandler(logging.NullHandler())

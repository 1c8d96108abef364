"""LLM back ends behind one narrow port (``base.Provider``); the agents use them through it.

``openai`` (any OpenAI-compatible endpoint), ``local`` (an embedded model),
``cassette`` (record and replay), ``simulated`` (ground truth plus a model of
errors, latency and tokens), and test doubles in ``providers.testing``.

The back ends load on first use (PEP 562): the port is all most callers need,
and the OpenAI SDK alone takes about 2 s to import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from agent_lab.agents.port import (
    FailureReason,
    Message,
    Provider,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    ToolCall,
)

if TYPE_CHECKING:
    from agent_lab.providers.cassette import CassetteError, RecordingProvider, ReplayProvider
    from agent_lab.providers.local import LOCAL_MODELS, LocalProvider, local_available
    from agent_lab.providers.openai_compat import OpenAIProvider
    from agent_lab.providers.pricing import FREE, Price, PriceTable
    from agent_lab.providers.profiles import PROFILES, ErrorProfile, ProfileError, load_profile
    from agent_lab.providers.request_log import RequestLog
    from agent_lab.providers.simulated import Expected, LatencyModel, SimulatedProvider

_LAZY = {
    "LOCAL_MODELS": "local",
    "LocalProvider": "local",
    "local_available": "local",
    "OpenAIProvider": "openai_compat",
    "FREE": "pricing",
    "Price": "pricing",
    "PriceTable": "pricing",
    "CassetteError": "cassette",
    "RecordingProvider": "cassette",
    "ReplayProvider": "cassette",
    "RequestLog": "request_log",
    "PROFILES": "profiles",
    "ErrorProfile": "profiles",
    "ProfileError": "profiles",
    "load_profile": "profiles",
    "Expected": "simulated",
    "LatencyModel": "simulated",
    "SimulatedProvider": "simulated",
}


def __getattr__(name: str) -> object:
    """Import a back end the first time one of its names is asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "FREE",
    "LOCAL_MODELS",
    "PROFILES",
    "CassetteError",
    "ErrorProfile",
    "Expected",
    "FailureReason",
    "LatencyModel",
    "LocalProvider",
    "Message",
    "OpenAIProvider",
    "Price",
    "PriceTable",
    "ProfileError",
    "Provider",
    "ProviderFailure",
    "ProviderReply",
    "ProviderRequest",
    "RecordingProvider",
    "ReplayProvider",
    "RequestLog",
    "SimulatedProvider",
    "ToolCall",
    "load_profile",
    "local_available",
]

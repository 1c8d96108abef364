"""LLM back ends behind one narrow port (``base.Provider``); the agents use them through it.

``openai`` (any OpenAI-compatible endpoint), ``local`` (an embedded model),
``replay`` (record and replay), ``simulated`` (ground truth plus a model of
errors, latency and tokens), and test doubles in ``providers.testing``.
"""

from agent_lab.providers.base import (
    FailureReason,
    Message,
    Provider,
    ProviderFailure,
    ProviderReply,
    ProviderRequest,
    ToolCall,
)
from agent_lab.providers.local import LOCAL_MODELS, LocalProvider, local_available
from agent_lab.providers.openai_compat import OpenAIProvider
from agent_lab.providers.pricing import FREE, Price, PriceTable
from agent_lab.providers.replay import CassetteError, RecordingProvider, ReplayProvider
from agent_lab.providers.simulated import ErrorRates, Expected, LatencyModel, SimulatedProvider

__all__ = [
    "FREE",
    "LOCAL_MODELS",
    "CassetteError",
    "ErrorRates",
    "Expected",
    "FailureReason",
    "LatencyModel",
    "LocalProvider",
    "Message",
    "OpenAIProvider",
    "Price",
    "PriceTable",
    "Provider",
    "ProviderFailure",
    "ProviderReply",
    "ProviderRequest",
    "RecordingProvider",
    "ReplayProvider",
    "SimulatedProvider",
    "ToolCall",
    "local_available",
]

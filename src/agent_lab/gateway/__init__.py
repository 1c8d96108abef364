"""The OpenAI-compatible gateway: ``agent-lab serve``, one deterministic decision per request."""

from agent_lab.gateway.app import Gateway
from agent_lab.gateway.settings import GatewaySettings, Mode

__all__ = ["Gateway", "GatewaySettings", "Mode"]

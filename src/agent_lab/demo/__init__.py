"""The demo assistant: its plugin set and its workload (``agent-lab demo``)."""

from agent_lab.demo.domain import plugins

__all__ = ["plugins"]

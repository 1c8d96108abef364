"""The demo assistant: eight events and their workload (``agent-lab demo``).

Each event lives in one module of ``agent_lab.demo.events``: its schema, its
resolver (what plain code can read: digits and number words, units, dates
relative to the clock a case injects as ``context["now"]``; the rest is left
missing, for the fallback), its handler (no I/O: it returns what a real
assistant would confirm) and its route. ``agent_lab.demo.generate`` writes
the workload.
"""

from agent_lab.agents.plugins import PluginSet
from agent_lab.demo.events import calendar, device, message, music, reminder, timer, units, weather

__all__ = ["plugins"]

# The order is the order of the tools offered to a model: part of every request.
_EVENTS = (timer, reminder, weather, calendar, message, music, units, device)

plugins = PluginSet(
    name="agent_lab.demo:plugins",
    definitions=tuple(event.EVENT for event in _EVENTS),
    routes=tuple(event.ROUTE for event in _EVENTS),
)
"""The demo's plugin set: ``--plugins agent_lab.demo:plugins``."""

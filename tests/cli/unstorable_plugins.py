"""A plugin set whose resolver fills an integer of 5001 digits, more than Python writes as text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.kernel.models import EventDefinition, Resolution

if TYPE_CHECKING:
    from agent_lab.kernel.models import Event

HUGE = 10**5000
"""Past Python's int-to-text limit (4300 digits): ``json.dumps`` and ``str`` refuse it."""


def read_count(event: Event) -> Resolution:
    """Fills ``n`` with ``HUGE``, whatever the words say."""
    del event
    return Resolution({"n": HUGE})


plugins = PluginSet(
    name="tests.cli.unstorable_plugins:plugins",
    definitions=(
        EventDefinition(
            "count",
            description="Count to n.",
            parameters={
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
            },
            resolver=read_count,
        ),
    ),
    routes=(Route("count", keywords=("count",)),),
)
"""One event, ``count``, whose resolver fills ``HUGE``."""

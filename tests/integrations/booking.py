"""A tool with a parameter only the user can supply, for every wrapper's tests.

``book_table(party_size, time=None)``: how many people is the user's to say
(``EventDefinition(user_only=...)``), so "book a table for tonight" misses it
and the turn is a question to the user, asked by plain code, never a model.
"""

from __future__ import annotations

from typing import Any

from agent_lab.agents.plugins import PluginSet
from agent_lab.kernel.models import EventDefinition
from agent_lab.resolvers.schema import SchemaResolver

BOOK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "party_size": {"type": "integer", "minimum": 1, "description": "How many people."},
        "time": {"type": "string"},
    },
    "required": ["party_size"],
}
ASKING = "book a table for tonight"
"""Words that name the tool and not the party size."""
QUESTION = "Please tell me the party size (how many people)."
"""What the wrappers answer them with, with no model."""


def booking_plugins() -> PluginSet:
    """``book_table`` with the party size the user's alone to say."""
    definition = EventDefinition(
        "book_table",
        description="Book a table at the restaurant.",
        parameters=BOOK_SCHEMA,
        resolver=SchemaResolver(BOOK_SCHEMA),
        user_only=("party_size",),
    )
    return PluginSet("booking", (definition,))

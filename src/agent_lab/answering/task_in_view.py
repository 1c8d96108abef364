"""Which tool a conversation is on: the task the user stated, named, or leans to.

The conversation's reader (``answering.reading``) asks these of the words
before it reads any value: the task stated turns ago ("Please book me a
table"), whether the last message names a task of its own ("hotels there
too?"), and whether some words lean to another tool than the one in view,
too weakly to route but enough to leave the call to the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.agents.tool_specs import tool_name

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_lab.agents.decider import Decider
    from agent_lab.agents.turn import Turn
    from agent_lab.answering.conversation import Conversation

__all__ = ["TaskInView"]


@dataclass(frozen=True, slots=True)
class TaskInView:
    """One conversation's words, read for the task they are on."""

    decider: Decider
    conversation: Conversation
    turn: Turn
    tools: Sequence[Mapping[str, object]]

    @property
    def names_offered(self) -> tuple[str, ...]:
        """The candidates, or every offered tool's name."""
        return self.turn.candidates or tuple(n for t in self.tools if (n := tool_name(t)))

    def spoken_of(self, text: str) -> set[str]:
        """The candidates a word of ``text`` is one of (the lexical router scores above none)."""
        ranking = self.decider.router.route(text, self.names_offered).ranking
        return set() if ranking is None else {name for name, score in ranking.ranked if score > 0}

    def tracked(self) -> str | None:
        """The task in view since the last call: the tool the user's latest words route to.

        The assistant's words name what it found or asks for ("what time?" routes to a
        calendar), not the user's task; an offer the user accepts is read apart.
        """
        said = self.conversation.said
        for role, text in reversed(said[:-1]):
            if role == "user":
                found = self.decider.routes_to(text, self.turn.candidates)
                if found is not None:
                    return found
        return None

    def names(self, tool: str) -> bool:
        """Whether the last message names ``tool`` and no other candidate ("hotels too?")."""
        lexical, text = self.decider.router.lexical, self.conversation.last_user
        spoken = [n for n in self.names_offered if lexical and lexical.speaks_of(n, text)]
        return lexical is not None and spoken == [tool]

    def leads(self, said: str) -> str | None:
        """The candidate ``said`` leans to ahead of every other by the router's margin."""
        ranked = self._ranked(said)
        if ranked is None:
            return None
        (best, score), *rest = ranked[0]
        second = rest[0][1] if rest else 0.0
        return best if score > 0 and (score - second) / score >= ranked[1] else None

    def leans(self, said: str, tool: str) -> bool:
        """Whether ``said`` leans to another tool: it leads ``tool`` by the router's margin.

        Too few words to route it, enough to doubt that ``tool`` is the task; a lead the
        router would call a tie ("booking 2 seats" for a table or for a show) is none.
        """
        ranked = self._ranked(said)
        if ranked is None:
            return False
        best, score = ranked[0][0]
        own = dict(ranked[0]).get(tool, 0.0)
        return score > 0 and best != tool and (score - own) / score >= ranked[1]

    def _ranked(self, said: str) -> tuple[Sequence[tuple[str, float]], float] | None:
        """The router's ranking of the candidates for ``said``, and its margin; ``None``: none."""
        router = self.decider.router
        ranking = router.route(said, self.turn.candidates).ranking
        if ranking is None or not ranking.ranked or router.lexical is None:
            return None
        return ranking.ranked, router.lexical.margin

"""Events from tool specs: what a request or a log offered a model, read with no code.

Callers that hold no plugin set (a gateway, a framework wrapper, log
replay) have the tools a request offered, in the OpenAI format. Each becomes
an event with its JSON Schema and the schema-driven resolver; a plugin set
given beside supplies the user's own definition for the tools it names.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.errors import InputError
from agent_lab.kernel.models import EventDefinition
from agent_lab.resolvers.schema import SchemaResolver

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "ACTING_VERBS",
    "ToolSpecError",
    "acts",
    "plugins_from_tools",
    "tool_acts",
    "tool_name",
    "tool_parameters",
    "tool_properties",
]

HINT = "x-agent-lab"


class ToolSpecError(InputError, ValueError):
    """A tool spec that cannot be read: not a function tool, or without a name."""


def tool_name(tool: Mapping[str, object]) -> str | None:
    """The function name of an OpenAI tool spec (``{"type": "function", "function": {...}}``)."""
    function = tool.get("function")
    if tool.get("type", "function") != "function" or not isinstance(function, Mapping):
        return None
    name = cast("Mapping[str, object]", function).get("name")
    return name if isinstance(name, str) and name else None


# Verbs that name a look-up: a tool named by one reads and changes nothing.
_LOOKUPS = frozenset(
    ["get", "find", "search", "lookup", "look", "check", "list", "show", "fetch", "read",
     "query", "retrieve", "view", "see", "calculate", "compute", "convert", "count", "estimate",
     "predict", "describe", "explain", "lookup", "browse", "discover", "locate", "track",
     "compare", "summarize", "translate", "validate", "verify", "is", "has", "can"]
)  # fmt: skip
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


# Verbs that name an act, as a description's first word says it ("Reserve places on a
# sailing", "Sends money"); with the look-ups above, what a name with no verb is told by.
ACTING_VERBS = frozenset(
    ["book", "reserve", "buy", "purchase", "order", "send", "transfer", "pay", "wire",
     "cancel", "delete", "remove", "change", "update", "move", "modify", "reschedule",
     "renew", "extend", "refund", "rent", "hire", "add", "create", "schedule", "set",
     "play", "cast", "sell", "request", "submit", "make", "place", "start", "turn", "switch",
     "open", "close", "lock", "unlock", "enable", "disable", "stop", "pause", "resume",
     "post", "publish", "share", "upload", "invite", "assign", "approve", "register", "join",
     "subscribe", "unsubscribe", "save", "write", "edit", "rename", "archive", "mark",
     "toggle", "activate", "deactivate", "trigger", "run", "execute", "deploy", "restart",
     "withdraw", "deposit", "donate", "message", "email", "text", "call", "notify", "remind",
     "record", "print", "ship", "deliver", "return", "apply", "sign", "confirm", "accept",
     "decline", "reject", "charge", "top", "issue", "grant", "revoke", "reset", "install"]
)  # fmt: skip
# A description's first word that says the tool answers: "Returns the forecast...".
_ANSWERS = frozenset(["returns", "gives", "provides", "tells", "gets", "lists", "shows"])
# Acts a description may speak of anywhere ("Timetable of sailings" does not; "Daily
# forecast" does not; "a service to buy tickets" does): verbs seldom used as nouns.
_STRONG_ACTS = frozenset(
    ["reserve", "buy", "purchase", "send", "transfer", "pay", "cancel", "delete", "remove",
     "modify", "reschedule", "renew", "refund", "rent", "hire", "create", "submit", "sell",
     "withdraw", "deposit", "donate", "unlock", "enable", "disable", "activate",
     "deactivate", "toggle", "execute", "deploy", "restart", "revoke", "install"]
)  # fmt: skip


# Nouns of an act, in a description that opens with no verb: "Venmo payment to a friend".
_ACT_NOUNS = frozenset(
    ["payment", "payments", "transfer", "transfers", "purchase", "purchases", "booking",
     "bookings", "reservation", "reservations", "donation", "donations", "withdrawal",
     "withdrawals", "refund", "refunds", "tip", "tips", "checkout", "moves", "sends"]
)  # fmt: skip


@lru_cache(maxsize=4096)  # asked of the same tools on every request of a conversation
def acts(name: str, description: str = "") -> bool:
    """Whether a tool acts (books, buys, sends, adds) rather than looks up.

    Its name's first verb decides: ``Reserve_restaurant``, ``buyTickets``,
    ``Music_1__PlaySong`` act; ``get_weather``, ``FindRestaurants`` look up. A
    name with no verb of either kind (``forecast``, ``ferry_times``) is told by
    its ``description``: one that opens with a verb of either kind says which
    ("Reserve places on a sailing" acts, "Search the catalog" looks up); one that
    opens with what it gives ("Daily forecast.", "Timetable of sailings between
    two ports") looks up, unless it speaks of an act anywhere ("Service to buy
    tickets"). With no description, such a tool acts: not being sure, it is
    treated as the costlier kind.
    """
    words = [w.lower() for w in _NAME_WORDS.findall(name)][:3]
    if not words or _phrasal_act(words) or ("get" in words and _gets_by_act(description)):
        return True
    if any(word in _LOOKUPS for word in words):
        return False
    said = [w.lower() for w in re.findall(r"[A-Za-z]+", description)]
    if any(word in ACTING_VERBS for word in words) or not said or _phrasal_act(said):
        return True
    first = said[0]
    if first in _LOOKUPS or first in _ANSWERS or _third_person(first) in _LOOKUPS:
        return False
    if first in ACTING_VERBS or _third_person(first) in ACTING_VERBS:
        return True
    return any(
        word in _STRONG_ACTS or _third_person(word) in _STRONG_ACTS or word in _ACT_NOUNS
        for word in said
    )


# A look-up verb with a particle that makes it an act: "check in a guest", "checkIn".
_PHRASAL_ACTS = frozenset(
    [("check", "in"), ("check", "out"), ("checks", "in"), ("checks", "out"), ("sign", "up")]
)


def _gets_by_act(description: str) -> bool:
    """Whether a sentence or clause of ``description`` opens with an act ("Call a taxi").

    "Get" names a look-up (``get_weather``) or an act (``GetRide``, "Book a cab"): the
    description's verb tells them apart.
    """
    return any(
        words[0] in _GETS_BY and words[1] in _ARTICLES
        for clause in re.split(r"[:.;]\s+", description)
        if len(words := clause.lower().split(maxsplit=2)) > 1
    )


# Acts "get" may name, said of a thing: "Book a cab", "Call a taxi"; not "call it with".
_GETS_BY = _STRONG_ACTS | {"book", "call", "order"}
_ARTICLES = frozenset(["a", "an", "the", "one", "your", "some"])


def _phrasal_act(words: Sequence[str]) -> bool:
    """Whether ``words`` open with an act said with a particle, or written as one word."""
    return tuple(words[:2]) in _PHRASAL_ACTS or (bool(words) and words[0] in _ONE_WORD_ACTS)


_ONE_WORD_ACTS = frozenset(["checkin", "checkout", "signup"])


def _third_person(word: str) -> str:
    """``sends``: ``send``; ``searches``: ``search``; other words unchanged."""
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def tool_acts(tools: Sequence[Mapping[str, object]], name: str) -> bool:
    """``acts`` for the offered tool ``name``, told by its description too."""
    for tool in tools:
        function = tool.get("function")
        if tool_name(tool) == name and isinstance(function, Mapping):
            description = cast("Mapping[str, object]", function).get("description")
            return acts(name, description if isinstance(description, str) else "")
    return acts(name)


def action_verb(name: str) -> str | None:
    """The word a tool's name starts with, past a namespace: ``Music_2__PlayMedia``: ``play``."""
    own = name.rsplit("__", 1)[-1]
    words = [w.lower() for w in _NAME_WORDS.findall(own) if not w.isdigit()]
    return words[0] if words else None


def tool_parameters(tools: Sequence[Mapping[str, object]], name: str | None) -> Mapping[str, Any]:
    """The parameters schema of the offered tool ``name``; empty when it has none."""
    for tool in tools:
        function = tool.get("function")
        if tool_name(tool) != name or not isinstance(function, Mapping):
            continue
        parameters: object = cast("Mapping[str, Any]", function).get("parameters")
        if isinstance(parameters, Mapping):
            return cast("Mapping[str, Any]", parameters)
    return {}


def tool_properties(
    tools: Sequence[Mapping[str, object]], name: str | None
) -> dict[str, Mapping[str, Any]]:
    """The top-level property schemas of the offered tool ``name``; empty when it has none."""
    given = tool_parameters(tools, name).get("properties")
    if not isinstance(given, Mapping):
        return {}
    return {
        str(key): cast("Mapping[str, Any]", schema)
        for key, schema in cast("Mapping[str, Any]", given).items()
        if isinstance(schema, Mapping)
    }


def plugins_from_tools(
    tools: Sequence[Mapping[str, object]], *, plugins: PluginSet | None = None
) -> PluginSet:
    """One event per tool: the user's own definition when ``plugins`` has it, else the spec's.

    The events have no handler: whoever holds tool specs (log replay, the gateway,
    a framework wrapper) only decides the call, and its client runs the tool.

    Raises:
        ToolSpecError: A tool is not a function tool with a name.
    """
    own = {definition.name: definition for definition in (plugins.definitions if plugins else ())}
    definitions: list[EventDefinition] = []
    learned: list[Route] = []
    for index, tool in enumerate(tools):
        name = tool_name(tool)
        if name is None:
            raise ToolSpecError(f"tool {index} is not a function tool with a name")
        phrases = _learned_routes(cast("Mapping[str, Any]", tool["function"]))
        if phrases:
            learned.append(Route(name, keywords=phrases))
        if name in own:
            # The caller decides; the client or framework runs the tool. The user's
            # handler must not run here too (twice, or from a replayed log).
            definitions.append(dataclasses.replace(own[name], handler=None, pass_model=False))
            continue
        function = cast("Mapping[str, Any]", tool["function"])
        parameters = function.get("parameters")
        schema: dict[str, Any] = (
            dict(cast("Mapping[str, Any]", parameters))
            if isinstance(parameters, Mapping)
            else {"type": "object"}
        )
        description = function.get("description")
        definitions.append(
            EventDefinition(
                name,
                description=description if isinstance(description, str) else "",
                parameters=schema,
                resolver=SchemaResolver(schema),
            )
        )
    offered = {definition.name for definition in definitions}
    # The user's routes for the tools offered; a route to a tool not offered goes nowhere.
    routes = tuple(route for route in (plugins.routes if plugins else ()) if route.event in offered)
    learned += [r for r in (plugins.learned_routes if plugins else ()) if r.event in offered]
    among = plugins.learned_among if plugins else ()
    return PluginSet("tools", tuple(definitions), routes, tuple(learned), learned_among=among)


def _learned_routes(function: Mapping[str, Any]) -> tuple[str, ...]:
    """The phrases of a tool's learned routes (``RuleBook.annotate`` wrote them in its hint)."""
    hint = function.get(HINT)
    learned = cast("Mapping[str, Any]", hint).get("learned") if isinstance(hint, Mapping) else None
    routes = (
        cast("Mapping[str, Any]", learned).get("routes") if isinstance(learned, Mapping) else None
    )
    if not isinstance(routes, list):
        return ()
    return tuple(p for p in cast("list[Any]", routes) if isinstance(p, str) and p.strip())

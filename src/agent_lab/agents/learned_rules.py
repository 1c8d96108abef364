"""Rules learned from logs on a plugin set: what ``agent-lab run`` and ``precision`` apply.

Tool specs take rules by annotation (``RuleBook.annotate``): the
schema-driven resolver reads them. A plugin set holds definitions, some with
that resolver (an imported folder), some with a resolver of the user's own
(the demo's, a team's plugins). Each definition a rule names gets them the
same way: a schema-driven resolver is rebuilt on the annotated schema; any
other resolver runs first, and the rules fill only what it left out, exactly
as the schema-driven resolver applies them after its own reading. Route
rules become the set's learned routes, asked only where its own routes and
the lexical router leave a message without an event.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.plugins import PluginSet, Route
from agent_lab.kernel.models import Resolution
from agent_lab.resolvers.learned import ANY_TOOL
from agent_lab.resolvers.schema import SchemaResolver
from agent_lab.strict_json import thaw_json

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_lab.kernel.models import Event, EventDefinition, Resolver
    from agent_lab.resolvers.learned import RuleBook
    from agent_lab.strict_json import JSONObject

__all__ = ["with_rules"]


def with_rules(plugins: PluginSet, rules: RuleBook) -> PluginSet:
    """``plugins`` with ``rules`` applied to the events they name; the others as they were.

    Raises:
        DefinitionError: A definition the registry refuses (as ``PluginSet.registry``).
    """
    events = {definition.name for definition in plugins.definitions}
    named = {rule.tool for rule in rules.rules}
    if ANY_TOOL in named:
        named = events
    if not named & events:
        return plugins
    routes = tuple(
        Route(rule.tool, keywords=(rule.phrase,))
        for rule in rules.rules
        if rule.kind == "route" and rule.phrase and rule.tool in events
    )
    if not rules.routes_apply(events):
        routes = ()  # a tool the logs never called is an event here: it may be the one meant
    registry = plugins.registry()
    definitions: list[EventDefinition] = []
    for definition in plugins.definitions:
        if definition.name not in named:
            definitions.append(definition)
            continue
        schema = cast("JSONObject", thaw_json(registry.schema(definition.name)))
        spec: JSONObject = {
            "type": "function",
            "function": {"name": definition.name, "parameters": schema},
        }
        function = cast("JSONObject", rules.annotate([spec])[0]["function"])
        annotated = cast("Mapping[str, Any]", function["parameters"])
        own = definition.resolver
        if isinstance(own, SchemaResolver):
            resolver: Resolver = SchemaResolver(annotated, reference=own.reference)
        else:
            resolver = _then_rules(own, SchemaResolver(annotated))
        definitions.append(dataclasses.replace(definition, resolver=resolver))
    return PluginSet(
        plugins.name,
        tuple(definitions),
        plugins.routes,
        plugins.learned_routes + routes,
        learned_among=rules.tools_seen,
    )


def _then_rules(own: Resolver | None, learned: SchemaResolver) -> Resolver:
    """The user's resolver, then the rules for what it left out."""

    def filled(found: object, event: Event) -> object:
        if isinstance(found, Resolution):
            arguments = cast("JSONObject", dict(found.arguments))
            learned.fill_learned(arguments, event.text)
            missing = tuple(name for name in found.missing if name not in arguments)
            return Resolution(arguments, complete=found.complete, missing=missing)
        if isinstance(found, dict):
            arguments = cast("JSONObject", dict(cast("dict[str, Any]", found)))
            learned.fill_learned(arguments, event.text)
            return arguments
        return found  # not a mapping: left for the kernel to report (K11)

    def resolve(event: Event) -> Any:
        found: Any = own(event) if own is not None else {}
        if inspect.isawaitable(found):

            async def later() -> object:
                return filled(await found, event)

            return later()
        return filled(found, event)

    return resolve

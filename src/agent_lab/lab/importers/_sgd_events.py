"""SGD services into event definitions: a Draft 2020-12 schema per intent, slot kinds from data."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_lab.kernel.models import EventDefinition
from agent_lab.kernel.registry import EventRegistry
from agent_lab.lab.importers._shape import ShapeError

if TYPE_CHECKING:
    from agent_lab.lab.importers._sgd_data import Service

__all__ = ["SGDEvent", "SGDEvents", "UnknownSlotError", "event_name"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")
_NUMBER = re.compile(r"^\d+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class SGDEvent:
    """An event written, with the kind of value each of its slots holds."""

    event: str
    slots: dict[str, str]


class UnknownSlotError(ShapeError, KeyError):
    """An intent that names a slot its service does not define: the service is skipped.

    A ``KeyError`` too, as the importer catches it beside a ``DefinitionError``.
    """

    def __str__(self) -> str:
        """The message as written, unquoted (``KeyError`` quotes its argument)."""
        return ShapeError.__str__(self)


def event_name(service: str, intent: str) -> str:
    """``Restaurants_2`` + ``ReserveRestaurant`` -> ``Restaurants_2__ReserveRestaurant``."""
    return f"{service}__{intent}"


def _kind(values: set[str], *, categorical: bool, possible: tuple[str, ...]) -> str:
    pool = set(possible) | values
    if pool and pool <= {"True", "False"}:
        return "boolean"
    if categorical and possible:
        return "enum" if not (pool and all(_NUMBER.match(v) for v in pool)) else "number"
    if values and all(_DATE.match(v) for v in values):
        return "date"
    if values and all(_TIME.match(v) for v in values):
        return "time"
    if values and all(_NUMBER.match(v) for v in values):
        return "number"
    return "free-form"


class SGDEvents:
    """The events written: each intent of a service that converts whole.

    Args:
        observed: The values each (service, slot) takes in the dialogues' calls.
    """

    def __init__(self, observed: dict[tuple[str, str], set[str]]) -> None:
        self.observed = observed
        self.registry = EventRegistry()
        self.definitions: list[dict[str, Any]] = []
        self.events: list[SGDEvent] = []
        self.intents: dict[str, dict[str, Any]] = {}

    def add(self, service: Service) -> None:
        """Register every intent of ``service``; raises ``ShapeError`` or ``DefinitionError``."""
        slots = {slot.name: slot for slot in service.slots}
        written: list[tuple[dict[str, Any], SGDEvent, dict[str, Any]]] = []
        for index, intent in enumerate(service.intents):
            name = event_name(service.name, intent.name)
            properties: dict[str, Any] = {}
            for slot_name in (*intent.required, *intent.optional):
                if slot_name not in slots:
                    raise UnknownSlotError(
                        f"intent {intent.name} names no slot of the service: {slot_name}",
                        ("intents", index),
                    )
                slot = slots[slot_name]
                values = self.observed.get((service.name, slot_name), set())
                kind = _kind(values, categorical=slot.categorical, possible=slot.possible_values)
                prop: dict[str, Any] = {"type": "string", "description": slot.description}
                if slot.categorical and slot.possible_values:
                    prop["enum"] = list(slot.possible_values)
                if kind == "date":
                    prop["pattern"] = r"^\d{4}-\d{2}-\d{2}$"
                elif kind == "time":
                    prop["pattern"] = r"^\d{2}:\d{2}$"
                prop["x-agent-lab"] = {"kind": kind, "format": "string"}
                default = intent.optional.get(slot_name)
                if default is not None and slot_name not in intent.required:
                    if default == "dontcare":
                        prop["description"] += " (default: no preference)"
                    else:
                        prop["default"] = default
                properties[slot_name] = prop
            parameters = {
                "type": "object",
                "properties": properties,
                "required": list(intent.required),
                "additionalProperties": False,
            }
            description = f"{service.description}: {intent.description}"
            self.registry.register(
                EventDefinition(name, description=description, parameters=parameters)
            )
            definition = {
                "name": name,
                "description": description,
                "parameters": parameters,
                "service": service.name,
                "intent": intent.name,
            }
            kinds = {s: p["x-agent-lab"]["kind"] for s, p in properties.items()}
            intent_entry = {"slots": set(properties), "schema": parameters, "service": service.name}
            written.append((definition, SGDEvent(event=name, slots=kinds), intent_entry))
        # Only a service converted whole is written: a skipped one leaves no event behind.
        for definition, event, intent_entry in written:
            self.definitions.append(definition)
            self.events.append(event)
            self.intents[definition["name"]] = intent_entry

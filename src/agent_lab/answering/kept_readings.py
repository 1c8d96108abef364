"""A tool's reader that keeps what it read of the most recent texts (``Reader``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from threading import Lock
from typing import TYPE_CHECKING, cast

from agent_lab.kernel.models import Event, Resolution

if TYPE_CHECKING:
    from agent_lab.resolvers.schema import SchemaResolver
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Reader", "ReaderOf"]


class Reader:
    """A tool's schema-driven reader, which keeps what it read of the most recent texts.

    A conversation's earlier messages are read again with every later request of it
    (a log replays each turn; a gateway or a wrapper is asked turn after turn): the
    readings are kept, by the text and the facts it was read with, for the most
    recent ``kept`` texts.
    """

    def __init__(
        self, resolver: SchemaResolver, *, tool: str | None = None, kept: int = 512
    ) -> None:
        self.resolver = resolver
        self.tool = tool
        """The tool it reads for: its name's words are no sign of a value."""
        self._kept = kept
        self._read: OrderedDict[tuple[str, str], JSONObject] = OrderedDict()
        self._lock = Lock()

    @property
    def required(self) -> tuple[str, ...]:
        """``SchemaResolver.required``."""
        return self.resolver.required

    def may_state(self, name: str, text: str, read: Iterable[object] | None = None) -> bool:
        """``SchemaResolver.may_state``."""
        return self.resolver.may_state(name, text, self.tool, read)

    def read(self, event: str, text: str, context: Mapping[str, object]) -> JSONObject:
        """What ``text`` states of the tool's parameters, read with ``context``."""
        key = (text, repr(sorted(context.items(), key=lambda item: item[0])))
        with self._lock:
            found = self._read.get(key)
            if found is not None:
                self._read.move_to_end(key)
                return found
        arguments = self.resolver(Event(event, text=text, context=context)).arguments
        found = {name: cast("JSONValue", value) for name, value in arguments.items()}
        with self._lock:
            self._read[key] = found
            while len(self._read) > self._kept:
                self._read.popitem(last=False)
        return found

    def __call__(self, event: Event) -> Resolution:
        """``SchemaResolver.__call__``."""
        return self.resolver(event)


ReaderOf = Callable[[str], Reader]
"""A tool's reader, by the tool's name (kept by the caller, turn after turn)."""

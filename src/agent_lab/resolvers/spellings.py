"""Learned spellings at reading time: a name read, as the deployment's calls write it.

``agent-lab learn`` keeps a ``spelling`` where a deployment's calls write a
name otherwise than its users say it ("San Fran" -> "San Francisco";
``resolvers.learned``). The schema-driven resolver reads the words as
always, then rewrites a free-form value read whole as a spelling's phrase
(any case). The words it rewrote were read all the same: ``as_said`` gives
them back, so that no check takes "San Fran" for a name left unread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from agent_lab.resolvers.properties import Property
    from agent_lab.strict_json import JSONObject

__all__ = ["Spellings"]


@dataclass(frozen=True, slots=True)
class Spellings:
    """One tool's learned spellings, for every property that has some."""

    phrases: Mapping[str, tuple[str, ...]]
    """The words (case folded) each value written was read from."""

    @classmethod
    def of(cls, properties: Sequence[Property]) -> Spellings:
        """The spellings the properties' hints hold."""
        phrases: dict[str, tuple[str, ...]] = {}
        for prop in properties:
            for phrase, value in (prop.spellings or {}).items():
                phrases[str(value)] = (*phrases.get(str(value), ()), phrase)
        return cls(phrases)

    def respell(
        self, properties: Sequence[Property], found: JSONObject, names: Mapping[str, str]
    ) -> None:
        """Rewrite, in place, each name read from the words (``names``) a spelling holds."""
        if not self.phrases:
            return
        for prop in properties:
            if prop.spellings is None or prop.name not in names:
                continue
            if found.get(prop.name) != names[prop.name]:
                continue  # left out, or read otherwise
            value = prop.spellings.get(names[prop.name].casefold())
            if value is not None and (prop.accepts is None or prop.accepts.is_valid(value)):
                found[prop.name] = value

    def as_said(self, read: Iterable[object]) -> list[object]:
        """The values read, and the words a spelling read each from ("San Fran")."""
        values = list(read)
        if not self.phrases:
            return values
        # The words first: taken out of the text before the value is, "New York City" goes
        # whole, where "New York" would leave "City" for a name unread.
        said = [p for v in values if isinstance(v, str) for p in self.phrases.get(v, ())]
        return [*said, *values]

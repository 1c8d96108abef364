"""Spellings at reading time: a name read, as the deployment's calls write it.

``agent-lab learn`` keeps a ``spelling`` where a deployment's calls write a
name otherwise than its users say it ("San Fran" -> "San Francisco";
``resolvers.learned``). One learned for every parameter is written once, in
the hint of the tool's parameters schema (``shared``); one for a parameter,
in that parameter's hint. The schema-driven resolver reads the words as
always, then rewrites a free-form value read whole as a spelling's phrase
(any case), where the parameter's schema takes the rewrite. The words it
rewrote were read all the same: ``as_said`` gives them back, so that no
check takes "San Fran" for a name left unread. Where no spelling is learned, a city
said by another of its names is written by its own ("Vegas": Las Vegas;
``resolvers.places``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_lab.resolvers.places import city_name
from agent_lab.resolvers.properties import spellings_of

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from agent_lab.resolvers.properties import Property
    from agent_lab.strict_json import JSONObject, JSONValue

__all__ = ["Spellings"]


@dataclass(frozen=True, slots=True)
class Spellings:
    """One tool's learned spellings: for every free-form parameter, and for one."""

    shared: Mapping[str, JSONValue]
    """For every free-form parameter (the parameters schema's own hint)."""
    phrases: Mapping[str, tuple[str, ...]]
    """The words (case folded) each value written was read from."""

    @classmethod
    def of(cls, hint: object, properties: Sequence[Property]) -> Spellings:
        """The spellings of the parameters schema's ``hint`` and of its properties' hints."""
        shared = spellings_of(hint)
        phrases: dict[str, tuple[str, ...]] = {}
        for table in (shared, *(p.spellings for p in properties if p.spellings)):
            for phrase, value in table.items():
                phrases[str(value)] = (*phrases.get(str(value), ()), phrase)
        return cls(shared, phrases)

    def respell(
        self, properties: Sequence[Property], found: JSONObject, names: Mapping[str, str]
    ) -> None:
        """Rewrite, in place, each name read from the words (``names``) a spelling holds.

        And each city said by another of its names, where no spelling is learned.
        """
        for prop in properties:
            if prop.name not in names or found.get(prop.name) != names[prop.name]:
                continue  # not read from the words as a name, or left out, or read otherwise
            key = names[prop.name].casefold()
            value = (prop.spellings or {}).get(key, self.shared.get(key))
            if value is None and prop.free is not None and prop.free.city:
                value = city_name(names[prop.name])
            if (
                isinstance(value, str)
                and value.strip()
                and (prop.accepts is None or prop.accepts.is_valid(value))
            ):
                found[prop.name] = value

    def as_said(self, read: Iterable[object], names: Mapping[str, str]) -> list[object]:
        """The values read, the words a spelling read each from ("San Fran").

        And the ``names`` as said ("Vegas" for Las Vegas).
        """
        values = [*read, *names.values()]
        if not self.phrases:
            return values
        # The words first: taken out of the text before the value is, "New York City" goes
        # whole, where "New York" would leave "City" for a name unread.
        said = [p for v in values if isinstance(v, str) for p in self.phrases.get(v, ())]
        return [*said, *values]

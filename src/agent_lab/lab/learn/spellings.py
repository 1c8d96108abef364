"""Spelling candidates: how a deployment's calls write a name its users spell otherwise.

Users say "San Fran", "Philly" or "New York City"; a deployment's tools may
take "San Francisco", "Philadelphia" and "New York". No reader can know a
deployment's own spellings, and its logs show them: where the schema-driven
resolver read a free-form value from the words and the logged call gave the
same parameter another, the pair is a candidate (``resolvers.learned``'s
``spelling``), for every tool and every free-form parameter (its tool and
parameter ``ANY_TOOL``): a spelling is the deployment's, whatever takes it,
and so holds for services the logs never showed. A candidate needs
``min_support`` training conversations and the call's value in at least
``min_share`` of the examples, whatever their parameter, where the resolver
read that spelling: a name some calls keep as said ("Washington" for a
flight, "Washington D.C." for an event) is no candidate.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING

from agent_lab.lab.learn.candidates import Candidate
from agent_lab.resolvers.learned import ANY_TOOL

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.learn.examples import Example

__all__ = ["spellings"]

_SHOWN = 3


def spellings(
    examples: Sequence[Example], *, min_support: int, min_share: float
) -> list[Candidate]:
    """The spelling candidates the training examples show."""
    read_as: Counter[str] = Counter()
    written: defaultdict[str, defaultdict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    said: dict[str, str] = {}
    shown: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    for example in examples:
        for parameter, read in example.read.items():
            if example.kinds.get(parameter) != "free-form" or not isinstance(read, str):
                continue
            key = read.casefold()
            read_as[key] += 1
            said.setdefault(key, read)
            logged = example.arguments.get(parameter)
            if isinstance(logged, str) and logged != read:
                written[key][logged].add(example.conversation)
                if len(kept := shown[key, logged]) < _SHOWN:
                    kept.append(example.text)
    found: list[Candidate] = []
    for key, values in written.items():
        value, conversations = max(values.items(), key=lambda item: len(item[1]))
        support = len(conversations)
        if support < min_support or support < min_share * read_as[key]:
            continue
        found.append(
            Candidate(
                kind="spelling",
                tool=ANY_TOOL,
                parameter=ANY_TOOL,
                value=value,
                phrase=said[key],
                support=support,
                examples=tuple(shown[key, value]),
            )
        )
    return found

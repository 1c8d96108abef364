"""Candidate rules mined from training examples: aliases and constants, with their support.

* An ``alias`` candidate is a phrase of one to three words of the user's
  text that, for one tool's parameter the resolver left unread, went with
  one value in at least ``min_support`` training examples and with that
  value in at least ``min_share`` of the examples of that tool whose words
  hold it; only for a parameter the training calls give several values (one
  value whatever the words say is a constant's, not a phrase's). A value
  whose own spelling is in the words is the resolver's to read, not an
  alias's; dates and times depend on the day a conversation
  took place, so they get no alias. Words that spell the value the call gave
  another parameter count for no alias of this one: a director's name goes
  with the genre of his films in training, and says nothing of the genre
  of the next request that names him.
* A ``constant`` candidate is the value a tool's calls gave a parameter the
  resolver left unread, and the words did not spell, in at least
  ``min_share`` of its training examples (at least ``min_support`` of them).

* A ``context`` candidate is the one or two words before a free-form value
  the words spell with capitals ("a table at" Sino, "events in" San Jose),
  whose pattern (``resolvers.learned.context_pattern``) captured exactly that
  value in at least ``min_support`` training examples and captured the
  logged value in at least ``min_share`` of the examples where it captured
  anything.

* A ``format`` candidate is the kind a parameter's values take, when its
  schema says only "a string" (``resolvers.learned.takes_format``): ISO dates
  (``date``), ``HH:MM`` times (``time``) or numbers (``number``), in at
  least ``min_support`` training examples and ``min_share`` of those that
  gave it a value.

* A ``spelling`` candidate (``lab.learn.spellings``) is how the calls write
  a free-form value the resolver read as the words spell it, across tools.

* A ``route`` candidate is a phrase of one to three words that, where plain
  code routed the words to no tool, went with a call to one tool in at
  least ``min_support`` training examples and in at least ``min_share`` of
  the examples that offered that tool and held the phrase.

Nothing here is admitted: ``gate`` measures each candidate on held-out
examples.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from agent_lab.lab.learn.candidates import Candidate
from agent_lab.lab.learn.phrases import TOKEN, most_telling, phrases
from agent_lab.lab.learn.spellings import spellings
from agent_lab.resolvers.enums import mentions
from agent_lab.resolvers.learned import ANY_TOOL, context_pattern, takes_format

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent_lab.lab.learn.examples import Example
    from agent_lab.strict_json import JSONValue

__all__ = ["Candidate", "mine", "open_parameter", "phrases", "spelled_in"]

_NO_ALIAS = frozenset({"date", "time", "boolean"})


def _most_specific(
    found: list[Candidate],
    holders: Callable[[Candidate], set[int]],
    telling: Callable[[Candidate, str], bool],
) -> list[Candidate]:
    """The candidates less those another of the same tool, parameter and value explains.

    Per tool, parameter and value, ``phrases.most_telling`` decides, from the
    training examples holding each phrase (``holders``) and the words that on
    their own went with the value (``telling``).
    """
    by_phrase = {(c.tool, c.parameter, _key(c.value), c.phrase or ""): c for c in found}
    groups: defaultdict[tuple[str, str, str], list[Candidate]] = defaultdict(list)
    for (tool, parameter, value, _), candidate in by_phrase.items():
        groups[tool, parameter, value].append(candidate)
    kept: list[Candidate] = []
    for candidates in groups.values():
        of = {c.phrase or "": c for c in candidates}
        chosen = most_telling(
            {phrase: holders(c) for phrase, c in of.items()},
            lambda phrase, word, of=of: telling(of[phrase], word),
        )
        kept.extend(of[phrase] for phrase in chosen)
    return kept


def spelled_in(value: JSONValue, text: str) -> bool:
    """Whether the text spells the value itself (any of its ``variants``)."""
    if not isinstance(value, str | int) or isinstance(value, bool):
        return False
    return bool(mentions([value], text))


def _key(value: JSONValue) -> str:
    return json.dumps(value, sort_keys=True)


def mine(
    examples: Sequence[Example],
    *,
    min_support: int = 3,
    min_share: float = 0.9,
    across_tools: bool = False,
) -> list[Candidate]:
    """The candidate rules the training examples show.

    ``across_tools``: argument rules are mined per parameter name over every
    tool (their tool ``ANY_TOOL``), for tools the logs never showed; routes
    name their tool whatever it is.
    """
    arguments = (
        [dataclasses.replace(e, tool=ANY_TOOL) for e in examples] if across_tools else examples
    )
    return [
        *_aliases(arguments, min_support=min_support, min_share=min_share),
        *_constants(arguments, min_support=min_support, min_share=min_share),
        *_contexts(arguments, min_support=min_support, min_share=min_share),
        *_formats(arguments, min_support=min_support, min_share=min_share),
        *_routes(examples, min_support=min_support, min_share=min_share),
        *spellings(examples, min_support=min_support, min_share=min_share),
    ]


def _routes(examples: Sequence[Example], *, min_support: int, min_share: float) -> list[Candidate]:
    went: Counter[tuple[str, str]] = Counter()
    offered: defaultdict[tuple[str, str], set[int]] = defaultdict(set)
    shown: defaultdict[tuple[str, str], list[str]] = defaultdict(list)
    for index, example in enumerate(examples):
        if example.routed is not None:
            continue  # plain code routed it: a learned route is never asked there
        for phrase in phrases(example.text):
            went[example.tool, phrase] += 1
            if len(shown[example.tool, phrase]) < 3:
                shown[example.tool, phrase].append(example.text)
            for tool in example.offered:
                offered[tool, phrase].add(index)
    found = [
        Candidate(
            kind="route",
            tool=tool,
            parameter="",
            value=None,
            phrase=phrase,
            support=support,
            examples=tuple(shown[tool, phrase]),
        )
        for (tool, phrase), support in went.items()
        if support >= min_support and support >= min_share * len(offered[tool, phrase])
    ]
    return _most_specific(
        found,
        lambda c: offered[c.tool, c.phrase or ""],
        lambda c, word: went[c.tool, word] >= max(1, min_share * len(offered[c.tool, word])),
    )


# The shapes a ``format`` rule names, as the schema-driven resolver writes each kind.
_SHAPES = (
    ("date", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("time", re.compile(r"\d{2}:\d{2}")),
    ("number", re.compile(r"-?\d+(?:\.\d+)?")),
)


def _dated(value: JSONValue) -> bool:
    """Whether a value is written as a date or a time, whatever its schema says.

    Such a value depends on the day: no alias or constant stands for it.
    """
    return isinstance(value, str) and any(shape.fullmatch(value) for _, shape in _SHAPES[:2])


def open_parameter(example: Example, parameter: str) -> Mapping[str, Any] | None:
    """The parameter's schema when the resolver left it unread and its kind is open."""
    if parameter in example.read:
        return None
    properties = example.schema.get("properties")
    prop = (
        cast("Mapping[str, Any]", properties).get(parameter)
        if isinstance(properties, Mapping)
        else None
    )
    if not isinstance(prop, Mapping) or not takes_format(cast("Mapping[str, Any]", prop)):
        return None
    return cast("Mapping[str, Any]", prop)


def _formats(examples: Sequence[Example], *, min_support: int, min_share: float) -> list[Candidate]:
    shaped: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    given: Counter[tuple[str, str]] = Counter()
    shown: defaultdict[tuple[str, str, str], list[str]] = defaultdict(list)
    for example in examples:
        for parameter in example.kinds:
            value = example.arguments.get(parameter)
            if not isinstance(value, str) or open_parameter(example, parameter) is None:
                continue
            given[example.tool, parameter] += 1
            kind = next((kind for kind, shape in _SHAPES if shape.fullmatch(value)), None)
            if kind is None:
                continue
            shaped[example.tool, parameter][kind] += 1
            if len(shown[example.tool, parameter, kind]) < 3:
                shown[example.tool, parameter, kind].append(f"{example.text} -> {value}")
    found: list[Candidate] = []
    for (tool, parameter), counts in shaped.items():
        kind, support = counts.most_common(1)[0]
        if support < min_support or support < min_share * given[tool, parameter]:
            continue
        found.append(
            Candidate(
                kind="format",
                tool=tool,
                parameter=parameter,
                value=kind,
                phrase=None,
                support=support,
                examples=tuple(shown[tool, parameter, kind]),
            )
        )
    return found


def captured(pattern: re.Pattern[str], text: str) -> set[str]:
    """The names a context pattern captures in the text."""
    return {match.group(1) for match in pattern.finditer(text)}


def _before(value: str, text: str) -> list[str]:
    """The one and two words before where the text spells ``value`` with its own capitals."""
    found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text)
    if found is None:
        return []
    words = TOKEN.findall(text[: found.start()].lower())
    return [" ".join(words[-size:]) for size in (1, 2) if len(words) >= size]


def _contexts(
    examples: Sequence[Example], *, min_support: int, min_share: float
) -> list[Candidate]:
    proposed: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    for example in examples:
        for parameter, kind in example.kinds.items():
            value = example.arguments.get(parameter)
            if kind != "free-form" or parameter in example.read or not isinstance(value, str):
                continue
            for words in _before(value, example.text):
                if value in captured(context_pattern(words), example.text):
                    proposed[example.tool, parameter].add(words)
    found: list[Candidate] = []
    for (tool, parameter), contexts in proposed.items():
        mine_on = [
            e
            for e in examples
            if e.tool == tool and parameter not in e.read and parameter in e.kinds
        ]
        for words in sorted(contexts):
            pattern = context_pattern(words)
            right = fired = 0
            shown: list[str] = []
            for example in mine_on:
                names = captured(pattern, example.text)
                if not names:
                    continue
                fired += 1
                logged = example.arguments.get(parameter)
                if isinstance(logged, str) and names == {logged}:
                    right += 1
                    if len(shown) < 3:
                        shown.append(example.text)
            if right < min_support or right < min_share * fired:
                continue
            found.append(
                Candidate(
                    kind="context",
                    tool=tool,
                    parameter=parameter,
                    value=None,
                    phrase=words,
                    support=right,
                    examples=tuple(shown),
                )
            )
    return found


def _aliases(examples: Sequence[Example], *, min_support: int, min_share: float) -> list[Candidate]:
    together: defaultdict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    seen: defaultdict[tuple[str, str, str], set[int]] = defaultdict(set)
    values: dict[str, JSONValue] = {}
    shown: defaultdict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for index, example in enumerate(examples):
        everything = phrases(example.text)
        for parameter, kind in example.kinds.items():
            if kind in _NO_ALIAS or parameter in example.read:
                continue
            value = example.arguments.get(parameter)
            for phrase in everything:
                seen[example.tool, parameter, phrase].add(index)
            # Words that spell another argument's value are that value's: "Peter
            # Farrelly" is who directed, not a way to say the genre his films share.
            said = phrases(example.text, apart=_other_values(example, parameter))
            if value is None or isinstance(value, bool | dict | list) or _dated(value):
                continue
            if spelled_in(value, example.text):
                continue
            key = _key(value)
            values[key] = value
            for phrase in said:
                together[example.tool, parameter, phrase][key] += 1
                examples_shown = shown[example.tool, parameter, phrase, key]
                if len(examples_shown) < 3:
                    examples_shown.append(example.text)
    several: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    for (tool, parameter, _), counts in together.items():
        several[tool, parameter].update(counts)
    found: list[Candidate] = []
    for (tool, parameter, phrase), counts in together.items():
        key, support = counts.most_common(1)[0]
        if support < min_support or support < min_share * len(seen[tool, parameter, phrase]):
            continue
        if len(several[tool, parameter]) < 2:
            continue
        found.append(
            Candidate(
                kind="alias",
                tool=tool,
                parameter=parameter,
                value=values[key],
                phrase=phrase,
                support=support,
                examples=tuple(shown[tool, parameter, phrase, key]),
            )
        )
    return _most_specific(
        found,
        lambda c: seen[c.tool, c.parameter, c.phrase or ""],
        lambda c, word: (
            together[c.tool, c.parameter, word][_key(c.value)]
            >= max(1, min_share * len(seen[c.tool, c.parameter, word]))
        ),
    )


def _other_values(example: Example, parameter: str) -> list[str]:
    """The string values the call gave its other parameters."""
    return [
        value
        for name, value in example.arguments.items()
        if name != parameter and isinstance(value, str)
    ]


def _constants(
    examples: Sequence[Example], *, min_support: int, min_share: float
) -> list[Candidate]:
    given: defaultdict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    unread: Counter[tuple[str, str]] = Counter()
    values: dict[str, JSONValue] = {}
    for example in examples:
        for parameter in example.kinds:
            if parameter in example.read:
                continue
            unread[example.tool, parameter] += 1
            value = example.arguments.get(parameter)
            if value is None or isinstance(value, dict | list) or _dated(value):
                continue  # a date or a time is the day's, not a constant's
            if spelled_in(value, example.text):
                continue  # the words said it: no constant's doing
            values[_key(value)] = value
            given[example.tool, parameter][_key(value)] += 1
    found: list[Candidate] = []
    for (tool, parameter), counts in given.items():
        key, support = counts.most_common(1)[0]
        if support < min_support or support < min_share * unread[tool, parameter]:
            continue
        found.append(
            Candidate(
                kind="constant",
                tool=tool,
                parameter=parameter,
                value=values[key],
                phrase=None,
                support=support,
                examples=(),
            )
        )
    return found

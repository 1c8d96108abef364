"""A deterministic router for plugin sets with no routes: BM25 over what each event says of itself.

Imported plugin sets (BFCL, SGD) and many user plugin sets carry no route
patterns, so every message whose event is not named would cost a request
only to choose it. Each event is described by its words: its name split
into words (twice, as the strongest evidence), its description, its
parameters' names, descriptions and enum values. A message is scored against
those descriptions with BM25 (``bm25s``; scores are IDF-weighted over the
whole plugin set, so words every event shares count for little), and routed
without the LLM only on evidence whose precision was measured
(docs/experiments.md): among several candidates, when the best leads the
next by a relative margin; a lone candidate (a plugin set of one event, or a
message offered one function) has no runner-up, so it is routed only when
the message holds every word of its name. Otherwise the ranking still helps:
the LLM is offered the best few candidates only.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from agent_lab.agents.act_pairs import ActPair, singular
from agent_lab.errors import SettingError

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Iterator

    from agent_lab.kernel.models import EventDefinition

__all__ = [
    "DEFAULT_MARGIN",
    "DEFAULT_MIN_TERMS",
    "DEFAULT_NAME_SHARE",
    "LexicalRouter",
    "Ranking",
    "describe",
]

DEFAULT_MARGIN = 0.1
"""The relative lead (``(best - second) / best``) needed to route without the LLM.

Chosen on the tuning half of BFCL multiple (even case numbers), with
``min_terms`` 2: one step stricter than 0.05, the least strict margin with
no wrong route there; reported on the other half and on the demo
(docs/experiments.md, "The lexical router").
"""

DEFAULT_MIN_TERMS = 2
"""Distinct words the message must share with the best event's description to route.

One shared word ("minutes", "days") is weak evidence whatever the margin says.
"""

DEFAULT_NAME_SHARE = 1.0
"""The share of a lone candidate's name words the message must hold to route to it.

With one candidate there is no runner-up to lead, so the evidence must be
absolute. Chosen on the tuning halves (even case numbers) of BFCL simple and
irrelevance (one function each) and of the demo's events taken one at a
time: every word of the name, a step stricter than 0.8, the least strict
share with no wrong route there; reported on the other halves
(docs/experiments.md, "One candidate: the name rule").
"""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_.\-/]+")
_DIGITS = re.compile(r"\d+")


def _words(identifier: str) -> str:
    """``math.factorial`` -> ``math factorial``; ``getUserName`` -> ``get User Name``."""
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", identifier))


def _schema_words(node: object, depth: int = 0) -> Iterator[str]:
    # Bounded, like every walk over a schema a plugin or an importer supplies.
    if depth > 32 or not isinstance(node, dict):
        return
    schema = cast("dict[str, Any]", node)
    description = schema.get("description")
    if isinstance(description, str):
        yield description
    enum = schema.get("enum")
    if isinstance(enum, list):
        yield " ".join(str(v) for v in cast("list[object]", enum) if isinstance(v, str))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in cast("dict[str, object]", properties).items():
            yield _words(name)
            yield from _schema_words(sub, depth + 1)
    items = schema.get("items")
    if isinstance(items, dict):
        yield from _schema_words(cast("object", items), depth + 1)


def describe(definition: EventDefinition) -> str:
    """The words an event is known by: name (twice), description, parameters."""
    name = _words(definition.name)
    # A Pydantic model class is converted at registration; unregistered, its words are the name's.
    parameters: object = definition.parameters
    schema: object = parameters if isinstance(parameters, Mapping) else {}
    parts = [name, name, definition.description, *_schema_words(schema)]
    return " ".join(part for part in parts if part)


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranking:
    """Candidates best first with their scores, and whether the evidence for the best suffices."""

    ranked: tuple[tuple[str, float], ...]
    margin: float
    """The best's relative lead over the second: ``(best - second) / best`` (0 when unscored)."""
    name_share: float
    """The share of the best's name words the message holds (0 when its name has none)."""
    confident: bool

    @property
    def best(self) -> str | None:
        """The event to route to without the LLM, or ``None``."""
        return self.ranked[0][0] if self.confident and self.ranked else None

    def top(self, count: int) -> tuple[str, ...]:
        """The best ``count`` candidates' names."""
        return tuple(name for name, _ in self.ranked[:count])


def _bm25s() -> Any:
    # Imported on first use: about a second, paid only by plugin sets with no routes.
    # The package ships no type information, so it is read as Any.
    import bm25s  # noqa: PLC0415  # pyright: ignore[reportMissingTypeStubs]

    return bm25s


# Verbs people use for what a tool's name says another way, in their common forms: "find
# me a train" for search_trains, "book a table" for reserve_table, "purchase" for buy_tickets.
# Written out rather than stemmed: a stemmer makes "checking" (an account) "check" (a verb).
_SAME_VERB: dict[str, str] = {
    **dict.fromkeys(
        ["find", "finding", "finds", "found", "look", "looking", "lookup", "seek", "seeking",
         "searching", "searches", "locate", "locating", "browse", "browsing"],
        "search",
    ),
    **dict.fromkeys(
        ["book", "booking", "booked", "reserving", "reserved", "reservation", "reservations"],
        "reserve",
    ),
    **dict.fromkeys(["purchase", "purchasing", "purchased", "buying", "bought"], "buy"),
    **dict.fromkeys(["fetch", "retrieve", "obtain", "getting"], "get"),
}  # fmt: skip


_LOOKUP_VERBS = frozenset(
    ["get", "find", "search", "fetch", "retrieve", "lookup", "look", "show", "list", "check",
     "query", "read", "view", "display", "tell", "give", "return"]
)  # fmt: skip
"""Verbs a tool's name may hold that people leave out when they ask: "the weather in Paris"
for ``get_weather``."""


def _one_form(words: list[str]) -> list[str]:
    """Each word in one form: its verb's (``_SAME_VERB``), else without a plural ``s``."""
    return [_SAME_VERB.get(word) or singular(word) for word in words]


def _tokens(texts: list[str], *, one_form: bool = True) -> list[list[str]]:
    tokenize: Any = _bm25s().tokenize
    return cast(
        "list[list[str]]",
        tokenize(
            texts,
            stopwords="en",
            stemmer=_one_form if one_form else None,
            return_ids=False,
            show_progress=False,
        ),
    )


@lru_cache(maxsize=4096)
def _query(text: str, *, one_form: bool) -> tuple[str, ...]:
    """A message's words as the router reads them, cut once per text.

    A conversation's messages are routed again with every later request that holds
    them (the reader tracks the task over the turns): tokenizing was a third of
    `agent-lab shadow`'s routing time on SGD dev.
    """
    return tuple(_tokens([text], one_form=one_form)[0])


def _name_words(definition: EventDefinition) -> frozenset[str]:
    """The words of an event's name, as the router reads them (``get_weather`` -> get, weather).

    Numbers are left out: an importer's ``__2`` (two functions with one name)
    is no word a message says.
    """
    words = _tokens([_words(definition.name)], one_form=False)[0]
    return frozenset(w for w in words if not _DIGITS.fullmatch(w))


class LexicalRouter:
    """Ranks a plugin set's events against a message; routes only on measured evidence.

    Args:
        definitions: The plugin set's events (the index is built once, here).
        margin: The relative lead the best of several candidates needs to route
            (``DEFAULT_MARGIN``).
        min_terms: Distinct words the message must share with the best's
            description to route (``DEFAULT_MIN_TERMS``).
        name_share: The share of a lone candidate's name words the message
            must hold to route to it (``DEFAULT_NAME_SHARE``).
    """

    def __init__(
        self,
        definitions: Iterable[EventDefinition],
        *,
        margin: float = DEFAULT_MARGIN,
        min_terms: int = DEFAULT_MIN_TERMS,
        name_share: float = DEFAULT_NAME_SHARE,
    ) -> None:
        if not 0.0 <= margin <= 1.0:
            raise SettingError("margin", f"must be in [0, 1], not {margin!r}")
        if min_terms < 1:
            raise SettingError("min_terms", f"must be at least 1, not {min_terms!r}")
        if not 0.0 <= name_share <= 1.0:
            raise SettingError("name_share", f"must be in [0, 1], not {name_share!r}")
        chosen = tuple(definitions)
        self.names = tuple(d.name for d in chosen)
        self.margin = margin
        self.min_terms = min_terms
        self.name_share = name_share
        self._index = {name: i for i, name in enumerate(self.names)}
        documents = _tokens([describe(d) for d in chosen])
        self._terms = [frozenset(words) for words in documents]
        self._vocabulary: frozenset[str] = frozenset().union(*self._terms)
        self._named = [_name_words(d) for d in chosen]
        self._pairs = ActPair(chosen)
        self._rankings = lru_cache(maxsize=4096)(self._rank)
        self._retriever: Any = _bm25s().BM25()
        # bm25s cannot index an empty vocabulary: events whose every word is a
        # stopword or a single letter are left unscored (nothing to match).
        self._indexed = any(documents)
        if self._indexed:
            self._retriever.index(documents, show_progress=False)

    def speaks_of(self, name: str, text: str) -> bool:
        """Whether ``text`` holds every word of ``name`` that is not a look-up verb.

        "What's the weather in Paris right now?" speaks of ``get_weather``; a
        name with no such word (``get``) speaks of nothing. The evidence for a lone
        candidate whose resolver must then complete its call (``Decider``).
        """
        index = self._index.get(name)
        if index is None:
            return False
        content = self._named[index] - _LOOKUP_VERBS
        if not content:
            return False
        said = {singular(word) for word in self._joined(_query(text, one_form=False))}
        return {singular(word) for word in content} <= said

    def _joined(self, words: tuple[str, ...]) -> list[str]:
        """``words``, and each two in a row the events write as one ("one way": oneway).

        A name run together (``SearchOnewayFlight``, ``book_roundtrip``) is said in two
        words.
        """
        found = list(words)
        for first, second in itertools.pairwise(words):
            joined = first + second
            if joined in self._vocabulary and joined not in found:
                found.append(joined)
        return found

    def rank(self, text: str, candidates: Collection[str] | None = None) -> Ranking:
        """Score ``text`` against the candidates (default: every event), best first.

        See ``_rank``; a conversation's messages are ranked again on each of its
        requests, so the rankings of recent texts are kept (a ranking is a value).
        """
        pool = self.names if candidates is None else tuple(dict.fromkeys(candidates))
        return self._rankings(text, pool)

    def _rank(self, text: str, pool: tuple[str, ...]) -> Ranking:
        """Score ``text`` against the candidates (default: every event), best first.

        Among several candidates the best routes when it leads the next by the
        margin; a lone candidate has no runner-up, so it routes only when the
        message holds ``name_share`` of its name's words. Either way the best
        must share ``min_terms`` words with the message. A lone candidate's
        decision reads nothing of the other events, so it is the same in a
        plugin set of that event alone.
        """
        names = [n for n in pool if n in self._index]
        if not names:
            return Ranking(ranked=(), margin=0.0, name_share=0.0, confident=False)
        query = self._joined(_query(text, one_form=True))
        scores: Any = (
            self._retriever.get_scores(query)
            if query and self._indexed
            else [0.0] * len(self.names)
        )
        ranked = sorted(
            ((name, float(scores[self._index[name]])) for name in names),
            key=lambda item: (-item[1], item[0]),
        )
        best = ranked[0][1]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
        margin = (best - second) / best if best > 0 else 0.0
        paired = None if margin >= self.margin else self._paired(text, ranked)
        if paired is not None:
            ranked = sorted(ranked, key=lambda item: item[0] != paired)  # stable: the rest
        index = self._index[ranked[0][0]]
        shared = len(self._terms[index] & frozenset(query))
        named = self._named[index]
        # A lone candidate's name words are matched as written, not in one form: "the
        # gene sequences" speak of genes, they do not ask gene_sequence for anything.
        said: frozenset[str] = (
            frozenset(self._joined(_query(text, one_form=False))) if named else frozenset()
        )
        name_share = len(named & said) / len(named) if named else 0.0
        if len(ranked) > 1:
            evident = margin >= self.margin or paired is not None
            enough = shared >= self.min_terms or self._names_alone(index, query, ranked)
        else:
            evident = bool(named) and name_share >= self.name_share
            enough = shared >= self.min_terms
        return Ranking(
            ranked=tuple(ranked),
            margin=margin,
            name_share=name_share,
            confident=evident and enough,
        )

    def _paired(self, text: str, ranked: list[tuple[str, float]]) -> str | None:
        """The one of two tied leaders the message's verb asks for (``agents.act_pairs``).

        The two must lead the rest by the margin: a look-up and its act on the same
        thing ("find" or "book" a one way flight), no third tool close to them.
        """
        if len(ranked) < 2 or ranked[1][1] <= 0:
            return None
        third = ranked[2][1] if len(ranked) > 2 else 0.0
        if (ranked[1][1] - third) / ranked[1][1] < self.margin:
            return None
        return self._pairs.choose(ranked[0][0], ranked[1][0], text)

    def _names_alone(self, index: int, query: list[str], ranked: list[tuple[str, float]]) -> bool:
        """Whether the one word the best shares is its name's, and no other candidate's word.

        "What will the weather be like on the 1st?" among a weather tool, an attraction
        search and a ride: ``weather`` names one tool and no other says it. A word of
        its description alone ("song" for ``play_music``) is no such sign, nor a look-up
        verb. Among several candidates only: a lone one keeps the name rule.
        """
        shared = self._terms[index] & frozenset(query)
        if len(shared) != 1:
            return False
        named = {singular(word) for word in self._named[index] - _LOOKUP_VERBS}
        if not shared <= named:
            return False
        return all(shared.isdisjoint(self._terms[self._index[name]]) for name, _ in ranked[1:])

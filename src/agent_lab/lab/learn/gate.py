"""Admission by held-out evidence: a candidate is kept only where held-out calls prove it.

Each candidate is measured on the held-out examples where it would fire.
An argument rule fires on calls to its tool where the resolver left its
parameter unread and (an alias) the words hold its phrase, (a context) its
words capture a name, (a format) the resolver reads a value of its kind, or
(a constant) the words show no sign of the parameter; it is right when the
logged call gave the parameter that value, wrong otherwise (another value,
or none: a rule must not add what the model left out). A spelling fires
where the resolver read its phrase (the whole value, any case) for a
free-form parameter, on any tool, and is right when the call wrote its value. A route fires on
every held-out request that offered its tool, that plain code routed to no
tool and whose words hold its phrase, whatever tool the call went to; it is
right when the call went to its tool.

A single phrase rarely recurs often enough to bound its own precision at
99%, so the Wilson lower bound is taken over the candidates of one tool's
parameter and kind together (every spelling together), counting each held-out conversation once
(right only when every firing of the group's candidates in it is right:
requests of one conversation are not independent); a group is admitted
when that bound clears ``min_precision`` over at least ``min_support``
held-out conversations, and within it a candidate is kept only
when it fired held-out at least once and was never wrong. Nothing is kept on
training fit alone. A rule but a spelling fires only where the resolver (or
the router) decided nothing, so none changes what plain code decides; a
spelling changes only how a value read is written.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from agent_lab.kernel.models import Event
from agent_lab.lab.learn.mine import Candidate, captured, open_parameter
from agent_lab.log_replay.intervals import Z_95, wilson
from agent_lab.resolvers.learned import (
    ANY_TOOL,
    Evidence,
    LearnedRule,
    accepts,
    context_pattern,
    formatted,
    phrase_pattern,
)
from agent_lab.resolvers.schema import SchemaResolver

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.lab.learn.examples import Example
    from agent_lab.resolvers.learned import RuleBook
    from agent_lab.strict_json import JSONValue

__all__ = ["Refusal", "Verdicts", "admit", "clean_needed", "measured"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """A candidate the gate refused, and why."""

    candidate: Candidate
    right: int
    wrong: int
    reason: str
    """``never_fired``, ``wrong_held_out`` or ``group_below_bound``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdicts:
    """What the gate kept and refused."""

    kept: tuple[LearnedRule, ...]
    refused: tuple[Refusal, ...]


def _fires(candidate: Candidate, example: Example, pattern: re.Pattern[str] | None) -> bool:
    if candidate.tool not in (ANY_TOOL, example.tool) or candidate.parameter in example.read:
        return False
    if candidate.parameter not in example.kinds:
        return False
    return pattern is None or pattern.search(example.text.lower()) is not None


def _read_as(example: Example, parameter: str, kind: str) -> JSONValue | None:
    """What the schema-driven resolver reads for the parameter when a format rule names its kind."""
    prop = open_parameter(example, parameter)
    if prop is None:
        return None
    properties = dict(cast("Mapping[str, Any]", example.schema["properties"]))
    properties[parameter] = formatted(prop, kind)
    resolver = SchemaResolver({**example.schema, "properties": properties})
    found = resolver(Event(example.tool, text=example.text, context=dict(example.context)))
    return cast("JSONValue | None", found.arguments.get(parameter))


def _firings(candidate: Candidate, examples: Sequence[tuple[int, Example]]) -> dict[int, bool]:
    """The held-out examples (by index) where the candidate fires: whether it agrees there."""
    fired: dict[int, bool] = {}
    for index, example in examples:
        agreed = _agrees(candidate, example)
        if agreed is not None:
            fired[index] = agreed
    return fired


def _agrees(candidate: Candidate, example: Example) -> bool | None:
    """Whether the candidate's value is the logged one where it fires; ``None``: it does not."""
    if candidate.kind == "route" and candidate.phrase is not None:
        if example.routed is not None or candidate.tool not in example.offered:
            return None
        if phrase_pattern(candidate.phrase).search(example.text.lower()) is None:
            return None
        return example.tool == candidate.tool
    logged = example.arguments.get(candidate.parameter)
    if candidate.kind == "spelling":
        return _spelled(candidate, example)
    if candidate.kind == "format":
        read = _read_as(example, candidate.parameter, str(candidate.value))
        return None if read is None else logged == read
    if candidate.kind == "context" and candidate.phrase is not None:
        if not _fires(candidate, example, None):
            return None
        names = captured(context_pattern(candidate.phrase), example.text)
        if not names or not all(_takes(example, candidate.parameter, n) for n in names):
            return None  # the resolver checks a capture against the schema: none fills
        return isinstance(logged, str) and names == {logged}
    pattern = None if candidate.phrase is None else phrase_pattern(candidate.phrase)
    if not _fires(candidate, example, pattern):
        return None
    if not _takes(example, candidate.parameter, candidate.value):
        return None  # never written into this schema (RuleBook.annotate): it cannot fire
    return logged == candidate.value


def _spelled(candidate: Candidate, example: Example) -> bool | None:
    """A spelling fires on each free-form parameter read as its phrase: right if every one is."""
    phrase = str(candidate.phrase).casefold()
    fired = [
        example.arguments.get(parameter) == candidate.value
        for parameter, read in example.read.items()
        if candidate.parameter in (ANY_TOOL, parameter)
        and example.kinds.get(parameter) == "free-form"
        and isinstance(read, str)
        and read.casefold() == phrase
        and _takes(example, parameter, candidate.value)
    ]
    return all(fired) if fired else None


def _takes(example: Example, parameter: str, value: JSONValue) -> bool:
    """Whether the parameter's schema, as this request offered it, takes the value."""
    properties: object = example.schema.get("properties")
    prop = (
        cast("Mapping[str, object]", properties).get(parameter)
        if isinstance(properties, Mapping)
        else None
    )
    return isinstance(prop, Mapping) and accepts(cast("Mapping[str, Any]", prop), value)


def clean_needed(min_precision: float) -> int:
    """The held-out conversations, every one right, a group needs to clear ``min_precision``.

    With none wrong, the Wilson lower bound is n / (n + z^2): 35 conversations
    for 0.9, 381 for 0.99. A group firing in fewer cannot be admitted however
    right it is, so logs with fewer held-out conversations per tool keep nothing.
    """
    if min_precision <= 0:
        return 1
    n = max(1, math.ceil(Z_95**2 * min_precision / (1 - min_precision)))
    # The closed form, checked against the interval the gate computes (rounding either way).
    while wilson(n, n)[0] < min_precision:
        n += 1
    while n > 1 and wilson(n - 1, n - 1)[0] >= min_precision:
        n -= 1
    return n


_WORD = re.compile(r"[^\W_]+")


class _Pools:
    """The held-out examples a candidate may fire on, found without trying every one.

    Measuring each candidate on every held-out example cost candidates x examples
    (35 s on 3,200 logged calls). A phrase's pattern matches only where each of
    its letter-and-digit runs is a run of the text too, so the examples holding
    its rarest run are a superset of where it fires, and only those are tried.
    """

    def __init__(self, held: Sequence[Example]) -> None:
        self.everything = list(enumerate(held))
        self.by_tool: defaultdict[str, list[tuple[int, Example]]] = defaultdict(list)
        self.by_word: defaultdict[str, list[int]] = defaultdict(list)
        for index, example in self.everything:
            self.by_tool[example.tool].append((index, example))
            for word in set(_WORD.findall(example.text.lower())):
                self.by_word[word].append(index)

    def of(self, candidate: Candidate) -> list[tuple[int, Example]]:
        # A route fires on calls to any tool (there it is wrong); the others on their tool's.
        anywhere = candidate.kind == "route" or candidate.tool == ANY_TOOL
        words = _WORD.findall((candidate.phrase or "").lower())
        if candidate.kind in ("alias", "context", "route", "spelling") and words:
            rarest = min((self.by_word.get(w, []) for w in words), key=len)
            return [
                (i, self.everything[i][1])
                for i in rarest
                if anywhere or self.everything[i][1].tool == candidate.tool
            ]
        return self.everything if anywhere else self.by_tool[candidate.tool]


def admit(
    candidates: Sequence[Candidate],
    held: Sequence[Example],
    *,
    min_precision: float = 0.99,
    min_support: int = 20,
) -> Verdicts:
    """Measure every candidate on the held-out examples, and keep what the bound admits."""
    pools = _Pools(held)
    firings = [(c, _firings(c, pools.of(c))) for c in candidates]
    # A group is judged on held-out conversations, each once: several of its rules firing
    # in one conversation (one request or several, a retried line) are one observation,
    # right only if each firing is, since they are not independent of each other.
    groups: defaultdict[tuple[str, str, str], dict[str, bool]] = defaultdict(dict)
    for candidate, fired_on in firings:
        pooled = groups[_group(candidate)]
        for index, agreed in fired_on.items():
            conversation = held[index].conversation
            pooled[conversation] = pooled.get(conversation, True) and agreed
    kept: list[LearnedRule] = []
    refused: list[Refusal] = []
    for candidate, fired_on in firings:
        right = sum(fired_on.values())
        wrong = len(fired_on) - right
        pooled = groups[_group(candidate)]
        group_right = sum(pooled.values())
        fired = len(pooled)
        low = wilson(group_right, fired)[0] if fired else 0.0
        if right + wrong == 0:
            reason = "never_fired"
        elif wrong:
            reason = "wrong_held_out"
        elif fired < min_support or low < min_precision:
            reason = "group_below_bound"
        else:
            kept.append(
                LearnedRule(
                    kind=candidate.kind,
                    tool=candidate.tool,
                    parameter=candidate.parameter,
                    value=candidate.value,
                    phrase=candidate.phrase,
                    evidence=Evidence(
                        support=candidate.support,
                        right=right,
                        wrong=wrong,
                        low=low,
                        examples=candidate.examples,
                    ),
                )
            )
            continue
        refused.append(Refusal(candidate=candidate, right=right, wrong=wrong, reason=reason))
    return Verdicts(kept=tuple(kept), refused=tuple(refused))


def _group(candidate: Candidate) -> tuple[str, str, str]:
    """The candidates judged together: one tool's parameter and kind; every spelling as one.

    A deployment's spellings are one habit of its calls, whatever the parameter: judged
    one parameter at a time, none would fire often enough to be bounded at all.
    """
    if candidate.kind == "spelling":
        return (ANY_TOOL, "", candidate.kind)
    return (candidate.tool, candidate.parameter, candidate.kind)


def measured(book: RuleBook, examples: Sequence[Example]) -> dict[str, tuple[int, int]]:
    """Per kind, the examples where a book's rules fire: right (each rule firing is) and wrong.

    How rules learned on some logs do on others (services never seen, say);
    route rules fire only where the book's logs called every tool offered.
    """
    indexed = list(enumerate(examples))
    routable = [(i, e) for i, e in indexed if book.routes_apply(e.offered)]
    by_kind: defaultdict[str, dict[int, bool]] = defaultdict(dict)
    for rule in book.rules:
        candidate = Candidate(
            kind=rule.kind,
            tool=rule.tool,
            parameter=rule.parameter,
            value=rule.value,
            phrase=rule.phrase,
            support=rule.evidence.support,
            examples=(),
        )
        pooled = by_kind[rule.kind]
        on = routable if rule.kind == "route" else indexed
        for index, agreed in _firings(candidate, on).items():
            pooled[index] = pooled.get(index, True) and agreed
    return {kind: (sum(p.values()), len(p) - sum(p.values())) for kind, p in by_kind.items()}

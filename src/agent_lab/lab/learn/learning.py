"""``agent-lab learn``: split logs by conversation, mine on one part, admit and measure on another.

The held-out part serves twice, as the issue asks and as no training fit
can: the gate admits rules on it, and the gain is measured on it, by
replaying each held-out request as ``agent-lab shadow`` does, without the
rules and then with them (coverage and agreement, each with its Wilson
interval, overall and per tool). Because the same part admits and measures,
the gain on it is an optimistic estimate: measure a rules file on logs it
never saw (``agent-lab shadow --rules``) before trusting it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_lab.answering import Answerer
from agent_lab.lab.learn.examples import conversation_of, examples_of, held_out
from agent_lab.lab.learn.gate import Verdicts, admit, clean_needed
from agent_lab.lab.learn.mine import mine
from agent_lab.log_replay.figures import Tally
from agent_lab.log_replay.replayed import Replayed, replay
from agent_lab.resolvers.learned import ANY_TOOL, LearnedRule, RuleBook

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.agents.turn import Reading
    from agent_lab.lab.learn.examples import Example
    from agent_lab.logs.record import LoggedRequest
    from agent_lab.strict_json import JSONObject

__all__ = ["LearnSettings", "Learned", "learn"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LearnSettings:
    """How to split, mine and admit."""

    holdout: float = 0.3
    """The share of conversations held out."""
    min_precision: float = 0.99
    """The Wilson lower bound a rule's group must clear on held-out calls."""
    min_support: int = 20
    """Held-out firings a group needs before its bound counts."""
    min_training: int = 3
    """Training examples a candidate needs."""
    seed: int = 0
    read: Reading = "last"
    across_tools: bool = False
    """Learn argument rules per parameter name over every tool (``mine``'s ``across_tools``)."""


@dataclass(slots=True)
class Gain:
    """Held-out figures without the rules and with them, overall and per tool."""

    before: Tally = field(default_factory=Tally)
    after: Tally = field(default_factory=Tally)
    by_tool: dict[str, tuple[Tally, Tally]] = field(default_factory=dict[str, tuple[Tally, Tally]])

    def add(self, without: Replayed, with_rules: Replayed) -> None:
        self.before.add(without, None)
        self.after.add(with_rules, None)
        if without.tool is not None:
            pair = self.by_tool.setdefault(without.tool, (Tally(), Tally()))
            pair[0].add(without, None)
            pair[1].add(with_rules, None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Learned:
    """What ``learn`` kept, refused, and gained on the held-out part."""

    rules: RuleBook
    verdicts: Verdicts
    gain: Gain
    training: int
    """Training examples (logged calls) the candidates were mined from."""
    held: int
    """Held-out examples the gate measured them on."""
    widest: tuple[str, int] = ("", 0)
    """The most held-out conversations one group could fire in, and its tool (``ANY_TOOL``
    with ``across_tools``): no group can clear a bound that needs more (``needed``)."""
    needed: int = 0
    """The held-out conversations a group needs: every one right for the bound
    (``gate.clean_needed``), and at least the minimum support."""
    conversations: int = 0
    """The conversations the examples fall in (a conversation is known by its first
    two messages: logs whose conversations open alike count as one)."""

    @property
    def examples(self) -> int:
        """The logged calls learned from: training and held out."""
        return self.training + self.held

    @property
    def too_few(self) -> bool:
        """Whether no group could be admitted, however right its rules: too few logs."""
        return self.widest[1] < self.needed


def learn(
    requests: Sequence[LoggedRequest],
    settings: LearnSettings,
    *,
    source: JSONObject,
    plugins: PluginSet | None = None,
) -> Learned:
    """Learn rules from ``requests`` (see the module docstring); ``source`` names the logs.

    ``plugins`` supplies your own resolvers for the tools it names, as
    ``agent-lab shadow --plugins`` does: rules are mined only for what they
    leave out, and the gain is measured with them, then with the rules after them.
    """
    examples = examples_of(requests, read=settings.read, plugins=plugins)
    train = [
        e
        for e in examples
        if not held_out(e.conversation, share=settings.holdout, seed=settings.seed)
    ]
    held = [
        e for e in examples if held_out(e.conversation, share=settings.holdout, seed=settings.seed)
    ]
    clean = clean_needed(settings.min_precision)
    candidates = mine(train, min_support=settings.min_training, across_tools=settings.across_tools)
    verdicts = admit(
        candidates, held, min_precision=settings.min_precision, min_support=settings.min_support
    )
    book = RuleBook(
        # In one order whatever the hash seed: the file is for review and diffs.
        rules=tuple(sorted(verdicts.kept, key=_order)),
        tools_seen=tuple(sorted({example.tool for example in examples})),
        source={
            **source,
            "split": {
                "by": "conversation",
                "holdout": settings.holdout,
                "seed": settings.seed,
                "training_calls": len(train),
                "held_out_calls": len(held),
            },
            "gate": {
                "min_precision": settings.min_precision,
                "min_support": settings.min_support,
                "min_training": settings.min_training,
                "across_tools": settings.across_tools,
                "candidates": len(candidates),
                "kept": len(verdicts.kept),
                "clean_needed": clean,
            },
        },
    )
    gain = Gain()
    before = Answerer(plugins, read=settings.read)
    after = Answerer(plugins, rules=book, read=settings.read)
    for request in requests:
        if not held_out(conversation_of(request), share=settings.holdout, seed=settings.seed):
            continue
        without = replay(request, before)
        with_book = replay(request, after)
        if isinstance(without, Replayed) and isinstance(with_book, Replayed):
            gain.add(without, with_book)
    return Learned(
        rules=book,
        verdicts=verdicts,
        gain=gain,
        training=len(train),
        held=len(held),
        widest=_widest(held, across_tools=settings.across_tools),
        needed=max(clean, settings.min_support),
        conversations=len({example.conversation for example in examples}),
    )


def _widest(held: Sequence[Example], *, across_tools: bool) -> tuple[str, int]:
    """The tool with the most held-out conversations, and how many (every tool's, across tools)."""
    if across_tools:
        return ANY_TOOL, len({example.conversation for example in held})
    by_tool: dict[str, set[str]] = {}
    for example in held:
        by_tool.setdefault(example.tool, set()).add(example.conversation)
    if not by_tool:
        return "", 0
    tool = min(by_tool, key=lambda name: (-len(by_tool[name]), name))
    return tool, len(by_tool[tool])


def _order(rule: LearnedRule) -> tuple[str, str, str, str, str]:
    value = json.dumps(rule.value, sort_keys=True, ensure_ascii=False)
    return (rule.kind, rule.tool, rule.parameter, rule.phrase or "", value)


def digest(paths: Sequence[str]) -> str:
    """The SHA-256 of the logs' bytes, in order: the version of the logs a rules file came from."""
    hashed = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:  # noqa: PTH123
            for block in iter(lambda: handle.read(1 << 20), b""):
                hashed.update(block)
    return hashed.hexdigest()

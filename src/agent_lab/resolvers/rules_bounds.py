"""The most of a rules file that is loaded: past a bound, the file is refused, the bound named.

A rules file is read whole and applied to every request (``resolvers.learned``);
the bounds keep both bounded, far above what ``agent-lab learn`` keeps (86
rules on SGD's logs: docs/learn.md). Its size in bytes is ``_input_files``'s
``MAX_RULES_BYTES``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "MAX_PHRASE_CHARS",
    "MAX_RULES",
    "MAX_SEARCHED_RULES",
    "MAX_SPELLINGS_OF_A_VALUE",
    "misspelt",
    "phrase_over",
    "rules_over",
    "searched_over",
]

MAX_RULES = 100_000
"""Rules in one file. Measured: 100,000 aliases of one tool load and annotate in about 4 s,
then cost about 45 ms a request, most of it the decider's key, the annotated tools' JSON
(issue 36: 5,000 took ``shadow --rules`` a minute). 100,000 spellings for every parameter,
written once per tool, annotate a tool of 20 parameters in 0.1 s (11 s, and 57 MB of hint,
when each parameter held a copy) and its first request reads in about 2 s."""
MAX_SEARCHED_RULES = 10_000
"""``context`` and ``route`` rules together: each is a search of every request's words of its
own (aliases are found together, in one walk of the words: ``resolvers.aliases``)."""
MAX_PHRASE_CHARS = 200
"""Characters in one rule's phrase (``learn`` mines phrases of one to three words): the walk
that finds aliases goes no further into the words than the longest phrase."""


MAX_SPELLINGS_OF_A_VALUE = 100
"""Spellings of one value: the words a spelling rewrote are searched for in every request's
text as read (``resolvers.spellings``), one search each; 100,000 of one value took a minute
a request."""


def misspelt(spellings: Iterable[tuple[str, str, object]]) -> str | None:
    """Why a file's ``spelling`` rules (parameter, phrase, value) are refused, or ``None``.

    A value that is no words (a number, an object, blanks), one phrase spelling two values
    for a parameter (in any case), or a value spelt more than ``MAX_SPELLINGS_OF_A_VALUE``
    ways.
    """
    seen: dict[tuple[str, str], object] = {}
    ways: dict[str, int] = {}
    for parameter, phrase, value in spellings:
        if not isinstance(value, str) or not value.strip():
            return f"the spelling of {phrase!r} is {value!r}: a spelling's value is words"
        key = (parameter, phrase.casefold())
        if seen.setdefault(key, value) != value:
            return f"{phrase!r} is spelt two ways for {parameter!r}"
        ways[value] = ways.get(value, 0) + 1
        if ways[value] > MAX_SPELLINGS_OF_A_VALUE:
            return (
                f"{value!r} is spelt over {MAX_SPELLINGS_OF_A_VALUE} ways, the bound on a"
                " rules file (each is searched for in every request's words)"
            )
    return None


def rules_over(count: int) -> str | None:
    """Why a file of ``count`` rules is refused, or ``None``."""
    if count > MAX_RULES:
        return f"{count:,} rules, over the {MAX_RULES:,} bound on a rules file"
    return None


def searched_over(kinds: Iterable[str]) -> str | None:
    """Why a file of rules of these kinds is refused, or ``None``."""
    searched = sum(kind in ("context", "route") for kind in kinds)
    if searched > MAX_SEARCHED_RULES:
        return (
            f"{searched:,} context and route rules, over the {MAX_SEARCHED_RULES:,} bound"
            " on a rules file (each searches every request's words)"
        )
    return None


def phrase_over(phrase: str, index: int) -> str | None:
    """Why rule ``index``'s phrase is refused, or ``None``."""
    if len(phrase) > MAX_PHRASE_CHARS:
        return (
            f"rule {index}'s phrase is {len(phrase):,} characters,"
            f" over the {MAX_PHRASE_CHARS} bound on a phrase"
        )
    return None

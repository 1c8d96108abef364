"""How people name a currency whose ISO 4217 code an enum holds: "€40", "300 euros", "yen".

An enum of currency codes (``["EUR", "USD", "NOK"]``) is named by its codes,
and by the currencies' units and symbols: "euros" and "€" for EUR, "Norwegian
kroner" and "kr" for NOK. A unit or a symbol several currencies share ("$",
"dollars", "kroner") names each of them, so it decides only where the enum
holds one (``enums.read_enum`` takes one value or none). The codes and names
come from ISO 4217 as ``pycountry`` ships it; the units and symbols people write
are this module's, chosen so that none is an ordinary English word ("real",
"won", "rand" are left out: "a real bargain", "we won").
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, cast

import pycountry

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "codes_after",
    "codes_named",
    "currency_spellings",
    "is_symbol",
    "money_codes",
    "money_signs",
    "money_units",
    "named_otherwise",
]

# Units as people say them, singular: plural. Each names the currencies whose ISO name
# holds it ("krone": Danish Krone, Norwegian Krone).
_UNITS: dict[str, str] = {
    "euro": "euros", "dollar": "dollars", "pound": "pounds", "yen": "yen", "yuan": "yuan",
    "renminbi": "renminbi", "krone": "kroner", "krona": "kronor", "franc": "francs",
    "rupee": "rupees", "peso": "pesos", "rupiah": "rupiah", "ringgit": "ringgit",
    "baht": "baht", "zloty": "zlotys", "forint": "forints", "koruna": "korunas",
    "lira": "lira", "shekel": "shekels", "dirham": "dirhams", "riyal": "riyals",
    "dinar": "dinars", "ruble": "rubles", "hryvnia": "hryvnias", "shilling": "shillings",
    "naira": "naira", "cedi": "cedis",
}  # fmt: skip
_RUBLE_SPELLINGS = ("rouble", "roubles")
# Symbols, and the codes each is written for.
_SYMBOLS: dict[str, tuple[str, ...]] = {
    "€": ("EUR",), "£": ("GBP", "EGP", "GIP", "FKP", "SHP"), "¥": ("JPY", "CNY"),
    "₹": ("INR",), "₩": ("KRW",), "₽": ("RUB",), "₺": ("TRY",), "₪": ("ILS",),
    "₫": ("VND",), "฿": ("THB",), "₱": ("PHP",), "₴": ("UAH",), "₦": ("NGN",),
    "$": ("USD", "CAD", "AUD", "NZD", "HKD", "SGD", "MXN", "ARS", "CLP", "COP", "TWD"),
    "kr": ("NOK", "SEK", "DKK", "ISK"), "us$": ("USD",), "r$": ("BRL",), "a$": ("AUD",),
    "c$": ("CAD",), "nz$": ("NZD",), "hk$": ("HKD",), "s$": ("SGD",),
}  # fmt: skip


def is_symbol(spelling: str) -> bool:
    """Whether ``spelling`` holds a sign (``€``, ``$``, ``r$``): it may touch a number."""
    return any(not char.isalnum() and not char.isspace() for char in spelling)


@functools.cache
def _names() -> dict[str, str]:
    """ISO 4217 codes to their names, lower case."""
    currencies = cast("list[object]", list(pycountry.currencies))
    return {
        str(getattr(currency, "alpha_3", "")): str(getattr(currency, "name", "")).lower()
        for currency in currencies
    }


@functools.cache
def currency_spellings(value: str) -> tuple[str, ...]:
    """How people write the currency ``value`` names, lower case; none if it names none.

    Its ISO name and that name's plural ("norwegian krone", "norwegian kroner"),
    its units ("kroner"), its symbols ("kr"). The code itself is the enum's own
    spelling, not repeated here.
    """
    name = _names().get(value) if len(value) == 3 and value.isupper() else None
    if not name:
        return ()
    words = name.split()
    # A name of one word is said only when it is a unit people say ("euro", "yen"): ISO's
    # "Won", "Rand", "Gold" are English words too.
    found: list[str] = [name] if len(words) > 1 or name in _UNITS else []
    for unit, plural in _UNITS.items():
        if unit in words:
            found.extend((unit, plural, name.replace(unit, plural)))
    if value == "RUB":
        found.extend(_RUBLE_SPELLINGS)
    found.extend(symbol for symbol, codes in _SYMBOLS.items() if value in codes)
    return tuple(dict.fromkeys(found))


# Codes that are English words when written in capitals: no sign of money after a number.
_WORDLIKE = frozenset(["ALL", "TOP", "CUP", "MOP", "SOS", "MAD", "BAM", "GEL", "TRY", "PEN"])


def money_signs() -> tuple[str, ...]:
    """Every currency sign, longest first ("nz$" before "$")."""
    return tuple(sorted((s for s in _SYMBOLS if is_symbol(s)), key=len, reverse=True))


def money_units() -> tuple[str, ...]:
    """Every currency's units and names in words ("euros", "swiss francs"), and "kr"."""
    said = {
        spelling
        for code in _names()
        for spelling in currency_spellings(code)
        if not is_symbol(spelling)
    }
    return tuple(sorted(said | {*_UNITS, *_UNITS.values(), *_RUBLE_SPELLINGS}))


def money_codes() -> tuple[str, ...]:
    """ISO 4217 codes, upper case, less those that are words in capitals ("ALL")."""
    return tuple(sorted(set(_names()) - _WORDLIKE))


@functools.cache
def _codes_by_spelling() -> dict[str, frozenset[str]]:
    """Every spelling (lower case) to the codes it names: "dollars": USD, CAD..."""
    found: dict[str, set[str]] = {}
    for code in _names():
        for spelling in (code.lower(), *currency_spellings(code)):
            found.setdefault(spelling, set()).add(code)
    found.setdefault("bucks", set()).update(_SYMBOLS["$"])
    return {spelling: frozenset(codes) for spelling, codes in found.items()}


def codes_named(said: str) -> frozenset[str]:
    """The codes a sign, a unit, a name or a code names ("kr": NOK, SEK, DKK, ISK)."""
    return _codes_by_spelling().get(said.strip().lower(), frozenset())


def codes_in_words(words: Iterable[str]) -> frozenset[str]:
    """The currencies words name, each word alone ("usd", "dollar", "euro")."""
    found: set[str] = set()
    for word in words:
        found |= codes_named(word)
        found |= codes_named(word + "s")  # a stem: "dollar" of "dollars"
    return frozenset(found)


def named_otherwise(lowered: str, start: int, end: int, code: str) -> bool:
    """Whether the unit at ``lowered[start:end]`` is the end of another currency's name.

    "40 Canadian dollars" does not name the US dollar, "400 Danish kroner" not the
    Norwegian krone: the word before the unit makes a name of another code.
    """
    before = lowered[:start].rstrip()
    word = before[before.rfind(" ") + 1 :] if before else ""
    if not word.isalpha():
        return False
    codes = codes_named(f"{word} {lowered[start:end]}")
    return bool(codes) and code not in codes


@functools.cache
def _adjectives() -> dict[str, frozenset[str]]:
    """The first word of a currency's name to its codes: "canadian": CAD."""
    found: dict[str, set[str]] = {}
    for code, name in _names().items():
        words = name.split()
        if len(words) > 1 and words[0] not in ("us", "new", "cfa"):
            found.setdefault(words[0], set()).add(code)
    return {word: frozenset(codes) for word, codes in found.items()}


def codes_after(text: str) -> frozenset[str]:
    """The currency the first word of ``text`` names: "CAD", "(Canadian)"."""
    found: set[str] = set()
    for word in re.findall(r"[A-Za-z]+", text)[:1]:
        if word.isupper() and len(word) == 3:
            found |= codes_named(word)
        found |= _adjectives().get(word.lower(), frozenset())
    return frozenset(found)

"""Identifiers in the user's words: an order number, a booking reference, an event's id.

A property that names a thing by its identifier (``rx_number``, ``eventId``,
``bookingRef``, "the confirmation code") takes a value no name reading sees: it
is no capitalised name, and often no word at all ("RX-99120", "EV-3310",
"88213-B", "55321"). It is read only where the shape leaves no doubt: the one
token of the message that mixes letters and at least three digits, or that is a
run of at least four digits, and that no other value read accounts for. A year
("2026"), a clock time, a sum of money or a telephone number is no identifier;
two candidates, or a tool with two identifier properties, give none.

A label says whose an identifier is, where the shape alone cannot: "member no
558201", "class SPN-0412", "booking ref is QX7TPL", "ref: ZK4M9R". The label is
the property's name's words ("member" of ``member_id``), or its identifying word
alone ("ref") when no other identifier property of the tool has it; the value is
the token just after, with a digit, or five capitals or more.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_lab.resolvers.cues import name_words

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "identified",
    "identifier_tokens",
    "identifies",
    "read_identifier",
    "read_labelled",
]

# The words of a property's name that say it holds an identifier, and those that say
# it holds a number of another kind (a count, a phone).
_IDENTIFYING = frozenset(
    ["id", "ids", "identifier", "ref", "reference", "code", "number", "no", "num", "plate",
     "registration", "serial", "sku", "isbn", "pnr", "vin", "imei", "iban"]
)  # fmt: skip
_NOT_IDENTIFYING = frozenset(
    ["phone", "telephone", "mobile", "fax", "zip", "postal", "postcode", "of", "count",
     "amount", "price", "age", "year", "pin", "password", "email", "url", "seats", "size"]
)  # fmt: skip
# A token that may be an identifier: letters, digits and inner hyphens or slashes.
_TOKEN = re.compile(r"(?<![\w$€£.,/-])[A-Za-z0-9][A-Za-z0-9/-]*[A-Za-z0-9](?![\w/-]|[.,]\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/-]\d{1,2}(?:[/-]\d{2,4})?")
_PHONE = re.compile(r"\d{3}[-.]\d{3}[-.]\d{4}")
_MONEY_AFTER = re.compile(r"\s*(?:dollars?|bucks|euros?|pounds?|usd|eur|gbp|%)", re.I)
_CLOCK_AFTER = re.compile(r"\s*(?:[ap]\.?m\b|o'?clock|h\b|hours?\b|hrs?\b)", re.I)


def identifies(name: str, schema: Mapping[str, Any]) -> bool:
    """Whether a property holds an identifier: a string named so, with no choices.

    ``rx_number``, ``eventId``, ``booking_ref``; not ``number_of_seats``, ``phone_number``
    nor a property with an enum or a format (a date is no identifier).
    """
    if schema.get("type") not in ("string", None) or "enum" in schema or "format" in schema:
        return False
    words = set(name_words(name))
    return bool(words & _IDENTIFYING) and not words & _NOT_IDENTIFYING


def read_identifier(text: str, read: Iterable[object] = ()) -> str | None:
    """The one token of ``text`` shaped as an identifier, as written; else ``None``.

    ``read`` are values read from the text for other properties (a count, a time): a
    token one of them is is none. One labelled as another thing's ("zip 94107",
    "member id 558201") is none either, and leaves the reading to the model.
    """
    found = identifier_tokens(text, read)
    if any(_OTHERS_LABEL.search(text, 0, start) for start in _starts(text, found)):
        return None
    return found.pop() if len(found) == 1 else None


# A label of another thing than the property's, just before a token: "zip 94107".
_OTHERS_LABEL = re.compile(
    r"\b(?:zip|postcode|postal code|phone|tel|mobile|pin|account|member|membership|card|"
    r"loyalty|customer|employee|student|passport|licen[cs]e)\s*(?:id|no\.?|number|#)?\s*"
    r"(?:is|:)?\s*$",
    re.IGNORECASE,
)


def _starts(text: str, tokens: set[str]) -> list[int]:
    return [m.start() for token in tokens for m in re.finditer(re.escape(token), text)]


def identifier_tokens(text: str, read: Iterable[object] = ()) -> set[str]:
    """Every token of ``text`` shaped as an identifier that no value ``read`` is."""
    taken = {str(value).lower() for value in read}
    found: set[str] = set()
    for match in _TOKEN.finditer(text):
        token = match.group()
        digits = sum(ch.isdigit() for ch in token)
        letters = any(ch.isalpha() for ch in token)
        if digits < 3 or (not letters and digits < 4):
            continue
        if token.lower() in taken or _YEAR.fullmatch(token) or _PHONE.fullmatch(token):
            continue
        if letters and re.fullmatch(r"\d+(?:st|nd|rd|th|am|pm)", token, re.IGNORECASE):
            continue  # "123rd", "1230pm": a day or a time
        after = text[match.end() :]
        if _MONEY_AFTER.match(after) or _CLOCK_AFTER.match(after):
            continue
        found.add(token)
    return found


_LABELLED_VALUE = r"([A-Za-z0-9][A-Za-z0-9/-]*[A-Za-z0-9])(?![\w/-]|[.,]\d)"
_ID_WORDS = r"(?:id|ids|identifier|ref|reference|code|number|no\.?|num|#)"


def _label_pattern(name: str, shared: frozenset[str]) -> re.Pattern[str] | None:
    """What may label ``name``'s value: its own words, or an identifying word no other has."""
    words = name_words(name)
    own = [w for w in words if w not in _IDENTIFYING]
    # "no" and "num" are words of their own ("no, 44817 is wrong"): they label only after
    # the property's own words.
    alone = [w for w in words if w in _IDENTIFYING and w not in shared | {"no", "num"}]
    labels: list[str] = []
    if own:
        labels.append(r"\s+".join(re.escape(w) for w in own) + rf"(?:\s+{_ID_WORDS})?")
    labels.extend(re.escape(w) for w in alone)
    if not labels:
        return None
    return re.compile(
        rf"\b(?:{'|'.join(labels)})\s*(?:\bis\b|:|=|#)?\s*{_LABELLED_VALUE}", re.IGNORECASE
    )


def read_labelled(text: str, names: Iterable[str]) -> dict[str, str]:
    """The identifiers ``text`` labels as each property's (``member no 558201``).

    ``names`` are the tool's identifier properties. A property labelled with two
    values, or a value labelled as two properties', gives none.
    """
    names = list(names)
    counts: dict[str, int] = {}
    for name in names:
        for word in set(name_words(name)) & _IDENTIFYING:
            counts[word] = counts.get(word, 0) + 1
    shared = frozenset(word for word, count in counts.items() if count > 1)
    found: dict[str, str] = {}
    for name in names:
        pattern = _label_pattern(name, shared)
        if pattern is None:
            continue
        tokens = {
            m.group(1)
            for m in pattern.finditer(text)
            if _labelled_shape(m.group(1)) and not _anothers(text, m)
        }
        if len(tokens) == 1:
            found[name] = tokens.pop()
    values = list(found.values())
    return {name: value for name, value in found.items() if values.count(value) == 1}


def _anothers(text: str, match: re.Match[str]) -> bool:
    """Whether an identifying word alone labels another thing's: "member id 558201"."""
    first = match.group(0).split()[0].lower().rstrip(":#.")
    if first not in _IDENTIFYING:
        return False
    before = re.search(r"([A-Za-z]+)\W*$", text[: match.start()])
    return before is not None and before.group(1).lower() not in _LEADING


# Words that may come before an identifying word that labels the property's own value.
_LEADING = frozenset(
    ["my", "the", "your", "our", "its", "their", "his", "her", "a", "an", "is", "and", "with",
     "for", "to", "on", "of", "please", "pls", "here", "booking", "reference"]
)  # fmt: skip


def _labelled_shape(token: str) -> bool:
    """With a digit and three characters or more, or five capitals or more; no year, date."""
    if _YEAR.fullmatch(token) or _DATE.fullmatch(token):
        return False
    if any(ch.isdigit() for ch in token):
        return len(token) >= 3
    return len(token) >= 5 and token.isupper()


def identified(
    text: str, identifying: Sequence[str], found: Mapping[str, object]
) -> dict[str, str]:
    """The tool's identifiers ``identifying`` the text gives, less those ``found`` holds.

    Each by its label, then the one left unlabelled by its shape. An identifier-shaped
    token no label accounts for and no property is left for ("order 55123, wait, it's
    55124") leaves them all to the model.
    """
    open_ids = [name for name in identifying if name not in found]
    labelled = read_labelled(text, identifying)
    left = [name for name in open_ids if name not in labelled]
    unexplained = identifier_tokens(text, found.values()) - set(labelled.values())
    if labelled and len(unexplained) > (1 if len(left) == 1 else 0):
        return {}
    given = {name: value for name, value in labelled.items() if name in open_ids}
    if len(left) == 1 and len(identifying) - len(labelled) == 1:
        code = read_identifier(text, [*found.values(), *labelled.values()])
        if code is not None:
            given[left[0]] = code
    return given

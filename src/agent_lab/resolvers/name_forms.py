"""What a free-form property's words say of its value's form: a name as said, or not.

A property whose name or description says its value is no name (an email, a
path, an identifier, a number), or prescribes a form by example ("e.g. AAPL",
"in the format of City, State"), is not read as a name: a name read as written
may not be in that form. Forms that are a name as people say it ("in the format
of city name", "such as Boston", "e.g. Hearts, Spades") leave it readable. "The
city and state, e.g. San Francisco, CA" asks for a place and its region: a place
is read with the region the words give it, or not at all (``qualified``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from agent_lab.resolvers.regions import is_region

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["value_form"]

# Words of a property's name or description that say its value is not a name: an email, a
# path, an identifier, a number; or that its form is prescribed ("e.g. Boston, MA"). Whole
# words: "filed", "keyword" and "identify" say nothing of the form.
_NOT_A_NAME = re.compile(
    r"\b(?:e-?mail|url|uri|link|path|file|filename|directory|folder|id|ids|identifier|uuid|"
    r"code|number|phone|address|key|token|password|username|handle|hash|format|"
    r"e\.g\.|eg|i\.e\.|for example|such as|for instance)(?:e?s)?(?![A-Za-z])",
    re.IGNORECASE,
)


# An example of a place and its region in a description: "e.g. San Francisco, CA".
_PLACE_EXAMPLE = re.compile(
    r"(?:e\.g\.|for example|such as)[,:]?\s+['\"]?[A-Z][\w.'-]*(?:\s[A-Z][\w.'-]*)*,\s*"
    r"([A-Z][A-Za-z]*(?:\s[A-Z][a-z]+)*)"
)
# A form that is a name as people say it: "in the format of city name", "It should format
# as city name such as Boston", "e.g. Gravity", "e.g. Hearts, Spades". A name read as said
# is in that form. Not a code ("e.g. AAPL"), a name and its region ("e.g. Boston, MA": see
# ``qualified``), nor words in lower case ("e.g. 'Amazon rainforest'": said "the Amazon
# rainforest", a capitalised run would read "Amazon").
_NAME_FORM = re.compile(
    r"\b(?:(?:in\s+)?(?:the\s+)?(?:format|form)(?:ted)?\s+(?:of|as)|format\s+it\s+as)\s+"
    r"(?:a\s+|the\s+)?(?:full\s+)?(?:city|state|country|town|place|person's|person)"
    r"(?:\s+name)?+\b(?!\s*,|\s+(?:and|or)\b)",
    re.IGNORECASE,
)
# Each example a quoted or bare run of one to three capitalised words; examples joined by
# a comma, "or" or "and". A word ends at a letter or digit (no quote inside it) and each
# repeat needs its joiner, so no text is matched two ways: linear, not exponential, time.
_EXAMPLE = r"['\"]?[A-Z][a-z][a-z0-9-]*(?:\s[A-Z][a-z][a-z0-9-]*){0,2}['\"]?"
_NAME_EXAMPLES = re.compile(
    r"(?:e\.g\.|eg\.|for example|for instance|such as|like)[,:]?\s+"
    rf"({_EXAMPLE}(?:(?:,\s*|\s+(?:or|and)\s+){_EXAMPLE})*)"
    r"(?:,?\s*etc\.?)?(?=\s*(?:[.;)]|$))"
)


def _named_form(description: str) -> str:
    """``description`` without the forms that are a name as said (``_NAME_FORM``)."""
    said = _NAME_FORM.sub(" ", description)
    for match in _NAME_EXAMPLES.finditer(said):
        examples = re.split(r",\s*|\s+(?:or|and)\s+", match.group(1).strip(" ,"))
        if not any(is_region(example.strip("'\"")) for example in examples[1:]):
            said = said.replace(match.group(0), " ")
    return said


def value_form(name: Sequence[str], description: str) -> Literal["name", "qualified"] | None:
    """``name`` (its words) and ``description``'s form of the value: ``None`` when no name.

    ``qualified``: a place and its region ("e.g. Boston, MA"); ``name``: a name as said.
    """
    description = description[:500]  # a client's text: bounded before any pattern reads it
    example = _PLACE_EXAMPLE.search(description)
    qualified = example is not None and is_region(example.group(1))
    said = _PLACE_EXAMPLE.sub(" ", description) if qualified else description
    said = _named_form(said)
    if _NOT_A_NAME.search(" ".join(name)) or _NOT_A_NAME.search(said):
        return None
    return "qualified" if qualified else "name"

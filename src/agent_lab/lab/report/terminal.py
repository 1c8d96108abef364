"""Text for the terminal from strings nobody vetted: no markup, no control sequences.

A model name, a case's text or a workload's name can hold rich markup
(``[/oops]`` crashed the report, ``[link=...]`` made a link) or ANSI and OSC
escape sequences that a terminal would obey. Everything the lab prints from
user or model data goes through ``plain`` (for rich) or ``printable`` (for
plain streams).
"""

from __future__ import annotations

import re

from rich.text import Text

__all__ = ["plain", "printable"]

# C0 and C1 controls and DEL (but tab and newline), and the invisible ones that reorder or
# hide text (bidi overrides and isolates, zero-width marks): a value shown for review must
# look like what it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` with every control character shown as its escape, never obeyed."""
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: object) -> Text:
    """A rich ``Text`` of ``text`` as it is: markup is not interpreted, controls are escaped."""
    return Text(printable(str(text)))

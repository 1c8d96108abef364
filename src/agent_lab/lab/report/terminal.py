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

# C0 and C1 controls and DEL, but for tab and newline.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with every control character shown as its escape, never obeyed."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def plain(text: object) -> Text:
    """A rich ``Text`` of ``text`` as it is: markup is not interpreted, controls are escaped."""
    return Text(printable(str(text)))

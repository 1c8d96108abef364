r"""Text that is valid UTF-8 whatever was sent: each lone surrogate written as its escape.

A lone UTF-16 surrogate is no character and has no UTF-8 form, yet a Python
string can hold one: Python's JSON parser turns a model's ``"\udc80"`` into
one, and a non-UTF-8 byte in a file name or argument becomes one. SQLite,
protobuf and a UTF-8 file all refuse it. Where such text is written (the
results store, span attributes) it is escaped, as the six characters
``\udc80``: nothing is lost from sight, and the output stays valid.
"""

from __future__ import annotations

import re

__all__ = ["escape_surrogates"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    r"""``text`` with each lone surrogate written as its escape, e.g. ``\udc80``."""
    # The common case costs one C-level scan: ASCII text holds no surrogate.
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")

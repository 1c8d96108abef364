"""The report's counted nouns: "1 case", "2 cases", one helper for every page and table."""

from __future__ import annotations

__all__ = ["counted"]


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``number`` and ``noun``, the noun plural unless the number is exactly one.

    Args:
        number: How many.
        noun: The singular ("case").
        plural: The plural where it is not the singular plus "s" ("policies").
    """
    return f"{number} {noun if number == 1 else plural or noun + 's'}"

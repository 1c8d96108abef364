"""One colour per policy, the same on every chart and in the terminal (L12)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["REFERENCE_COLOR", "policy_colors"]

_BUILT_IN: Final = {
    "deterministic-first": "#1f6feb",
    "llm-always": "#d1242f",
    "deterministic-only": "#1a7f37",
}
_OTHERS: Final = ("#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a")
REFERENCE_COLOR: Final = "#57606a"
"""Baselines drawn as reference lines (always-decline, the oracle)."""


def policy_colors(policies: Sequence[str]) -> dict[str, str]:
    """Each policy's colour: the built-in policies keep theirs, others take the rest in order."""
    colors: dict[str, str] = {}
    spare = iter(_OTHERS)
    for policy in policies:
        if policy in colors:
            continue
        colors[policy] = _BUILT_IN.get(policy) or next(spare, _OTHERS[len(colors) % len(_OTHERS)])
    return colors

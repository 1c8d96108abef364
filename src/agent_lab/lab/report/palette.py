"""Colours: one per policy, the same on every chart and in the terminal, and one per status (L12).

Policies are drawn in saturated mid-tone colours; how a trial ended is drawn
in light tints of its own, so that a status can never be read as a policy
(a test holds every status colour far from every policy colour in CIELAB).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from agent_lab.log_replay.trial_status import TrialStatus

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["POLICY_PALETTE", "REFERENCE_COLOR", "STATUS_COLORS", "STATUS_EDGE", "policy_colors"]

_BUILT_IN: Final = {
    "deterministic-first": "#1f6feb",
    "llm-always": "#d1242f",
    "deterministic-only": "#1a7f37",
}
_OTHERS: Final = ("#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a")
POLICY_PALETTE: Final = (*_BUILT_IN.values(), *_OTHERS)
"""Every colour a policy can be drawn in."""
REFERENCE_COLOR: Final = "#57606a"
"""Baselines drawn as reference lines (always-decline, the oracle)."""

STATUS_COLORS: Final[Mapping[TrialStatus, str]] = MappingProxyType({
    TrialStatus.SUCCESS: "#b6c2cf",
    TrialStatus.MISSING_INFORMATION: "#f2c46d",
    TrialStatus.INVALID_ARGUMENTS: "#f4a09c",
    TrialStatus.UNKNOWN_EVENT: "#c2b3f5",
    TrialStatus.FALLBACK_FAILED: "#f3a6d2",
    TrialStatus.HANDLER_ERROR: "#8fd8e6",
    TrialStatus.DEFINITION_ERROR: "#b5dca0",
    TrialStatus.ERROR: "#fff07a",
})  # fmt: skip
"""How a trial ended: light tints, none near a policy's colour."""
STATUS_EDGE: Final = "#6e7781"
"""The outline of a status segment: a light tint needs one on a white page."""


def policy_colors(policies: Sequence[str]) -> dict[str, str]:
    """Each policy's colour: the built-in policies keep theirs, others take the rest in order."""
    colors: dict[str, str] = {}
    spare = iter(_OTHERS)
    for policy in policies:
        if policy in colors:
            continue
        colors[policy] = _BUILT_IN.get(policy) or next(spare, _OTHERS[len(colors) % len(_OTHERS)])
    return colors

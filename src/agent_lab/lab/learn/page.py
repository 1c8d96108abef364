"""The HTML page of ``agent-lab learn``: the held-out gain, and the rules that gave most of it.

Self-contained, no script, no network, in the shadow page's style. What it
shows is what ``learn`` prints: coverage and agreement on the held-out
calls without and with the rules, overall and per tool, with intervals; the
requests and tokens the new coverage would save there; and the kept rules,
those with the most held-out calls right first.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from agent_lab.lab.learn.tables import gain_lines
from agent_lab.lab.shadow.page import log_templates
from agent_lab.lab.shadow.tables import share

if TYPE_CHECKING:
    from pathlib import Path

    from agent_lab.lab.learn.learning import Learned

__all__ = ["render_learn_page"]

TOP = 25
"""Rules listed: the ones with the most held-out calls right."""


_TEMPLATES = log_templates("agent_lab.lab.learn")


def render_learn_page(target: Path, learned: Learned, *, rules_file: str) -> Path:
    """Write the page of what ``learn`` kept and gained to ``target``."""
    rules = sorted(
        learned.rules.rules, key=lambda r: (-r.evidence.right, r.kind, r.tool, r.phrase or "")
    )
    by_tool = sorted(
        learned.gain.by_tool.items(),
        key=lambda item: (item[1][0].covered - item[1][1].covered, item[0]),
    )
    text = _TEMPLATES.get_template("learn.html.j2").render(
        headline=gain_lines(learned),
        before=learned.gain.before,
        after=learned.gain.after,
        by_tool=by_tool,
        rules=rules[:TOP],
        kept=len(rules),
        kinds=sorted(Counter(r.kind for r in rules).items()),
        refused=sorted(Counter(r.reason for r in learned.verdicts.refused).items()),
        rules_file=rules_file,
        share=share,
    )
    target.write_text(text, encoding="utf-8")
    return target

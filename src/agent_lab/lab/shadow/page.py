"""The HTML page of a log replay: self-contained, no script, no network, in the report's style."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from agent_lab.lab.report.terminal import printable
from agent_lab.lab.shadow.tables import share

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from agent_lab.strict_json import JSONObject

__all__ = ["log_templates", "render_page"]


def _shown(value: object) -> object:
    # Control characters in logged text are shown escaped, as in the terminal.
    if isinstance(value, str) and not isinstance(value, Markup):
        return printable(value)
    return value


def log_templates(package: str) -> Environment:
    """The templates of a page of logged words: autoescaped, controls shown as escapes.

    Every string on such a page came from a log (``shadow``'s page, ``learn``'s).
    """
    return Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        finalize=_shown,
    )


_TEMPLATES = log_templates("agent_lab.lab.shadow")

CAUSES = {
    "arguments": "the same tool, other values",
    "other_tool": "another tool",
    "acted": "acted where the model answered in words",
    "calls": "one call where the model made several",
}


def _share(figure: JSONObject) -> str:
    """A ``figures.rate`` document as "rate [low, high]", "n/a" of none."""
    right, of = figure.get("right"), figure.get("of")
    if not isinstance(right, int) or not isinstance(of, int):
        return "n/a"
    return share(right, of)


def render_page(
    target: Path, *, document: JSONObject, headline: Sequence[str], logs: Sequence[Path | str]
) -> Path:
    """Write the page of ``document`` (``ShadowFigures.as_json``) to ``target``."""
    text = _TEMPLATES.get_template("shadow.html.j2").render(
        document=document,
        headline=headline,
        logs=[str(path) for path in logs],
        share=_share,
        causes=CAUSES,
    )
    target.write_text(text, encoding="utf-8")
    return target

"""The HTML report in a real headless Chromium: every chart renders, no console errors, offline.

At 1280 and 390 pixels it measures every text as rendered, the charts' and
the page's: none under ``MIN_TEXT_PX``, none further than ``TEXT_RATIO`` from
the body text, and the charts' text all at one size.
"""

from __future__ import annotations

import io
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from playwright.sync_api import Page, sync_playwright

if TYPE_CHECKING:
    from playwright.sync_api import Browser

from agent_lab.cli import run
from agent_lab.lab.report.render import CHARTS
from tests.conftest import REPO_ROOT, corpus

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = REPO_ROOT / "artifacts"
REQUIRE = "AGENT_LAB_REQUIRE_BROWSER"
"""Set (to anything) to make a missing Chromium a failure: .ci/run sets it."""


def need_chromium() -> None:
    """Skip with the reason where no Chromium is installed, unless the run requires it."""
    if Path(CHROMIUM).exists():
        return
    reason = (
        "Chromium is not installed (Debian: apt-get install chromium); "
        "the report's browser test needs it"
    )
    if os.environ.get(REQUIRE):
        pytest.fail(f"{reason}, and {REQUIRE} is set", pytrace=False)
    pytest.skip(reason)


SCREENSHOTS = "AGENT_LAB_SCREENSHOTS"
"""A folder to save the report's screenshots in too (the docs' images come from there)."""
WIDTHS = {"wide": 1280, "phone": 390}
MIN_TEXT_PX = 9
"""No text smaller, in CSS pixels, at any width: the least a phone shows legibly."""
TEXT_RATIO = 1.6
"""Every text's size within this factor of the body text's, either way. The page's
largest text, its title, is 1.6 times the body (the classic step from body to
headline); the same factor below keeps every label readable wherever the body is,
and together they stop a chart's text from dwarfing, or vanishing beside, the prose."""
CHART_TEXT_SPREAD = 1.25
"""The largest text in the charts over the smallest: one scale for every chart (titles
and labels one step above ticks and legends), where a chart stretched to the page's
width once drew its text three times as large as another's."""
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

# Every text node's font size; in the charts, every text's (a <tspan>'s for a label
# drawn in parts) font size and box height, scaled by the chart's transform (rotation
# included) to the screen.
MEASURE = """() => {
  const html = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || element.closest("svg") || !element.getClientRects().length) {
      continue;
    }
    const px = parseFloat(getComputedStyle(element).fontSize);
    html.push([node.textContent.trim().slice(0, 60), px]);
  }
  const svg = [];
  const clipped = [];
  for (const chart of document.querySelectorAll("svg")) {
    const panel = chart.getBoundingClientRect();
    const inner = document.createTreeWalker(chart, NodeFilter.SHOW_TEXT);
    for (let node = inner.nextNode(); node; node = inner.nextNode()) {
      const element = node.parentElement;  // a <text>, or a <tspan> of one
      if (!node.textContent.trim() || element.closest("metadata, style, title")) {
        continue;
      }
      const m = element.getScreenCTM();
      const scale = Math.hypot(m.a, m.b);
      svg.push([
        node.textContent.slice(0, 60),
        parseFloat(getComputedStyle(element).fontSize) * scale,
        element.getBBox().height * scale,
      ]);
      const box = element.getBoundingClientRect();
      if (box.left < panel.left - 0.5 || box.right > panel.right + 0.5
          || box.top < panel.top - 0.5 || box.bottom > panel.bottom + 0.5) {
        clipped.push(node.textContent.slice(0, 60));
      }
    }
  }
  const body = parseFloat(getComputedStyle(document.body).fontSize);
  return {body, html, svg, clipped};
}"""


@dataclass(frozen=True, slots=True)
class TextSizes:
    """Rendered text sizes on one page at one width, in CSS pixels."""

    body: float
    html: list[tuple[str, float]]
    """Each text node of the page, and its font size."""
    svg: list[tuple[str, float, float]]
    """Each chart text, its font size and its box's height, as rendered."""
    clipped: list[str]
    """Chart text drawn past its panel's edge, where the page cuts it off."""


def measure(page: Page) -> TextSizes:
    """The page's text sizes as Chromium renders them."""
    found = cast("dict[str, Any]", page.evaluate(MEASURE))
    return TextSizes(
        body=float(found["body"]),
        html=[(str(text), float(px)) for text, px in found["html"]],
        svg=[(str(text), float(px), float(box)) for text, px, box in found["svg"]],
        clipped=[str(text) for text in found["clipped"]],
    )


def check_text_sizes(page: Page, where: str) -> TextSizes:
    """Every text at least ``MIN_TEXT_PX``, within ``TEXT_RATIO`` of the body, none cut off;
    one scale for every chart."""
    sizes = measure(page)
    low, high = max(MIN_TEXT_PX, sizes.body / TEXT_RATIO), sizes.body * TEXT_RATIO
    every = [(text, px) for text, px in sizes.html] + [(text, px) for text, px, _ in sizes.svg]
    assert sizes.svg, where
    off = [(text, round(px, 1)) for text, px in every if not low <= px <= high + 0.01]
    assert off == [], f"{where}: text outside [{low:.1f}, {high:.1f}] px: {off[:10]}"
    small_boxes = [(text, round(box, 1)) for text, _, box in sizes.svg if box < MIN_TEXT_PX]
    assert small_boxes == [], (
        f"{where}: chart text boxes under {MIN_TEXT_PX} px: {small_boxes[:10]}"
    )
    # The browser's font may be wider than the one matplotlib measured: none may be cut off.
    assert sizes.clipped == [], f"{where}: chart text past its panel's edge: {sizes.clipped[:10]}"
    chart_px = [px for _, px, _ in sizes.svg]
    assert max(chart_px) / min(chart_px) <= CHART_TEXT_SPREAD, (where, min(chart_px), max(chart_px))
    return sizes


def open_page(browser: Browser, width: int, problems: list[str], requests: list[str]) -> Page:
    """A page at ``width`` (a phone's, as a phone lays it out, under 600), recording errors."""
    phone = width < 600
    page = browser.new_page(viewport={"width": width, "height": 900}, is_mobile=phone)
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    return page


def demo_report(tmp_path: Path) -> Path:
    db, html = tmp_path / "r.sqlite", tmp_path / "report.html"
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "60", "--db", str(db),
        "--provider", "simulated", "--llm-profile", "typical", "--simulated-latency", "2,4",
        "--no-progress",
    ]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    assert run(["report", str(db), "--html", str(html)], stdout=out, stderr=err) == 0
    return html


def sgd_report(tmp_path: Path) -> Path:
    folder, db, html = tmp_path / "sgd", tmp_path / "s.sqlite", tmp_path / "report.html"
    out, err = io.StringIO(), io.StringIO()
    assert run(["import", "sgd", str(corpus("sgd", "dev")), "--out", str(folder)],
               stdout=out, stderr=err) == 0, err.getvalue()  # fmt: skip
    argv = [
        "run", str(folder / "workload-payload.jsonl"), "--plugins", str(folder), "--limit", "60",
        "--db", str(db), "--provider", "simulated", "--llm-profile", "typical",
        "--simulated-latency", "2,4", "--no-progress",
    ]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    assert run(["report", str(db), "--html", str(html)], stdout=out, stderr=err) == 0
    return html


@pytest.mark.parametrize("workload", ["demo", "sgd"])
def test_the_report_renders_every_section_offline_without_console_errors(
    tmp_path: Path, workload: str
) -> None:
    """Open the report in Debian's Chromium (via Playwright), with the network cut off."""
    need_chromium()
    html = demo_report(tmp_path) if workload == "demo" else sgd_report(tmp_path)
    problems: list[str] = []
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for label, width in WIDTHS.items():
                page = open_page(browser, width, problems, requests)
                page.goto(html.as_uri())
                page.wait_for_load_state("load")
                check_sections(page, width)
                check_text_sizes(page, f"{workload} at {width} px")
                # The page itself never scrolls sideways; wide tables scroll in their box.
                assert page.evaluate("document.documentElement.scrollWidth") <= width, label
                ARTIFACTS.mkdir(exist_ok=True)
                shot = f"report-{workload}-{width}.png"
                page.screenshot(path=str(ARTIFACTS / shot), full_page=True)
                if os.environ.get(SCREENSHOTS):
                    page.screenshot(path=str(Path(os.environ[SCREENSHOTS]) / shot), full_page=True)
                page.close()
        finally:
            browser.close()
    assert problems == []
    assert all(url.startswith(("file://", "data:")) for url in requests), requests


def check_sections(page: Page, width: int) -> None:
    """The headline, both breakdowns, the trade-off, the cases; every chart drawn."""
    headline = page.locator("#found ul.headline li")
    assert headline.count() >= 2
    assert "requests with no LLM call" in headline.first.inner_text()
    assert "intervals are 95%" in headline.last.inner_text()
    for table in ("#summary", "#by-category-table", "#by-event-table"):
        assert page.locator(f"{table} tbody tr").count() >= 3, table
    assert page.locator("#lessons h3").count() >= 1
    assert page.locator("#lessons table.lessons tbody tr").count() >= 1
    assert [a.get_attribute("href") for a in page.locator("nav.toc a").all()] == [
        "#found", "#tradeoff", "#policies", "#by-category", "#by-event", "#lessons",
        "#llm-calls", "#more",
    ]  # fmt: skip
    check_llm_calls(page)
    for chart in CHARTS:
        panels = page.locator(f'section.chart[data-chart="{chart}"] svg')
        assert panels.count() >= 1, chart
        for svg in panels.all():
            box = svg.bounding_box()
            assert box is not None, chart
            # Drawn at its own size, which a phone shows unscaled: never a sliver, never wider.
            assert 300 < box["width"] <= min(width, 400), (chart, box)
            assert box["height"] > 100, (chart, box)
            # Something drawn: marks, not only the axes' frame.
            assert svg.locator("path").count() > 10, chart


def check_llm_calls(page: Page) -> None:
    """Why the LLM was called: avoidability per policy, the ranking, the called cases."""
    summary = page.locator("#llm-calls table.calls-summary tbody tr")
    assert summary.count() == 3  # one row per policy
    first_of = {row.locator("td").first.inner_text(): row for row in summary.all()}
    cells = first_of["deterministic-first"].locator("td").all_inner_texts()
    called, avoidable, unavoidable, outside = (int(cell) for cell in cells[2:6])
    assert called > 0
    assert avoidable + unavoidable + outside == called
    ranking = page.locator("#llm-calls table.avoidable tbody tr")
    assert ranking.count() >= 1
    top = ranking.first.locator("td").all_inner_texts()
    assert top[0] == "deterministic-first"  # LLM-always's calls are its policy, not a gap
    assert top[2].startswith(("/", "(routing)"))
    assert int(top[3]) >= 1
    assert "\u201c" in top[7]  # a phrasing, quoted
    called_rows = page.locator("#llm-calls table.called tbody tr")
    assert called_rows.count() >= 1
    row = called_rows.first.locator("td").all_inner_texts()
    assert row[1]  # the case's words
    assert row[5].startswith(("right", "wrong"))


def test_the_sweep_page_shows_its_chart_and_break_even(tmp_path: Path) -> None:
    """agent-lab sweep's page: the charts drawn, the break-even stated, offline; at 1280 and at
    390 pixels, no sideways scroll and every text measured as the report's is."""
    need_chromium()
    db, html = tmp_path / "s.sqlite", tmp_path / "sweep.html"
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "sweep", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "30", "--db", str(db),
        "--vary", "wrong_value=0,0.3", "--no-progress", "--warmup", "0", "--html", str(html),
    ]  # fmt: skip
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    problems: list[str] = []
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for width in WIDTHS.values():
                page = open_page(browser, width, problems, requests)
                page.goto(html.as_uri())
                page.wait_for_load_state("load")
                panels = page.locator('section.chart[data-chart="sweep"] svg')
                assert panels.count() == 2  # accuracy, and LLM calls
                for svg in panels.all():
                    box = svg.bounding_box()
                    assert box is not None
                    assert 300 < box["width"] <= min(width, 400)
                    assert svg.locator("path").count() > 10
                assert "break-even wrong_value" in page.locator("#break-even").inner_text()
                assert page.locator("#points tbody tr").count() == 2
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                check_text_sizes(page, f"the sweep at {width} px")
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"sweep-{width}.png"), full_page=True)
                page.close()
        finally:
            browser.close()
    assert problems == []
    assert all(url.startswith(("file://", "data:")) for url in requests), requests

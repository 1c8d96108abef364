"""The HTML report in a real headless Chromium: every chart renders, no console errors, offline."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from agent_lab.cli import run
from agent_lab.lab.report import CHARTS
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
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            for label, width in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.on(
                    "console",
                    lambda message: (
                        problems.append(message.text) if message.type == "error" else None
                    ),
                )
                page.on("pageerror", lambda error: problems.append(str(error)))
                page.on("request", lambda request: requests.append(request.url))
                page.goto(html.as_uri())
                page.wait_for_load_state("load")
                check_sections(page, width)
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
        svg = page.locator(f'section.chart[data-chart="{chart}"] svg')
        assert svg.count() == 1, chart
        box = svg.bounding_box()
        assert box is not None, chart
        # Drawn to the page's width, never wider, and never a sliver.
        assert min(width * 0.5, 300) < box["width"] <= width, (chart, box)
        assert box["height"] > (80 if width < 600 else 150), (chart, box)
        # Something drawn: marks, not only the axes' frame.
        assert page.locator(f'section.chart[data-chart="{chart}"] svg path').count() > 10, chart


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
    """agent-lab sweep's page: the accuracy/calls chart drawn, the break-even stated, offline."""
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
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on(
                "console",
                lambda message: problems.append(message.text) if message.type == "error" else None,
            )
            page.on("request", lambda request: requests.append(request.url))
            page.goto(html.as_uri())
            page.wait_for_load_state("load")
            svg = page.locator('section.chart[data-chart="sweep"] svg')
            assert svg.count() == 1
            box = svg.bounding_box()
            assert box is not None
            assert box["width"] > 400
            assert page.locator('section.chart[data-chart="sweep"] svg path').count() > 10
            assert "break-even wrong_value" in page.locator("#break-even").inner_text()
            assert page.locator("#points tbody tr").count() == 2
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "sweep-test.png"), full_page=True)
        finally:
            browser.close()
    assert problems == []
    assert all(url.startswith(("file://", "data:")) for url in requests), requests

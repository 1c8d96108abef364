"""The HTML report in a real headless Chromium: every chart renders, no console errors, offline."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from agent_lab.cli import run
from agent_lab.lab.report import CHARTS
from tests.conftest import REPO_ROOT

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


def test_the_report_renders_every_chart_offline_without_console_errors(tmp_path: Path) -> None:
    """Open the report in Debian's Chromium (via Playwright), with the network cut off."""
    need_chromium()
    db, html = tmp_path / "r.sqlite", tmp_path / "report.html"
    common = ["--provider", "simulated", "--simulated-latency", "2,4", "--no-progress"]
    out, err = io.StringIO(), io.StringIO()
    assert (
        run(
            [
                "run",
                "demo",
                "--plugins",
                "agent_lab.demo:plugins",
                "--limit",
                "40",
                "--db",
                str(db),
                *common,
            ],
            stdout=out,
            stderr=err,
        )
        == 0
    ), err.getvalue()
    assert run(["report", str(db), "--html", str(html)], stdout=out, stderr=err) == 0

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
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on(
                "console",
                lambda message: problems.append(message.text) if message.type == "error" else None,
            )
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.on("request", lambda request: requests.append(request.url))
            page.goto(html.as_uri())
            page.wait_for_load_state("load")
            for chart in CHARTS:
                svg = page.locator(f'section.chart[data-chart="{chart}"] svg')
                assert svg.count() == 1, chart
                box = svg.bounding_box()
                assert box is not None, chart
                assert box["width"] > 200, chart
                assert box["height"] > 150, chart
                assert page.locator(f'section.chart[data-chart="{chart}"] svg path').count() > 10, (
                    chart
                )
            assert "SIMULATED" in page.locator("body").inner_text()
            assert page.locator("#summary tbody tr").count() == 3
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "report-test.png"), full_page=True)
        finally:
            browser.close()
    assert problems == []
    assert all(url.startswith(("file://", "data:")) for url in requests), requests


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

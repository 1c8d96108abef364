"""The shadow page in a real headless Chromium: every section, offline, readable on a phone."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from agent_lab.cli import run
from tests.cli.test_shadow import TALKS, pairs_line
from tests.lab.report.test_report_browser import (
    ARGS,
    ARTIFACTS,
    CHROMIUM,
    MIN_TEXT_PX,
    TEXT_RATIO,
    WIDTHS,
    measure,
    need_chromium,
    open_page,
)

pytestmark = pytest.mark.slow


def test_the_shadow_page_shows_every_section_offline_and_readable(tmp_path: Path) -> None:
    need_chromium()
    log, html = tmp_path / "pairs.jsonl", tmp_path / "shadow.html"
    # A logged text with markup and a control character: shown as text, never run.
    talks = [*TALKS, ("get the weather forecast in Oslo <script>x()</script>\x1b[31m",
                      "get_weather", {"city": "Rome"})]  # fmt: skip
    log.write_text("".join(pairs_line(i, *t) + "\n" for i, t in enumerate(talks)))
    out, err = io.StringIO(), io.StringIO()
    assert run(["shadow", str(log), "--html", str(html)], stdout=out, stderr=err) == 0, (
        err.getvalue()
    )
    problems: list[str] = []
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for width in WIDTHS.values():
                page = open_page(browser, width, problems, requests)
                page.goto(html.as_uri())
                page.wait_for_load_state("load")
                assert "not accuracy" in page.locator("body").inner_text()
                assert (
                    "sent no request for 5 of the 6 tool calls"
                    in page.locator("#headline").inner_text()
                )
                assert page.locator("#by-tool tbody tr").count() == 3  # two tools, and all
                causes = page.locator("table.disagreements")
                assert causes.count() == 1
                assert "<script>" in causes.inner_text()  # shown, not run
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                sizes = measure(page)
                low, high = max(MIN_TEXT_PX, sizes.body / TEXT_RATIO), sizes.body * TEXT_RATIO
                off = [(t, round(px, 1)) for t, px in sizes.html if not low <= px <= high + 0.01]
                assert off == [], f"at {width} px: {off[:10]}"
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"shadow-{width}.png"), full_page=True)
                page.close()
        finally:
            browser.close()
    assert problems == []
    assert all(url.startswith(("file://", "data:")) for url in requests), requests

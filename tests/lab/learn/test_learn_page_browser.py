"""learn's page in a real headless Chromium: the gain, the rules, offline, readable on a phone."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from agent_lab.cli import run
from tests.lab.learn.test_learn import APPLE, COUNT, WINDY, line
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


def test_the_learn_page_shows_the_gain_and_the_rules_offline_and_readable(
    tmp_path: Path,
) -> None:
    need_chromium()
    log, rules, html = tmp_path / "logs.jsonl", tmp_path / "rules.json", tmp_path / "learn.html"
    # A phrase with markup and a control character: shown as text, never run.
    hostile = ("get the weather in <script>x()</script>\x1b[31m town in celsius",
               {"city": "Oslo", "unit": "celsius"})  # fmt: skip
    made = [line(n, *(hostile if n % 3 == 2 else WINDY if n % 2 else APPLE)) for n in range(COUNT)]
    log.write_text("".join(json.dumps(m) + "\n" for m in made))
    out, err = io.StringIO(), io.StringIO()
    argv = ["learn", str(log), "--out", str(rules), "--html", str(html)]
    argv += ["--min-precision", "0.9", "--min-support", "5"]
    assert run(argv, stdout=out, stderr=err) == 0, err.getvalue()
    assert f"Page: {html}" in out.getvalue().replace("\n", "")
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
                assert "held-out calls" in page.locator("#headline").inner_text()
                rows = page.locator("#gain tbody tr")
                assert rows.count() == 2  # one tool, and all
                assert "get_weather" in rows.first.inner_text()
                kept = page.locator("#rules tbody tr")
                assert kept.count() >= 2
                shown = page.locator("#rules").inner_text()
                assert "the big apple" in shown
                assert "31m town" in shown  # words of a terminal escape, as text
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                sizes = measure(page)
                low, high = max(MIN_TEXT_PX, sizes.body / TEXT_RATIO), sizes.body * TEXT_RATIO
                off = [(t, round(px, 1)) for t, px in sizes.html if not low <= px <= high + 0.01]
                assert off == [], f"at {width} px: {off[:10]}"
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"learn-{width}.png"), full_page=True)
                page.close()
        finally:
            browser.close()
    assert problems == []
    assert all(url.startswith(("file://", "data:")) for url in requests), requests

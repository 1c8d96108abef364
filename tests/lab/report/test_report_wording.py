"""The report's words: counts agree with their nouns, no parenthesis inside another (L12).

A checker reads the text a user sees (the page's, the charts' inside their
SVG, the terminal's) and finds "(1 cases)", "1 trials", "2 case"; the
reports it reads are built from the smallest stores, where a count of one
is everywhere.
"""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import agent_lab.demo
from agent_lab.cli import run
from agent_lab.kernel.models import Status
from agent_lab.lab.report.render import render_html
from agent_lab.lab.stats.metrics import compare, summarize
from agent_lab.log_replay.trial_status import TrialStatus
from tests.lab.factories import trial
from tests.lab.report.test_report import run_record

COUNT_NOUNS = {
    "call": "calls", "case": "cases", "category": "categories", "error": "errors",
    "event": "events", "group": "groups", "phrasing": "phrasings", "point": "points",
    "policy": "policies", "reason": "reasons", "repeat": "repeats", "request": "requests",
    "resample": "resamples", "row": "rows", "run": "runs", "setting": "settings",
    "token": "tokens", "trial": "trials",
}  # fmt: skip
"""The nouns the lab counts, singular and plural."""

# A whole number (not part of a decimal, a range or a word), an optional word between
# ("1 LLM calls", "1 shared cases"), then a counted noun. Spaces only: a line or a
# table cell ends a phrase.
_ONE = re.compile(rf"(?<![\w.,+\-/])1 (?:[A-Za-z]+ )?(?:{'|'.join(COUNT_NOUNS.values())})\b")
_MANY = re.compile(
    rf"(?<![\w.,+\-/])(?:0|[2-9]|[1-9]\d+) (?:[A-Za-z]+ )?(?:{'|'.join(COUNT_NOUNS)})\b(?!-)"
)


def agreement_errors(text: str) -> list[str]:
    """Every count whose noun disagrees with it: "1 cases", "(1 LLM calls)", "3 case"."""
    return [match.group() for pattern in (_ONE, _MANY) for match in pattern.finditer(text)]


# A possessive straight before a verb has lost its noun ("the break-even's comes from").
_DANGLING = re.compile(r"\b[\w-]+'s (?:comes?|is|are|was|were|has|have)\b")


def dangling_possessives(text: str) -> list[str]:
    """Every possessive whose noun went missing: "the break-even's comes from"."""
    return [match.group() for match in _DANGLING.finditer(text)]


def nested_parentheses(text: str) -> list[str]:
    """Every line that opens a parenthesis inside another."""
    found: list[str] = []
    for line in text.splitlines():
        depth = 0
        for character in line:
            depth += {"(": 1, ")": -1}.get(character, 0)
            if depth > 1:
                found.append(line.strip())
                break
    return found


class _Text(HTMLParser):
    """A page's text as a reader sees it, the charts' SVG text included, one line per block.

    Left out: what the page shows as data, not as its own words (a case's
    text, JSON, code), and what it never shows (style, the SVG's metadata).
    """

    BREAKS = frozenset({"br", "caption", "div", "h1", "h2", "h3", "li", "p", "section",
                        "td", "text", "th", "tr", "tspan"})  # fmt: skip
    HIDDEN = frozenset({"code", "metadata", "style", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.hidden: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BREAKS:
            self.lines.append("\n")
        if tag in self.HIDDEN or (tag == "td" and ("class", "text") in attrs):
            self.hidden.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and self.hidden[-1] == tag:
            self.hidden.pop()
        if tag in self.BREAKS:
            self.lines.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.lines.append(data)


def page_text(html: str) -> str:
    """The words of an HTML page that are the lab's own, a line per block."""
    reader = _Text()
    reader.feed(html)
    return re.sub(r"[ \t]+", " ", "".join(reader.lines))


@pytest.mark.parametrize(
    ("text", "errors"),
    [
        ("paraphrase (1 cases)", ["1 cases"]),
        ("1 trials", ["1 trials"]),
        ("deterministic-first (1 LLM calls)", ["1 LLM calls"]),
        ("1 shared cases", ["1 shared cases"]),
        ("3 case", ["3 case"]),
        ("12 policy", ["12 policy"]),
        ("1 case, 1 trial, 2 calls", []),
        ("11 cases and 21 trials", []),
        ("0.1 calls per trial, 1.5 calls", []),
        ("0 cases", []),
        ("[1, 2] trials", []),
        ("policy\n1\ncases", []),
        ("3 case-insensitive", []),
    ],
    ids=[
        "one-cases", "one-trials", "one-adjective-calls", "one-shared-cases", "three-case",
        "twelve-policy", "agreed", "eleven-and-twenty-one", "decimals", "zero", "a-range",
        "across-lines", "a-compound",
    ],
)  # fmt: skip
def test_the_agreement_check_finds_counts_that_disagree_with_their_nouns(
    text: str, errors: list[str]
) -> None:
    """The checker itself: each disagreement found, and nothing else."""
    assert agreement_errors(text) == errors


def test_the_possessive_check_finds_one_that_lost_its_noun() -> None:
    """The checker itself: "the break-even's comes from" is found; "the break-even's interval
    comes from", "it's" and "what's" are not."""
    assert dangling_possessives("the break-even's comes from resampling") == ["break-even's comes"]
    assert dangling_possessives("the break-even's interval comes from; it's here") == []


def test_the_nesting_check_finds_a_parenthesis_inside_another() -> None:
    """The checker itself: one level is fine; two on one line are found."""
    assert nested_parentheses("a (b) (c)\nd (e, f)") == []
    assert nested_parentheses("x (an assumption (round figures))") == [
        "x (an assumption (round figures))"
    ]


def test_a_report_of_one_case_says_1_case_everywhere(tmp_path: Path) -> None:
    """Lessons, the LLM-called cases and the breakdown charts each count one case as "1 case"."""
    trials = [
        trial("c1", "a", correct=False, llm_calls=1, status=TrialStatus.MISSING_INFORMATION,
              expected_status=Status.SUCCESS, reason="missing"),
        trial("c1", "b"),
    ]  # fmt: skip
    metrics = summarize(trials)
    html = render_html(
        run_record(), trials, metrics, compare(trials, "b"), tmp_path / "one.html"
    ).read_text(encoding="utf-8")
    text = page_text(html)
    assert agreement_errors(text) == []
    # Each place that counts cases is there to be checked: two headings and a chart.
    assert text.count("(1 case)") >= 2, text
    assert "complete: 1 case" in text


def cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run(list(argv), stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


FAST = ["--provider", "simulated", "--llm-profile", "typical", "--simulated-latency", "2,4",
        "--no-progress", "--warmup", "0"]  # fmt: skip


DEMO_WORKLOAD = Path(agent_lab.demo.__file__).parent / "workload.jsonl"


def one_case_workload(folder: Path) -> Path:
    """The demo's first paraphrase case alone: the resolvers miss it, the model reads it."""
    lines = DEMO_WORKLOAD.read_text(encoding="utf-8").splitlines()
    line = next(line for line in lines if '"paraphrase"' in line)
    path = folder / "one.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("size", ["one case", "one per category"])
def test_reports_of_small_stores_have_no_agreement_errors_nor_nested_parentheses(
    tmp_path: Path, size: str
) -> None:
    """A real store of one case (or of one per category): the terminal report, the HTML
    report and the sweep's page, every count agreeing, no parenthesis in another, no
    possessive without its noun."""
    db, html, sweep = tmp_path / "r.sqlite", tmp_path / "r.html", tmp_path / "sweep.html"
    workload = (
        ["demo", "--limit", "1"] if size != "one case" else [str(one_case_workload(tmp_path))]
    )
    plugins = ["--plugins", "agent_lab.demo:plugins"]
    cli("run", *workload, *plugins, "--db", str(db), *FAST)
    terminal = cli("report", str(db), "--html", str(html), "--wide")
    swept = cli("sweep", *workload, *plugins, "--db", str(tmp_path / "s.sqlite"),
                "--vary", "wrong_value=0,0.5", "--no-progress", "--warmup", "0",
                "--html", str(sweep))  # fmt: skip
    texts = {
        "terminal report": terminal,
        "HTML report": page_text(html.read_text(encoding="utf-8")),
        "sweep terminal": swept,
        "sweep page": page_text(sweep.read_text(encoding="utf-8")),
    }
    for where, text in texts.items():
        assert agreement_errors(text) == [], where
        assert nested_parentheses(text) == [], where
        assert dangling_possessives(text) == [], where
    # The counts of one are there to be checked, in the charts' text too.
    assert ": 1 case" in texts["HTML report"]
    if size == "one case":
        assert "(1 case)" in texts["HTML report"]

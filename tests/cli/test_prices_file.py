"""A --prices file whose prices cannot be computed with is refused before the first request.

``sNaN`` or ``1e999999`` as a price was accepted, then raised at the first
costed reply: every LLM trial became a ``policy_error`` with 0 calls although
its requests were sent (and paid for).
"""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from agent_lab.cli import run
from agent_lab.providers import Price, PriceTable

if TYPE_CHECKING:
    from pathlib import Path

FAST = ["--provider", "simulated", "--simulated-latency", "1,2", "--no-progress"]
DEMO_RUN = ["run", "demo", "--plugins", "agent_lab.demo:plugins", "--limit", "9"]


def entry(input_price: str) -> str:
    return f'{{"simulated": {{"input_per_mtok": {input_price}, "output_per_mtok": "0.6"}}}}'


BAD_PRICES = {
    "sNaN": (entry('"sNaN"'), "input_per_mtok sNaN is not a finite number"),
    "-sNaN": (entry('"-sNaN"'), "input_per_mtok -sNaN is not a finite number"),
    "NaN": (entry('"NaN"'), "input_per_mtok NaN is not a finite number"),
    "Infinity": (entry('"Infinity"'), "input_per_mtok Infinity is not a finite number"),
    "1e999999 as text": (entry('"1e999999"'), "1E+999999 is more than 1000000 dollars"),
    "1e-999999 as text": (entry('"1e-999999"'), "1E-999999 is less than 1E-9 dollars"),
    "1e999999 as a number": (entry("1e999999"), "overflows a double"),
    "NaN as a number": (entry("NaN"), "NaN is not JSON"),
    "negative": (entry('"-0.15"'), "input_per_mtok -0.15 is negative"),
    "a boolean": (entry("true"), "input_per_mtok True is not a number"),
    "a list": (entry("[1]"), "input_per_mtok [1] is not a number"),
    "not a number": (entry('"cheap"'), "input_per_mtok 'cheap' is not a number"),
    "missing": ('{"simulated": {"input_per_mtok": "1"}}', "needs input_per_mtok and output"),
    "not an object": ('{"simulated": 3}', "needs an object of input_per_mtok"),
    "5000 deep": ('{"a": ' * 5000 + "1" + "}" * 5000, "nesting deeper than 8"),
    "repeated model": (
        '{"m": {"input_per_mtok": 1, "output_per_mtok": 1}, "m": {}}',
        "duplicate object key",
    ),
}


@pytest.mark.parametrize(("text", "said"), list(BAD_PRICES.values()), ids=list(BAD_PRICES))
def test_a_price_no_request_can_be_costed_with_is_exit_2_naming_file_and_entry(
    tmp_path: Path, text: str, said: str
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(text, encoding="utf-8")
    db = tmp_path / "r.sqlite"
    out, err = io.StringIO(), io.StringIO()
    code = run([*DEMO_RUN, "--db", str(db), *FAST, "--prices", str(prices)], stdout=out, stderr=err)
    message = err.getvalue()
    assert code == 2, message
    assert message.count("\n") == 1, message
    assert message.startswith(f"agent-lab: --prices: {prices}: "), message
    assert said in message
    if "simulated" in text and said.startswith("input_per_mtok"):
        assert "model 'simulated'" in message
    assert not db.exists()


def test_good_prices_still_cost_every_trial(tmp_path: Path) -> None:
    """The checks refuse only what cannot be a price: 0, tiny and large prices still work."""
    prices = tmp_path / "prices.json"
    table = {
        "simulated": {"input_per_mtok": "0.15", "output_per_mtok": 0.6},
        "free": {"input_per_mtok": 0, "output_per_mtok": "0E-5"},
        "dear": {"input_per_mtok": "150", "output_per_mtok": "600"},
        "cheap": {"input_per_mtok": "1e-9", "output_per_mtok": "1000000"},
    }
    prices.write_text(json.dumps(table), encoding="utf-8")
    loaded = PriceTable.from_file(prices)
    assert loaded.cost("simulated", 1_000_000, 1_000_000) == Decimal("0.75")
    assert loaded.cost("free", 10, 10) == 0
    db = tmp_path / "r.sqlite"
    out, err = io.StringIO(), io.StringIO()
    code = run([*DEMO_RUN, "--db", str(db), *FAST, "--prices", str(prices)], stdout=out, stderr=err)
    assert code == 0, err.getvalue()


@pytest.mark.parametrize(
    "value",
    [Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal(-1), Decimal("1e999999")],
    ids=str,
)
def test_a_price_that_cannot_be_computed_with_cannot_be_made(value: Decimal) -> None:
    """In code as from a file: a Price is checked when it is made, not at the first reply."""
    with pytest.raises(ValueError, match="output_per_mtok"):
        Price(Decimal(1), value)

"""Parquet keeps numbers as numbers: cost as an exact decimal, unknown as null; the case text."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa  # pyright: ignore[reportMissingTypeStubs]
import pyarrow.parquet as pq  # pyright: ignore[reportMissingTypeStubs]

from agent_lab.lab.results.export import DECIMAL_SCALE, write_tables
from agent_lab.lab.results.store import Store
from tests.lab.factories import new_run, trial


def test_parquet_cost_is_a_decimal_number_unknown_stays_null_and_text_is_kept(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "r.sqlite") as store:
        new_run(store)
        store.add_trials(
            "r1",
            [
                trial("a", cost=Decimal("0.000123456789012345678"), text="four minutes, tea"),
                trial("b", cost=None, text="=HYPERLINK(1)"),
                trial("c", cost=Decimal(0)),
            ],
        )
        (_, trials) = store.export("r1", tmp_path / "pq", fmt="parquet")
    table: Any = pq.read_table(trials)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    assert table.schema.field("cost").type == pa.decimal128(38, DECIMAL_SCALE)  # pyright: ignore[reportUnknownMemberType]
    costs = table.column("cost").to_pylist()  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    assert costs == [Decimal("0.000123456789012346"), None, Decimal(0)]
    # Parquet is not a spreadsheet: the text is as it was typed.
    texts = table.column("text").to_pylist()  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    assert texts[:2] == ["four minutes, tea", "=HYPERLINK(1)"]


def test_a_cost_that_is_not_a_finite_number_is_exported_as_unknown(tmp_path: Path) -> None:
    columns = ["cost"]
    rows: list[tuple[Any, ...]] = [("NaN",), ("1e40",), ("garbage",), ("0.5",)]
    (path,) = write_tables(
        {"t": (columns, rows)}, tmp_path, fmt="parquet", decimals=frozenset({"cost"})
    )
    table: Any = pq.read_table(path)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    assert table.column("cost").to_pylist() == [None, None, None, Decimal("0.5")]  # pyright: ignore[reportUnknownMemberType]

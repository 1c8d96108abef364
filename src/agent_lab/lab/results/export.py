"""Exporting stored tables as CSV or Parquet files, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agent_lab.errors import SettingError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["write_tables"]

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
DECIMAL_SCALE = 18
"""Digits after the point of a Parquet decimal column: a cost is exact to 1e-18 dollars."""
_QUANTUM = Decimal(1).scaleb(-DECIMAL_SCALE)


def _spreadsheet_safe(value: object) -> object:
    """A text cell a spreadsheet would run as a formula (``=HYPERLINK(...)``), quoted with ``'``.

    OWASP's advice for CSV injection: numbers stay numbers; only text is prefixed.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def write_tables(
    tables: dict[str, tuple[list[str], list[tuple[Any, ...]]]],
    folder: Path,
    *,
    fmt: str,
    decimals: frozenset[str] = frozenset(),
) -> list[Path]:
    """Write each table (its columns and rows) to ``folder/<name>.<fmt>``; return the paths.

    ``decimals`` names the columns stored as decimal text (a cost): Parquet
    gets them as ``decimal128(38, 18)`` numbers, CSV as the text itself.

    Raises:
        SettingError: ``fmt`` is neither ``csv`` nor ``parquet``.
    """
    if fmt not in ("csv", "parquet"):
        raise SettingError("format", f"{fmt!r} is not an export format: csv or parquet")
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table, (columns, rows) in tables.items():
        path = folder / f"{table}.{fmt}"
        if fmt == "csv":
            with path.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(columns)
                writer.writerows([_spreadsheet_safe(value) for value in row] for row in rows)
        else:
            # pyarrow takes about 0.3 s to import: only for a Parquet export.
            import pyarrow as pa  # pyright: ignore[reportMissingTypeStubs]  # noqa: PLC0415
            import pyarrow.parquet as pq  # pyright: ignore[reportMissingTypeStubs]  # noqa: PLC0415

            records = [dict(zip(columns, row, strict=True)) for row in rows]
            typed = [name for name in columns if name in decimals]
            for record in records:
                for name in typed:
                    record[name] = _decimal(record[name])
            number = pa.decimal128(38, DECIMAL_SCALE)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            inferred: Any = pa.Table.from_pylist(records).schema  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            schema: Any = pa.schema(  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                [
                    pa.field(f.name, number) if f.name in typed else f  # pyright: ignore[reportUnknownMemberType]
                    for f in inferred  # pyright: ignore[reportUnknownVariableType]
                ]
            )
            arrow: Any = pa.Table.from_pylist(records, schema=schema)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            pq.write_table(arrow, path)  # pyright: ignore[reportUnknownMemberType]
        written.append(path)
    return written


def _decimal(value: object) -> Decimal | None:
    # Stored as text so that no cost is rounded on its way in; a figure that is not
    # a finite number (a hand-edited file) is exported as unknown, never as 0.
    if value is None:
        return None
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        return None
    if not number.is_finite() or abs(number) >= Decimal(10) ** (38 - DECIMAL_SCALE):
        return None
    return number.quantize(_QUANTUM)

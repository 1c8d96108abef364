"""Exporting stored tables as CSV or Parquet files, safe to open in a spreadsheet."""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["write_tables"]

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _spreadsheet_safe(value: object) -> object:
    """A text cell a spreadsheet would run as a formula (``=HYPERLINK(...)``), quoted with ``'``.

    OWASP's advice for CSV injection: numbers stay numbers; only text is prefixed.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def write_tables(
    tables: dict[str, tuple[list[str], list[tuple[Any, ...]]]], folder: Path, *, fmt: str
) -> list[Path]:
    """Write each table (its columns and rows) to ``folder/<name>.<fmt>``; return the paths.

    Raises:
        ValueError: ``fmt`` is neither ``csv`` nor ``parquet``.
    """
    if fmt not in ("csv", "parquet"):
        raise ValueError(f"unknown export format {fmt!r}: csv or parquet")
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
            arrow: Any = pa.Table.from_pylist(records)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            pq.write_table(arrow, path)  # pyright: ignore[reportUnknownMemberType]
        written.append(path)
    return written

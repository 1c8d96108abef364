"""``shadow --engine ray``: Ray Data's local mode gives the figures one process gives.

The log is SGD dev rendered as chat and pairs lines, several thousand lines
over several files: plain, gzipped, and Parquet in both of its shapes (the
line as text, the record as columns). Ray runs in local mode on loopback,
started once for the module; the engine connects to it as to a cluster.
"""

from __future__ import annotations

import functools
import gzip
import importlib
import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agent_lab.cli import run
from agent_lab.errors import InputError, MissingInputError
from agent_lab.lab.shadow.run import ShadowSettings, shadow
from agent_lab.logs.exchanges import MAGIC as STORE_MAGIC
from agent_lab.logs.record import LogError
from agent_lab.providers.pricing import PriceTable
from tests.conftest import TEST_DATA
from tests.logs.sgd_logs import SGDLogs

if TYPE_CHECKING:
    from collections.abc import Iterator

    from agent_lab.agents.plugins import PluginSet
    from agent_lab.log_replay.figures import ShadowFigures

if os.environ.get("AGENT_LAB_REQUIRE_RAY"):
    # CI installs every extra: there, a Ray that does not import is a failure, never a skip.
    pa: Any = importlib.import_module("pyarrow")
    pq: Any = importlib.import_module("pyarrow.parquet")
    ray: Any = importlib.import_module("ray")
else:
    ray = pytest.importorskip(
        "ray", reason="the Ray engine needs the ray extra: uv sync --extra ray"
    )
    pq = pytest.importorskip("pyarrow.parquet", reason="Parquet logs need pyarrow (the ray extra)")
    pa = pytest.importorskip("pyarrow")

from agent_lab.lab.shadow.on_ray import shadow_on_ray
from agent_lab.lab.shadow.ray_blocks import RayEngine, log_sources, start_local_ray

pytestmark = pytest.mark.slow

COPIES = 6
"""SGD dev's 286 pairs and 112 chat lines, six times over: 2,388 lines."""


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    start_local_ray(ray, num_cpus=2)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The log in five files, each shape of file once."""
    folder = tmp_path_factory.mktemp("logs")
    rendered = SGDLogs(TEST_DATA / "sgd" / "dev")
    pairs = [line for _ in range(COPIES) for line in rendered.render("pairs")]
    chat = [line for _ in range(COPIES) for line in rendered.render("chat")]
    half = len(pairs) // 2
    plain = folder / "a-pairs.jsonl"
    plain.write_text("".join(line + "\n" for line in pairs[:half]))
    zipped = folder / "b-pairs.jsonl.gz"
    with gzip.open(zipped, "wt") as log:
        log.write("".join(line + "\n" for line in pairs[half:]))
    as_text = folder / "c-chat-lines.parquet"
    pq.write_table(pa.table({"line": chat[: len(chat) // 2]}), as_text, row_group_size=100)
    as_columns = folder / "d-chat-columns.parquet"
    records = [json.loads(line) for line in chat[len(chat) // 2 :]]
    pq.write_table(pa.Table.from_pylist(records), as_columns, row_group_size=100)
    chat_plain = folder / "e-chat.jsonl"
    chat_plain.write_text("".join(line + "\n" for line in chat))
    return [plain, zipped, as_text, as_columns, chat_plain]


def _no_plugins() -> PluginSet | None:
    return None


def _in_one_process(paths: list[Path], **settings: Any) -> ShadowFigures:
    return shadow(
        paths, ShadowSettings(**settings), load_plugins=_no_plugins, load_prices=PriceTable
    )


def _on_ray(paths: list[Path] | list[str], engine: RayEngine, **settings: Any) -> ShadowFigures:
    return shadow_on_ray(
        [str(path) for path in paths],
        ShadowSettings(**settings),
        engine,
        load_plugins=_no_plugins,
        load_prices=PriceTable,
    )


def _document(figures: ShadowFigures) -> dict[str, Any]:
    return figures.as_json(min_agreement=0.99, redact=False)


@pytest.fixture(scope="module")
def one_process(logs: list[Path]) -> dict[str, Any]:
    return _document(_in_one_process(logs))


@pytest.mark.parametrize(
    "engine",
    [RayEngine(workers=2, block_lines=97), RayEngine(workers=1)],
    ids=["2-workers-97-line-blocks", "1-worker-whole-files"],
)
def test_the_figures_equal_the_one_process_run(
    local_ray: None, logs: list[Path], one_process: dict[str, Any], engine: RayEngine
) -> None:
    assert one_process["calls"] > 2_000
    assert _document(_on_ray(logs, engine)) == one_process


def test_folders_and_globs_name_every_file_in_them_in_order(logs: list[Path]) -> None:
    folder = logs[0].parent
    assert log_sources([str(folder)]) == [str(path) for path in logs]
    assert log_sources([str(folder / "*.parquet")]) == [str(logs[2]), str(logs[3])]
    with pytest.raises(MissingInputError, match=r"nothing-here\.jsonl: no such log file"):
        log_sources([str(folder / "nothing-here.jsonl")])
    with pytest.raises(MissingInputError, match="no such log file"):
        log_sources([str(folder / "*.csv")])


@pytest.fixture
def broken(logs: list[Path], tmp_path: Path) -> Path:
    lines = logs[0].read_text().splitlines()
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join([*lines[:700], '{"request": [', *lines[700:]]) + "\n")
    return path


def test_a_bad_line_stops_the_run_naming_its_file_and_line(local_ray: None, broken: Path) -> None:
    with pytest.raises(LogError, match=f"{broken}:701"):
        _on_ray([broken], RayEngine(workers=2, block_lines=200))


def test_a_bad_line_skipped_is_counted_as_one_process_counts_it(
    local_ray: None, broken: Path
) -> None:
    engine = RayEngine(workers=2, block_lines=200)
    on_ray = _document(_on_ray([broken], engine, on_error="skip"))
    assert on_ray["skipped"] == {"malformed_json": 1}
    assert on_ray == _document(_in_one_process([broken], on_error="skip"))


def test_a_file_gone_before_it_is_read_stops_the_run(local_ray: None, logs: list[Path]) -> None:
    gone = logs[0].parent / "gone.jsonl"
    with pytest.raises(InputError, match=r"gone\.jsonl: no such log file"):
        _on_ray([logs[2], gone], RayEngine(workers=1))


def _dies_once(flag: str) -> PluginSet | None:
    """A plugin loader whose first worker process dies as it starts: Ray starts another."""
    marker = Path(flag)
    if not marker.exists():
        marker.touch()
        os._exit(1)
    return None


def test_a_worker_that_dies_is_replaced_and_the_figures_stay_whole(
    local_ray: None, logs: list[Path], tmp_path: Path
) -> None:
    chat = [logs[4]]
    figures = shadow_on_ray(
        [str(path) for path in chat],
        ShadowSettings(),
        RayEngine(workers=1, block_lines=50),
        load_plugins=functools.partial(_dies_once, str(tmp_path / "died")),
        load_prices=PriceTable,
    )
    assert (tmp_path / "died").exists()
    assert _document(figures) == _document(_in_one_process(chat))


def _cli(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert run(list(argv), stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


def test_the_command_on_a_folder_prints_what_it_prints_on_the_files(
    local_ray: None, logs: list[Path], one_process: dict[str, Any]
) -> None:
    folder = str(logs[0].parent)
    on_ray = _cli("shadow", folder, "--engine", "ray", "--workers", "2", "--json")
    assert json.loads(on_ray) == one_process


def test_import_logs_on_ray_writes_the_files_one_process_writes(
    local_ray: None, logs: list[Path], tmp_path: Path
) -> None:
    folder = str(logs[0].parent)
    _cli("import", "logs", *map(str, logs), "--out", str(tmp_path / "one"))
    _cli("import", "logs", folder, "--engine", "ray", "--workers", "2", "--out",
         str(tmp_path / "ray"))  # fmt: skip
    for name in ("workload-logs.jsonl", "events.json", "import-report.json"):
        one = (tmp_path / "one" / name).read_text()
        assert one == (tmp_path / "ray" / name).read_text(), name
    assert len((tmp_path / "one" / "workload-logs.jsonl").read_text().splitlines()) > 2_000


def test_a_gateway_store_is_left_to_one_process(local_ray: None, tmp_path: Path) -> None:
    store = tmp_path / "gateway.sqlite"
    store.write_bytes(STORE_MAGIC + bytes(100))
    with pytest.raises(InputError, match=r"gateway\.sqlite: a gateway's store is read in one"):
        _on_ray([store], RayEngine(workers=1))


def test_addresses_are_read_through_pyarrows_filesystems(local_ray: None, logs: list[Path]) -> None:
    """``file://`` takes the way an object store's address takes: listed and opened by pyarrow."""
    folder = logs[0].parent
    addresses = [f"file://{path}" for path in logs[2:4]]
    assert log_sources([f"file://{folder}/*.parquet"]) == addresses
    assert log_sources([f"file://{folder}"]) == [f"file://{path}" for path in logs]
    assert log_sources([f"file://{folder}/c-*"]) == addresses[:1]
    with pytest.raises(MissingInputError, match="no such log file"):
        log_sources([f"file://{folder}/nothing/*.gz"])
    on_ray = _document(_on_ray(addresses, RayEngine(workers=2, block_lines=50)))
    one = _document(_in_one_process(logs[2:4]))
    assert json.dumps(on_ray).replace("file://", "") == json.dumps(one)

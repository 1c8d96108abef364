"""Log files as a Ray Data dataset of line blocks, mapped by a pool of workers, in order.

The engine under ``--engine ray`` (``agent-lab shadow``, ``agent-lab import
logs``). The logs become a dataset of lines: a read task per file (local,
or on an object store pyarrow's filesystems reach: ``s3://``, ``gs://``,
``abfs://``, ``hdfs://``) turns it into blocks of ``block_lines`` lines,
with the file's format told as the one-process reader tells it
(``logs.reader.file_lines``). A pool of actors (``BlockWorker``), each set
up once (plugins, prices, deciders), maps every block to a picklable part;
the driver takes the parts in the order the lines were read
(``preserve_order``), so what it adds up equals the one-process run's
exactly, whatever the number of blocks or workers.

Nothing is made of part of the logs: a file that cannot be read, and a line
a worker refuses, stop the run with the file and line; an error in a task
fails the run (Ray Data's ``max_errored_blocks`` is 0); workers that never
start fail it after ``WAIT_FOR_WORKERS_S``. A worker process that dies is
Ray's to restart: the actor is started again and its block mapped again.

Ray connects to ``RAY_ADDRESS`` when it is set (or to the cluster ``ray
start`` began on this machine), else starts a local Ray bound to loopback,
and stops it at the end.
"""

from __future__ import annotations

import fnmatch
import glob
import importlib
import io
import logging
import os
import pickle
import re
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from agent_lab.errors import InputError, InputFileError, MissingInputError, UsageError
from agent_lab.logs.exchanges import MAGIC as STORE_MAGIC
from agent_lab.logs.reader import LogLine, file_lines, open_log
from agent_lab.logs.record import LogError, LogFormat, SkippedLine, SkipReason

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = [
    "BLOCK_LINES",
    "WAIT_FOR_WORKERS_S",
    "BlockWorker",
    "RayEngine",
    "log_sources",
    "map_blocks",
    "start_local_ray",
]

BLOCK_LINES = 4096
"""Lines a block holds: large enough that a block's scheduling is a small share of its work."""

WAIT_FOR_WORKERS_S = 600
"""How long the workers may take to start before the run fails (a cluster's autoscaler may
add nodes first)."""

_GLOB = frozenset("*?[")
_UNREADABLE = "unreadable"
"""A block row's ``skip`` for a file that cannot be read at all: the run stops there."""
_STORE = "a gateway's store is read in one process, not on Ray"


@dataclass(frozen=True, slots=True)
class _Unreadable:
    """A file a read task could not read: the run stops with ``problem``."""

    source: str
    problem: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RayEngine:
    """Where and how wide the replay runs on Ray."""

    workers: int | None = None
    """Replay actors; ``None``: from 1 up to the cluster's CPUs, as Ray Data scales the pool."""
    block_lines: int = BLOCK_LINES
    address: str | None = None
    """A cluster to connect to; ``None``: ``RAY_ADDRESS``, else a local Ray."""


def log_sources(names: Sequence[str]) -> list[str]:
    """The log files named: files, folders (every file in them) and globs, local or remote.

    An address with a scheme (``s3://bucket/logs/``) is listed through
    pyarrow's filesystems; a local path must be there. The order is the
    order named, then each folder's and glob's files sorted by path.

    Raises:
        MissingInputError: A name that matches no file.
    """
    sources: list[str] = []
    for name in names:
        found = _remote_files(name) if "://" in name else _local_files(name)
        if not found:
            raise MissingInputError(f"{name}: no such log file")
        sources.extend(found)
    return sources


def _local_files(name: str) -> list[str]:
    if _GLOB & set(name):
        # glob.glob, not Path.glob: a pattern may be absolute ("/var/log/agent/*.gz").
        found = glob.glob(name, recursive=True)  # noqa: PTH207
        return sorted(path for path in found if Path(path).is_file())
    path = Path(name)
    if path.is_dir():
        return sorted(
            str(found)
            for found in path.rglob("*")
            if found.is_file() and not found.name.startswith(".")
        )
    return [name] if path.exists() else []


def _filesystems() -> Any:
    """Pyarrow's filesystems (s3, gcs, abfs, hdfs, local); pyarrow ships no types."""
    return importlib.import_module("pyarrow.fs")


def _remote_files(name: str) -> list[str]:
    """The files an address names: itself, every file under a folder, or a glob's matches.

    A glob is matched against the files under the folder before its first
    wildcard (``s3://logs/2026-11/*.gz`` lists ``s3://logs/2026-11/``); its
    ``*`` matches within one folder, as a local glob's does.
    """
    pafs = _filesystems()
    wild = min((name.index(mark) for mark in _GLOB if mark in name), default=-1)
    base = name if wild < 0 else name[: name.rfind("/", 0, wild) + 1]
    try:
        filesystem, path = pafs.FileSystem.from_uri(base)
        info = filesystem.get_file_info(path)
        if info.type == pafs.FileType.File and wild < 0:
            return [name]
        if info.type != pafs.FileType.Directory:
            return []
        listed = filesystem.get_file_info(pafs.FileSelector(path, recursive=True))
    except (OSError, ValueError) as err:
        raise InputFileError(name, str(err)) from err
    scheme = name.split("://", 1)[0]
    files = sorted(f"{scheme}://{found.path}" for found in listed if found.is_file)
    if wild < 0:
        return files
    pattern = re.compile(fnmatch.translate(name).replace(".*", "[^/]*"))
    return [found for found in files if pattern.fullmatch(found)]


def _open(source: str) -> io.BufferedReader:
    """A buffered, seekable reader of the file (Parquet needs to seek)."""
    if "://" not in source:
        return open_log(Path(source))
    try:
        filesystem, path = _filesystems().FileSystem.from_uri(source)
        return io.BufferedReader(filesystem.open_input_file(path))
    except (OSError, ValueError) as err:
        raise InputFileError(source, str(err)) from err


def _lines_of_files(
    batch: dict[str, Any], *, format: str, block_lines: int
) -> Iterator[dict[str, list[Any]]]:
    """A read task: each file of the batch as blocks of ``block_lines`` rows."""
    rows: dict[str, list[Any]] = {name: [] for name in ("where", "line", "format", "skip", "text")}
    for source in batch["path"]:
        for item in _items(str(source), LogFormat(format) if format else None):
            if isinstance(item, _Unreadable):
                _append(rows, item.source, None, "", _UNREADABLE, item.problem)
            elif isinstance(item, SkippedLine):
                _append(rows, item.where, None, "", str(item.reason), item.message)
            else:
                _append(rows, item.where, item.text, str(item.format or ""), "", "")
            if len(rows["where"]) >= block_lines:
                yield rows
                rows = {name: [] for name in rows}
    if rows["where"]:
        yield rows


def _items(source: str, format: LogFormat | None) -> Iterator[LogLine | SkippedLine | _Unreadable]:
    try:
        handle = _open(source)
    except (InputFileError, MissingInputError) as err:
        # Not a skip: the run stops here, whatever --skip-bad-lines says (as in one process).
        yield _Unreadable(source, str(err))
        return
    try:
        if handle.peek(len(STORE_MAGIC))[: len(STORE_MAGIC)] == STORE_MAGIC:
            yield _Unreadable(source, f"{source}: {_STORE}")
            return
        yield from file_lines(handle, source, format)
    except InputFileError as err:
        yield _Unreadable(source, str(err))
    finally:
        handle.close()


def _append(rows: dict[str, list[Any]], *values: object) -> None:
    for name, value in zip(("where", "line", "format", "skip", "text"), values, strict=True):
        rows[name].append(value)


def _block_items(
    batch: dict[str, Any], unreadable: list[_Unreadable]
) -> Iterator[LogLine | SkippedLine]:
    """The block's lines, up to a file that could not be read (put in ``unreadable``)."""
    for where, line, format, skip, text in zip(
        batch["where"], batch["line"], batch["format"], batch["skip"], batch["text"], strict=True
    ):
        if skip == _UNREADABLE:
            unreadable.append(_Unreadable(str(where), str(text)))
            return
        if skip:
            yield SkippedLine(where=str(where), reason=SkipReason(str(skip)), message=str(text))
        else:
            yield LogLine(str(where), bytes(line), LogFormat(str(format)) if format else None)


def map_blocks(
    sources: Sequence[str],
    *,
    format: LogFormat | None,
    engine: RayEngine,
    worker: type[BlockWorker],
    worker_args: tuple[object, ...],
) -> Iterator[object]:
    """What ``worker`` made of each block of the logs, in the order the lines were read.

    Raises:
        UsageError: Ray is not installed.
        InputError: A file that cannot be read, or workers that never start.
        LogError: A line the worker refused (``BlockWorker.part`` raised it).
    """
    try:
        # The ray extra, on demand; its types are partial, so it is ``Any`` here.
        ray: Any = importlib.import_module("ray")
        importlib.import_module("ray.data")
    except ImportError as err:
        raise UsageError(
            "the Ray engine needs Ray: pip install 'agent-lab[ray]' (uv sync --extra ray)"
        ) from err
    started = _connect(ray, engine.address)
    try:
        rows = _dataset(
            ray, sources, format=format, engine=engine, worker=worker, worker_args=worker_args
        ).iter_rows()
        for row in _started(ray, rows):
            if row["error"]:
                _raise(cast("SkippedLine | _Unreadable", pickle.loads(row["error"])))  # noqa: S301
            yield pickle.loads(row["part"])  # noqa: S301  (our own workers)
    finally:
        if started:
            ray.shutdown()


class BlockWorker(ABC):
    """A Ray Data actor: set up once, then given block after block of log lines."""

    @abstractmethod
    def part(self, lines: Iterator[LogLine | SkippedLine]) -> object:
        """What the worker makes of one block's lines (picklable).

        Raises:
            LogError: A line that stops the run.
        """

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[bytes]]:
        """One block's part, pickled, or the error that stops the run (Ray Data's batch)."""
        unreadable: list[_Unreadable] = []
        part: object = None
        error = b""
        try:
            part = self.part(_block_items(batch, unreadable))
        except LogError as err:  # a line before any unreadable file: the first error
            error = pickle.dumps(err.skipped)
        else:
            if unreadable:
                error = pickle.dumps(unreadable[0])
        return {"part": [pickle.dumps(part)], "error": [error]}


def _started(ray: Any, rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The rows, or a clear error when the workers never start."""
    try:
        yield from rows
    except ray.exceptions.GetTimeoutError as err:
        raise InputError(
            f"the workers did not start within {WAIT_FOR_WORKERS_S} s: each node needs "
            "agent-lab with the ray extra, and the plugins named (docs/shadow.md)"
        ) from err


def _raise(error: SkippedLine | _Unreadable) -> None:
    if isinstance(error, _Unreadable):
        raise InputError(error.problem)
    raise LogError(error)


def _connect(ray: Any, address: str | None) -> bool:
    """Connect to the cluster, or start a local Ray; whether this call started one."""
    # Ray Data tells of every dataset it starts, of its pool's sizing and of its progress
    # bars being off; a local Ray, of the token it made for itself: none of it the figures.
    for name in ("ray", "ray.data"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module=r"ray\.data\..*")
    if ray.is_initialized():
        return False
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address or os.environ.get("RAY_ADDRESS"):
        ray.init(address=address, **quiet)
        return False
    start_local_ray(ray)
    return True


def start_local_ray(ray: Any, **options: Any) -> None:
    """A Ray on this machine alone, its workers running this interpreter.

    It listens on loopback only: nothing of the logs leaves the machine.
    Ray's ``uv run`` hook is turned off for it: under ``uv run`` the hook
    copies the working folder and builds each worker a fresh environment
    from the project's lock without its extras, where ``import ray`` fails
    and the workers are started again and again (seen: the run hung).
    """
    os.environ["RAY_ENABLE_UV_RUN_RUNTIME_ENV"] = "0"  # read when ray is imported...
    constants: Any = importlib.import_module("ray._private.ray_constants")
    constants.RAY_ENABLE_UV_RUN_RUNTIME_ENV = False  # ...which it already is here
    defaults = {"logging_level": logging.ERROR, "log_to_driver": False}
    ray.init(include_dashboard=False, _node_ip_address="127.0.0.1", **(defaults | options))


def _dataset(
    ray: Any,
    sources: Sequence[str],
    *,
    format: LogFormat | None,
    engine: RayEngine,
    worker: type[BlockWorker],
    worker_args: tuple[object, ...],
) -> Any:
    files = ray.data.from_items([{"path": source} for source in sources])
    files.context.execution_options.preserve_order = True
    files.context.enable_progress_bars = False
    if files.context.wait_for_min_actors_s <= 0:
        # Ray Data waits for the pool's actors forever by default: a worker that cannot
        # start (agent-lab missing on a node) would hang the run, not fail it.
        files.context.wait_for_min_actors_s = WAIT_FOR_WORKERS_S
    lines = files.map_batches(
        _lines_of_files,
        batch_size=1,
        fn_kwargs={"format": str(format or ""), "block_lines": engine.block_lines},
        # A read task reserves no CPU: the workers may hold every CPU without
        # starving it (a deadlock, seen with 0.25), and it is not fused into them, so
        # one file's blocks spread over every worker.
        num_cpus=0,
    )
    size = engine.workers
    pool = (
        ray.data.ActorPoolStrategy(size=size)
        if size is not None
        else ray.data.ActorPoolStrategy(min_size=1, max_size=None)
    )
    return lines.map_batches(worker, fn_constructor_args=worker_args, batch_size=None, compute=pool)

"""The one reader of user-named files: regular files only, bounded, and never a hang."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from agent_lab._input_files import read_input, read_input_text
from agent_lab.errors import InputFileError


def test_a_regular_file_is_read_whole_up_to_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 100)
    assert read_input(path, what="price table", max_bytes=100) == b"x" * 100
    with pytest.raises(InputFileError, match=r"f\.json: the price table is 100 bytes, over the 99"):
        read_input(path, what="price table", max_bytes=99)


def test_a_sparse_file_over_the_bound_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    """The size is the file system's answer: a terabyte file costs nothing to refuse."""
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as handle:
        handle.truncate(1 << 40)
    with pytest.raises(InputFileError, match="the cassette is 1024 GiB, over the 1 GiB bound"):
        read_input(path, what="cassette", max_bytes=1 << 30)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_at_once_even_with_no_writer(tmp_path: Path) -> None:
    """Opening a FIFO for reading blocks until a writer comes: the reader never opens one."""
    fifo = tmp_path / "prices.json"
    os.mkfifo(fifo)
    outcome: list[BaseException | bytes] = []

    def read() -> None:
        try:
            outcome.append(read_input(fifo, what="price table", max_bytes=1 << 20))
        except Exception as err:
            outcome.append(err)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():
        with fifo.open("wb"):  # a writer releases the blocked reader
            pass
        thread.join(10)
        pytest.fail("reading a FIFO hung")
    (result,) = outcome
    assert isinstance(result, InputFileError)
    assert str(result) == f"{fifo}: the price table is a FIFO (named pipe), not a regular file"


@pytest.mark.parametrize(
    ("path", "kind"),
    [("/dev/zero", "a character device"), ("/dev/null", "a character device")],
    ids=["dev-zero", "dev-null"],
)
def test_devices_are_refused(path: str, kind: str) -> None:
    """/dev/zero was read until memory ran out."""
    if not Path(path).exists():
        pytest.skip(f"no {path} here")
    with pytest.raises(InputFileError, match=f"the workload is {kind}, not a regular file"):
        read_input(path, what="workload", max_bytes=1 << 20)


def test_a_folder_and_a_symlink_to_a_device_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="is a folder, not a regular file"):
        read_input(tmp_path, what="workload", max_bytes=1 << 20)
    link = tmp_path / "events.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputFileError, match="is a character device"):
        read_input(link, what="events.json", max_bytes=1 << 20)


def test_text_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"a": 1}\n\xff\xfe')
    with pytest.raises(InputFileError, match=r"c\.jsonl: the cassette is not UTF-8 text \(byte 9"):
        read_input_text(path, what="cassette", max_bytes=1 << 20)
    path.write_text('{"a": "é"}', encoding="utf-8")
    assert read_input_text(path, what="cassette", max_bytes=1 << 20) == '{"a": "é"}'


def test_a_missing_file_is_the_operating_systems_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_input(tmp_path / "nope.json", what="workload", max_bytes=10)

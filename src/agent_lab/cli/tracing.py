"""Spans from a run: to a file (``--otel-file``), or to the OTLP endpoint the environment names."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING

from agent_lab.cli.checks import check_not_a_pipe
from agent_lab.errors import UsageError
from agent_lab.lab.report.terminal import printable
from agent_lab.providers.redaction import split_credentials

if TYPE_CHECKING:
    from collections.abc import Generator
    from pathlib import Path
    from typing import TextIO

    from agent_lab.otel import Tracing

__all__ = ["ENDPOINT_VARIABLES", "tracing_for"]

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
"""Either one sends the run's spans to an OTLP/HTTP endpoint (the SDK reads them)."""
_EXTRA = "pip install 'agent-lab[otel]' (or uv sync --extra otel)"


@contextmanager
def tracing_for(otel_file: Path | None, stderr: TextIO) -> Generator[Tracing | None]:
    """The run's tracing, flushed and shut down when the block ends; ``None`` when nobody asked.

    Raises:
        UsageError: ``--otel-file`` without the ``otel`` extra, or a protocol other
            than OTLP/HTTP with protobuf.
    """
    endpoint = next((os.environ[name] for name in ENDPOINT_VARIABLES if os.environ.get(name)), None)
    if otel_file is None and endpoint is None:
        yield None
        return
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # noqa: PLC0415
            OTLPSpanExporter,
        )
        from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
        from opentelemetry.sdk.trace import TracerProvider  # noqa: PLC0415
        from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: PLC0415

        from agent_lab.otel import OTLPJsonFileExporter, Tracing  # noqa: PLC0415
    except ImportError as err:
        if otel_file is not None:
            raise UsageError(f"--otel-file needs the otel extra: {_EXTRA}") from err
        # An endpoint set for other programs must not stop a run: say so, go on.
        print(f"spans: OTLP endpoint set, but the otel extra is missing ({_EXTRA})", file=stderr)
        yield None
        return
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or os.environ.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"
    )
    if endpoint is not None and protocol != "http/protobuf":
        raise UsageError(f"OTLP protocol {protocol!r}: agent-lab sends http/protobuf only")
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-lab"}))
    exporter: OTLPJsonFileExporter | None = None
    if otel_file is not None:
        check_not_a_pipe(otel_file, "--otel-file")
        try:
            exporter = OTLPJsonFileExporter(otel_file)
        except OSError as err:
            raise UsageError(f"--otel-file {otel_file}: {err.strerror or err}") from err
        provider.add_span_processor(BatchSpanProcessor(exporter))
    if endpoint is not None:
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    failed = True
    try:
        yield Tracing(provider)
        failed = False
    finally:
        provider.shutdown()  # flushes every processor
        if exporter is not None and exporter.error is not None and not failed:
            # The run is stored; the spans asked for are not all there: say it, exit 2.
            raise UsageError(
                f"--otel-file {otel_file}: spans could not be written ({exporter.error}); "
                "the run's trials are stored"
            )
        where = [str(otel_file)] if otel_file is not None else []
        if endpoint is not None:
            # An endpoint may carry credentials (user:password@): never printed.
            where.append(f"OTLP endpoint {split_credentials(endpoint)[0]}")
        print(printable(f"spans: {', '.join(where)}"), file=stderr)

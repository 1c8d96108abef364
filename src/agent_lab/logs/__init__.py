"""An agent's own logs, read: the LLM requests it sent and what each model answered."""

from agent_lab.logs.reader import MAX_LINE_BYTES, detect_format, read_line, read_logs
from agent_lab.logs.record import (
    LogError,
    LogFormat,
    LoggedRequest,
    LoggedToolCall,
    LoggedUsage,
    SkippedLine,
    SkipReason,
)

__all__ = [
    "MAX_LINE_BYTES",
    "LogError",
    "LogFormat",
    "LoggedRequest",
    "LoggedToolCall",
    "LoggedUsage",
    "SkipReason",
    "SkippedLine",
    "detect_format",
    "read_line",
    "read_logs",
]

"""Structured logs: one JSON object per line, each carrying the current job's or delivery's fields."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import IO

from reviewbot.observe.jobcontext import log_fields

_RECORD = logging.LogRecord("", 0, "", 0, "", None, None)
STANDARD = set(vars(_RECORD)) | {"message", "asctime", "taskName", "color_message"}


class ContextFilter(logging.Filter):
    """Adds delivery, job id, repository, PR and SHA of the current job to every record made inside it."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in log_fields().items():
            if not hasattr(record, key):  # a field the call passed itself wins
                setattr(record, key, value)
        return True


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "msg", ...fields, "exc"}`; runs after the redaction filter, like the text one."""

    def format(self, record: logging.LogRecord) -> str:
        event = {"ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
                 "level": record.levelname, "logger": record.name, "msg": record.getMessage()}
        event |= {k: v for k, v in vars(record).items() if k not in STANDARD and k not in event}
        if record.exc_text:
            event["exc"] = record.exc_text
        elif record.exc_info:
            event["exc"] = self.formatException(record.exc_info)
        return json.dumps(event, default=str, ensure_ascii=False)


def wants_json(setting: str, stream: IO[str]) -> bool:
    """`auto` is JSON for log collectors and plain text for a person at a terminal."""
    if setting != "auto":
        return setting == "json"
    isatty = getattr(stream, "isatty", None)
    return not (callable(isatty) and isatty())

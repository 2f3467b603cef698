"""Logging: one line per event with its context fields; known secrets are masked before anything is written."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable

from reviewbot.observe.logformat import ContextFilter, JsonFormatter, wants_json

_RECORD = logging.LogRecord("", 0, "", 0, "", None, None)
_STANDARD = set(vars(_RECORD)) | {"message", "asctime", "taskName", "color_message"}


class Redactor(logging.Filter):
    """Replaces every configured secret (tokens, keys, webhook secret) in the message and its fields."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if len(s) >= 6}, key=len, reverse=True)

    def add(self, secret: str) -> None:
        if len(secret) >= 6 and secret not in self.secrets:
            self.secrets = sorted([*self.secrets, secret], key=len, reverse=True)

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.scrub(record.getMessage())
        record.args = None
        for key, value in list(vars(record).items()):
            if key not in _STANDARD and isinstance(value, str):
                setattr(record, key, self.scrub(value))
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self.scrub(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


class ContextFormatter(logging.Formatter):
    """`time level logger: message key=value ...` with the record's extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        base = super().format(record)
        extras = {k: v for k, v in vars(record).items() if k not in _STANDARD}
        if not extras:
            return base
        return base + " " + " ".join(f"{k}={v}" for k, v in sorted(extras.items()))


REDACTOR = Redactor(())


def setup_logging(secrets: Iterable[str], level: int = logging.INFO, fmt: str = "auto") -> None:
    """Configure the root logger once; secrets added later (installation tokens) use REDACTOR.add.

    `fmt` is json, text, or auto (text on a terminal, JSON otherwise)."""
    for secret in secrets:
        REDACTOR.add(secret)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if wants_json(fmt, sys.stderr)
                         else ContextFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(ContextFilter())  # before the redactor, so the fields it adds are scrubbed too
    handler.addFilter(REDACTOR)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)

"""A RequestMemo in a JSON file: an interrupted audit finds its queued requests and answers again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewbot.state.private_files import write_private


class FileMemo:
    """Answers and pending request ids by request key, written through to `path` after every change (atomic
    rename), so a killed process loses nothing it was told."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: dict[str, dict[str, Any]] = {}
        self.waiting: dict[str, str] = {}
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(data, dict):
            self.done = dict(data.get("done") or {})
            self.waiting = {str(k): str(v) for k, v in (data.get("waiting") or {}).items()}

    async def result(self, key: str) -> dict[str, Any] | None:
        return self.done.get(key)

    async def save_result(self, key: str, completion: dict[str, Any]) -> None:
        self.done[key] = completion
        self._write()

    async def pending(self, key: str) -> str | None:
        return self.waiting.get(key)

    async def save_pending(self, key: str, request_id: str) -> None:
        self.waiting[key] = request_id
        self._write()

    async def clear_pending(self, key: str) -> None:
        if self.waiting.pop(key, None) is not None:
            self._write()

    def _write(self) -> None:
        write_private(self.path, json.dumps({"done": self.done, "waiting": self.waiting}))  # answers about code

"""Small persistent stores: remembered prompt layouts and token calibration, in Redis (worker) or JSON files (CLI)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol

from reviewbot.review.prompt.calibration import Calibration
from reviewbot.review.prompt.layout import Layout
from reviewbot.state.keys import LAYOUT_TTL, calibration_key, layout_key
from reviewbot.state.private_files import private_dir


class RedisLike(Protocol):
    async def get(self, name: str) -> Any: ...
    async def set(self, name: str, value: str, ex: int | None = None) -> Any: ...


def pr_layout_key(repo: str, number: int) -> str:
    return f"pr:{repo}#{number}"


def branch_layout_key(identity: str, branch: str) -> str:
    return f"local:{identity}:{branch}"


class RedisStores:
    """Layouts and calibration for the worker, shared by every worker process."""

    def __init__(self, redis: RedisLike) -> None:
        self._redis = redis

    async def load_layout(self, key: str) -> Layout | None:
        raw = await self._redis.get(layout_key(key))
        return Layout.from_json(_loads(raw)) if raw else None

    async def save_layout(self, key: str, layout: Layout) -> None:
        await self._redis.set(layout_key(key), json.dumps(layout.as_json(), separators=(",", ":")),
                              ex=LAYOUT_TTL)

    async def calibration(self, model: str) -> Calibration:
        raw = await self._redis.get(calibration_key(model))
        return Calibration.from_json(_loads(raw)) if raw else Calibration()

    async def observe(self, model: str, prompt_chars: int, prompt_tokens: int) -> Calibration:
        """Record one request's usage; concurrent updates may lose a sample, which a moving average tolerates."""
        updated = (await self.calibration(model)).observe(prompt_chars, prompt_tokens)
        await self._redis.set(calibration_key(model), json.dumps(updated.as_json()))
        return updated


class FileStores:
    """The same for `reviewbot review`: JSON files under the data dir (no Redis needed on a laptop)."""

    def __init__(self, data_dir: Path) -> None:
        self._root = data_dir

    def _layout_path(self, key: str) -> Path:
        return self._root / "layouts" / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def load_layout(self, key: str) -> Layout | None:
        return Layout.from_json(_read(self._layout_path(key)))

    def save_layout(self, key: str, layout: Layout) -> None:
        _write(self._layout_path(key), layout.as_json())

    def calibration(self, model: str) -> Calibration:
        data = _read(self._root / "calibration.json")
        return Calibration.from_json(data.get(model)) if isinstance(data, dict) else Calibration()

    def observe(self, model: str, prompt_chars: int, prompt_tokens: int) -> Calibration:
        path = self._root / "calibration.json"
        data = _read(path)
        data = data if isinstance(data, dict) else {}
        updated = Calibration.from_json(data.get(model)).observe(prompt_chars, prompt_tokens)
        _write(path, {**data, model: updated.as_json()})
        return updated


def _loads(raw: Any) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, TypeError):
        return None


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write(path: Path, data: Any) -> None:
    """Write through a temporary file and rename, so a crash never leaves half a JSON document."""
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as out:
        json.dump(data, out, separators=(",", ":"))
    os.replace(tmp, path)

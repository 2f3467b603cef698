"""Process-local stand-ins for what the service keeps in Redis: an Actions job reviews once and ends."""

from __future__ import annotations

from typing import Any


class MemoryRedis:
    """The `get`/`set` of stores.RedisLike over a dict: remembered layouts and calibration for this one run (the
    next run is a new machine; the prefix cache the layout protects is the provider's, and it still hits)."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    async def get(self, name: str) -> Any:
        return self.values.get(name)

    async def set(self, name: str, value: str, ex: int | None = None) -> Any:
        self.values[name] = value
        return True

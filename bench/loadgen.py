"""A small HTTP/1.1 load generator over asyncio streams: keep-alive connections, prebuilt requests, no parsing
beyond the status line and Content-Length, so that the client costs little of the machine's two cores.

`closed_loop` keeps `concurrency` requests in flight; `open_loop` sends at a fixed rate and measures each latency
from the time the request was *scheduled* (so a stalled server cannot hide its queueing delay).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)  # seconds
    statuses: list[int] = field(default_factory=list)  # in request order
    bodies: list[bytes] = field(default_factory=list)  # in request order, when kept
    elapsed: float = 0.0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] * 1000 if ordered else float("nan")

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    def summary(self) -> dict[str, float]:
        return {"requests": len(self.latencies), "throughput_rps": round(self.throughput, 1),
                "p50_ms": round(self.percentile(50), 2), "p99_ms": round(self.percentile(99), 2),
                "max_ms": round(max(self.latencies) * 1000, 2) if self.latencies else float("nan"),
                "mean_ms": round(statistics.fmean(self.latencies) * 1000, 2) if self.latencies else float("nan")}


def request_bytes(host: str, path: str, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}",
             *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def send(self, raw: bytes) -> tuple[int, bytes]:
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length) if length else b""

    def close(self) -> None:
        self.writer.close()


async def closed_loop(host: str, port: int, requests: Sequence[bytes], concurrency: int,
                      keep_bodies: bool = False) -> Result:
    result = Result(statuses=[0] * len(requests), bodies=[b""] * len(requests) if keep_bodies else [])
    cursor = iter(range(len(requests)))

    async def client() -> None:
        connection = await Connection.open(host, port)
        try:
            for index in cursor:  # shared: each request is sent once, by whichever client is free
                started = time.perf_counter()
                status, body = await connection.send(requests[index])
                result.latencies.append(time.perf_counter() - started)
                result.statuses[index] = status
                if keep_bodies:
                    result.bodies[index] = body
        finally:
            connection.close()

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    result.elapsed = time.perf_counter() - started
    return result


async def open_loop(host: str, port: int, requests: Sequence[bytes], rate: float, warm: int = 4) -> Result:
    """Request i is due at start + i/rate; a free keep-alive connection sends it, or a new one when all are busy."""
    idle: list[Connection] = [await Connection.open(host, port) for _ in range(warm)]
    result = Result(statuses=[0] * len(requests))
    start = time.perf_counter() + 0.05

    async def one(index: int) -> None:
        due = start + index / rate
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        connection = idle.pop() if idle else await Connection.open(host, port)
        result.statuses[index], _ = await connection.send(requests[index])
        result.latencies.append(time.perf_counter() - due)
        idle.append(connection)

    await asyncio.gather(*(one(i) for i in range(len(requests))))
    result.elapsed = time.perf_counter() - start
    for connection in idle:
        connection.close()
    return result

"""Progress for long CLI commands, on stderr and only when stderr is a terminal (pipes stay clean)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from reviewbot.inference.client import ChatResult


def _console(stream: IO[str] | None) -> Console | None:
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return Console(file=stream) if callable(isatty) and isatty() else None


@contextlib.contextmanager
def counting(what: str, total: int, stream: IO[str] | None = None) -> Iterator[Callable[[int], None]]:
    """A bar for `total` items; yields `advance(n)`. A no-op away from a terminal."""
    console = _console(stream)
    if console is None:
        yield lambda n: None
        return
    columns = (TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(what, total=total)
        yield lambda n: progress.advance(task, n)


class ReviewStatus:
    """A spinner for `reviewbot review`: model answers and tokens so far, and the time elapsed."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        console = _console(stream)
        self.requests = 0
        self.tokens = 0
        self._progress = None if console is None else Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console, transient=True)
        self._task = None if self._progress is None else self._progress.add_task(self._text(), total=None)

    def _text(self) -> str:
        if not self.requests:
            return "reviewing: waiting for the model"
        return f"reviewing: {self.requests} model answer(s), {self.tokens:,} tokens"

    def request_done(self, result: ChatResult) -> None:
        """The model client's `on_request` hook."""
        self.requests += 1
        self.tokens += result.usage.prompt_tokens + result.usage.completion_tokens
        self.note(self._text())

    def note(self, text: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=text)

    def __enter__(self) -> ReviewStatus:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

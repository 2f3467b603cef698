"""Serve an ASGI app on 127.0.0.1 from a background thread, for the duration of a test session.

The fakes are real HTTP servers (not transport mocks) so that every client the bot uses -- PyGithub's
`requests` stack, httpx, anything else -- goes through real sockets, headers and status codes.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType

import uvicorn
from starlette.types import ASGIApp

_START_TIMEOUT_S = 5.0


class ServedApp:
    """Runs `app` under uvicorn on an OS-chosen port until `stop()` (or the end of a `with` block)."""

    def __init__(self, app: ASGIApp, *, lifespan: str = "off") -> None:
        # The fakes need no lifespan; reviewbot's own app makes its Redis pool in one ("on").
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=0,
            log_level="warning",
            lifespan=lifespan,
            access_log=False,
            # Bounds shutdown when a test leaves a request hanging (e.g. a long scripted model delay).
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        # `Server.run` creates its own event loop, so the app never shares a loop with async tests;
        # uvicorn only installs signal handlers on the main thread, so it leaves the test runner's alone.
        self._thread = threading.Thread(target=self._server.run, name="fake-server", daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._wait_for_port()}"

    def _wait_for_port(self) -> int:
        deadline = time.monotonic() + _START_TIMEOUT_S
        # uvicorn exposes no "started" event, only a flag; polling at 1 ms keeps startup in the low ms.
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the fake server thread exited during startup")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the fake server did not start in time")
            time.sleep(0.001)
        # port=0 lets the OS choose, so the real port is only known from the bound socket.
        port: int = self._server.servers[0].sockets[0].getsockname()[1]
        return port

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=_START_TIMEOUT_S)

    def __enter__(self) -> ServedApp:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

"""Workers AI's asynchronous queue: submit with `?queueRequest=true`, poll with the request id."""

from __future__ import annotations

import logging
from typing import Any

import httpx

from reviewbot.errors import ModelRetryable
from reviewbot.inference.provider_errors import classify

log = logging.getLogger(__name__)
PENDING = frozenset({"queued", "running"})


class QueuedRequestLost(ModelRetryable):
    """The queued request failed or came back in a state we do not know: polling it again cannot help, so the
    caller forgets its id and asks afresh (within the job's retry budget)."""


class AsyncQueue:
    """Both calls go to the native `/ai/run/{model}` endpoint, whose answers come in the v4 envelope."""

    def __init__(self, http: httpx.AsyncClient, run_url: str, headers: dict[str, str]) -> None:
        self.http = http
        self.run_url = run_url
        self.headers = headers

    async def submit(self, body: dict[str, Any]) -> str:
        native = {k: v for k, v in body.items() if k not in ("model", "stream", "options")}
        result = await self._post({"requests": [native]})
        request_id = result.get("request_id")
        if not isinstance(request_id, str) or not request_id:
            raise ModelRetryable("the asynchronous queue did not return a request id")
        log.info("model request queued asynchronously", extra={"request_id": request_id})
        return request_id

    async def poll(self, request_id: str) -> dict[str, Any] | None:
        """The ChatCompletion when done; None while it is queued or running."""
        result = await self._post({"request_id": request_id})
        if result.get("status") in PENDING:
            return None
        responses = result.get("responses")
        if not isinstance(responses, list) or not responses:
            raise QueuedRequestLost("the asynchronous queue answered without responses "
                                    f"(status {str(result.get('status'))[:40]!r})")
        item = next((r for r in responses if isinstance(r, dict) and r.get("id") in (0, None)), responses[0])
        if not isinstance(item, dict) or not item.get("success", True) or not isinstance(item.get("result"), dict):
            raise QueuedRequestLost("the asynchronous request failed at the provider")
        completion: dict[str, Any] = item["result"]
        return completion

    async def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            response = await self.http.post(self.run_url, params={"queueRequest": "true"}, json=payload,
                                            headers=self.headers)
        except httpx.TransportError as exc:
            raise ModelRetryable(f"asynchronous queue unreachable: {type(exc).__name__}") from None
        if response.status_code >= 400:
            # By code, as for synchronous requests: 400/404/413 never improve, 429/3040/5xx may.
            error = classify(response)
            error.args = (f"asynchronous queue: {error}",)
            raise error
        try:
            data = response.json()
        except ValueError:
            raise ModelRetryable("the asynchronous queue answered with invalid JSON") from None
        result = data.get("result", data) if isinstance(data, dict) else None
        if not isinstance(result, dict):
            raise ModelRetryable("the asynchronous queue answered without a result")
        return result

"""A fake OpenAI-compatible chat-completions server shaped like Cloudflare Workers AI (`/ai/v1`).

Answers come from a FIFO script (`script_reply`, `script_error`, `script_delay`), falling back to
`default`. Every request is checked against the pinned Workers AI input schema of the model it names
(specs/workers-ai/, see tests/fakes/contract.py) and every completion against its output schema: a request that
does not fit is answered 400 (code 5006, as Cloudflare does) and recorded in `violations`, which the autouse
fixture in tests/conftest_fakes.py asserts empty after each test.
Token usage is computed deterministically from the request text, including a prefix-cache
model keyed by the `x-session-affinity` header, so tests can assert on cache-friendly prompt layouts.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from reviewbot.eval.replay import common_prefix
from tests.fakes.contract import CONTRACTS, Contract

_CACHE_BLOCK_TOKENS = 64
_CHARS_PER_TOKEN = 4
_STREAM_PIECE_CHARS = 16


def findings_json(findings: list[dict[str, Any]], summary: str = "Looks fine.") -> str:
    """The review answer the bot asks the model for, serialised the way a model would write it."""
    return json.dumps({"summary": summary, "findings": findings})


# reviewbot's verification requests end with a user message starting with this header, one "### Candidate N:
# title" heading per finding to check; the fake answers them with verdicts (confirming by default).
VERIFY_HEADER = "## Verification of candidate findings"
_CANDIDATE = re.compile(r"^### Candidate (\d+): (.*)$", re.MULTILINE)


def verification_candidates(request_json: dict[str, Any]) -> list[tuple[int, str]] | None:
    """(id, title) of the candidates a verification request asks about; None for any other request."""
    for message in request_json.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if message.get("role") == "user" and isinstance(content, str) and content.startswith(VERIFY_HEADER):
            return [(int(m.group(1)), m.group(2).strip()) for m in _CANDIDATE.finditer(content)]
    return None


# A question from a review thread: the last user message starts with this header (reviewbot.review.prompt.thread).
THREAD_HEADER = "## Question in a review thread"


def thread_question(request_json: dict[str, Any]) -> str | None:
    """The last user message of a thread-question request, or None for any other request."""
    messages = [m for m in request_json.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    content = messages[-1].get("content") if messages else None
    return content if isinstance(content, str) and content.startswith(THREAD_HEADER) else None


# A fix request (reviewbot.fixes.fix_turns): the last user message starts with this header, and the answer's schema
# is named `fix_edits`; its verification's header and schema name follow.
FIX_HEADER = "## Fix request"
VERIFY_FIX_HEADER = "## Fix verification"
FIX_SCHEMA_NAME, FIX_VERDICT_SCHEMA_NAME = "fix_edits", "fix_verdict"


def schema_name(request_json: dict[str, Any]) -> str | None:
    """The name of the JSON Schema a request's response_format holds the answer to, when it names one."""
    wrapped = (request_json.get("response_format") or {}).get("json_schema")
    return str(wrapped["name"]) if isinstance(wrapped, dict) and isinstance(wrapped.get("name"), str) else None


def fix_turn(request_json: dict[str, Any]) -> str | None:
    """"fix" or "verify-fix" for reviewbot's fix requests, by schema name or (any response_format) header; None
    for any other request."""
    name = schema_name(request_json)
    if name in (FIX_SCHEMA_NAME, FIX_VERDICT_SCHEMA_NAME):
        return "fix" if name == FIX_SCHEMA_NAME else "verify-fix"
    messages = [m for m in request_json.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    content = messages[-1].get("content") if messages else None
    if isinstance(content, str) and content.startswith((FIX_HEADER, VERIFY_FIX_HEADER)):
        return "fix" if content.startswith(FIX_HEADER) else "verify-fix"
    return None


def fix_json(edits: list[tuple[str, str, str]], explanation: str = "Guard the case the finding names.") -> str:
    """A fix answer: (path, old text, new text) edits."""
    return json.dumps({"explanation": explanation,
                       "edits": [{"path": p, "old": old, "new": new} for p, old, new in edits]})


NO_FIX = fix_json([])


def image_parts(request_json: dict[str, Any]) -> list[dict[str, Any]]:
    """The OpenAI-style `image_url` content parts of a request, in order."""
    return [part for m in request_json.get("messages") or [] if isinstance(m, dict)
            and isinstance(m.get("content"), list) for part in m["content"]
            if isinstance(part, dict) and part.get("type") == "image_url"]


def verdicts_json(verdicts: list[dict[str, Any]]) -> str:
    return json.dumps({"verdicts": verdicts})


def answering(review: str | Callable[[dict[str, Any]], str],
              verdicts: dict[str, tuple[str, str | None]] | None = None, *,
              fix: str | Callable[[dict[str, Any]], str] = NO_FIX, fixed: bool = True,
              ) -> Callable[[dict[str, Any]], str]:
    """A `default`: review requests get `review` (text, or a function of the request); verification requests
    get a verdict per candidate by title, `verdicts[title] = (verdict, new severity)`, others confirmed. Fix
    requests get `fix` (no edits unless given), their verification `fixed`."""
    chosen = verdicts or {}

    def answer(request_json: dict[str, Any]) -> str:
        turn = fix_turn(request_json)
        if turn == "fix":
            return fix if isinstance(fix, str) else fix(request_json)
        if turn == "verify-fix":
            return json.dumps({"fixed": fixed, "reason": "fake verifier: " + ("fixed" if fixed else "still there")})
        if thread_question(request_json) is not None:
            return json.dumps({"answer": "An empty list makes `len(items)` zero, so the division raises."})
        candidates = verification_candidates(request_json)
        if candidates is None:
            return review if isinstance(review, str) else review(request_json)
        out = []
        for number, title in candidates:
            verdict, severity = chosen.get(title, ("confirm", None))
            out.append({"id": number, "verdict": verdict, "severity": severity,
                        "reason": f"fake verifier: {verdict}"})
        return verdicts_json(out)

    return answer


def verification_sections(request_json: dict[str, Any]) -> list[tuple[int, str, str]] | None:
    """(id, title, the text shown for it) of each candidate of a verification request: its heading to the next."""
    for message in request_json.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if message.get("role") == "user" and isinstance(content, str) and content.startswith(VERIFY_HEADER):
            found = list(_CANDIDATE.finditer(content))
            ends = [m.start() for m in found[1:]] + [len(content)]
            return [(int(m.group(1)), m.group(2).strip(), content[m.start():end])
                    for m, end in zip(found, ends, strict=True)]
    return None


def verifying_flows(review: str | Callable[[dict[str, Any]], str],
                    sinks: dict[str, tuple[str, str]]) -> Callable[[dict[str, Any]], str]:
    """A `default` with an ideal verifier, judging each candidate by the code shown with it in the verification
    request (its own section, after the chunk's cached request): `sinks[title] = (symbol, sink code)`. It confirms
    when the sink's code is shown, answers "needs_code" naming the symbol when the symbol's definition
    (`def symbol(`) is not shown, and refutes when it sees the definition and no sink; other titles are confirmed."""
    others = answering(review)

    def answer(request_json: dict[str, Any]) -> str:
        sections = verification_sections(request_json)
        if sections is None:
            return others(request_json)
        out = []
        for number, title, shown in sections:
            symbol, sink = sinks.get(title, ("", ""))
            verdict = "confirm" if not symbol or sink in shown else \
                "needs_code" if f"def {symbol}(" not in shown else "refute"
            out.append({"id": number, "verdict": verdict, "severity": None, "reason": f"ideal verifier: {verdict}",
                        "needs": [symbol] if verdict == "needs_code" else []})
        return verdicts_json(out)

    return answer


_default_answer = answering(findings_json([]))


def _tokens(text: str) -> int:
    return math.ceil(len(text) / _CHARS_PER_TOKEN)


def _cloudflare_error(status: int, code: int, message: str) -> JSONResponse:
    """Errors raised by Cloudflare itself (not the model) use the v4 API envelope."""
    body = {"result": None, "success": False, "errors": [{"code": code, "message": message}], "messages": []}
    return JSONResponse(body, status_code=status)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lowercased names
    json: Any  # the parsed body, or None if it was not JSON
    started: float = 0.0  # time.monotonic() when the request arrived
    finished: float | None = None  # and when its answer was sent (concurrency tests compare the two)


@dataclass(frozen=True)
class _Reply:
    content: str
    tool_calls: list[dict[str, Any]] | None
    finish_reason: str
    reasoning: str | None


@dataclass(frozen=True)
class _Error:
    status: int
    body: dict[str, Any] | str  # text: sent as it is (a truncated or broken JSON body)
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Delay:
    seconds: float


def _error_response(error: _Error) -> Response:
    if isinstance(error.body, str):
        return Response(error.body, error.status, headers=error.headers, media_type="application/json")
    return JSONResponse(error.body, status_code=error.status, headers=error.headers)


def _envelope(result: dict[str, Any]) -> JSONResponse:
    return JSONResponse({"result": result, "success": True, "errors": [], "messages": []})


def _form(response_format: Any) -> str | None:
    """Which of the accepted response_format shapes a request used."""
    if not isinstance(response_format, dict):
        return None
    if response_format.get("type") == "json_object":
        return "json_object"
    schema = response_format.get("json_schema")
    if isinstance(schema, dict):
        if "name" in schema and "schema" in schema:
            return "strict" if schema.get("strict") else "schema"
        return "bare"
    return None


def _answer_schema(response_format: Any) -> dict[str, Any] | None:
    """The JSON Schema a request's response_format holds the answer to, in any of its accepted shapes."""
    if not isinstance(response_format, dict):
        return None
    wrapped = response_format.get("json_schema")
    schema = wrapped.get("schema", wrapped) if isinstance(wrapped, dict) else response_format.get("schema")
    return schema if isinstance(schema, dict) else None


def _held_to(content: str, schema: dict[str, Any]) -> str:
    """What a model held to `schema` could have written instead of `content` (JSON only; other text as is)."""
    try:
        value = json.loads(content)
    except ValueError:
        return content

    def fit(value: Any, schema: dict[str, Any]) -> Any:
        if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
            names, closed = schema["properties"], schema.get("additionalProperties") is False
            return {k: fit(v, names[k]) if k in names else v for k, v in value.items() if k in names or not closed}
        if isinstance(value, list) and isinstance(schema.get("items"), dict):
            return [fit(v, schema["items"]) for v in value][:schema.get("maxItems", len(value))]
        return value

    return json.dumps(fit(value, schema))


def _tool_call(index: int, call: dict[str, Any]) -> dict[str, Any]:
    """Fill in what tests may leave out: ids, `type`, and arguments given as a dict instead of JSON text."""
    function = dict(call.get("function") or {"name": call.get("name"), "arguments": call.get("arguments", {})})
    if not isinstance(function.get("arguments"), str):
        function["arguments"] = json.dumps(function.get("arguments") or {})
    return {"id": call.get("id", f"call_{index}_{secrets.token_hex(4)}"), "type": "function", "function": function}


class FakeModel:
    """The model server. Serve `app`, then set `url`; point the bot at `{url}` or any `{url}/<prefix>`."""

    def __init__(self, api_token: str | None = "cf-test-token", served_model: str | None = None) -> None:
        self.api_token = api_token  # None: a server of one's own that asks for no key
        self.served_model = served_model
        self.url = ""
        self._lock = threading.Lock()
        self.reset()
        self.app = Starlette(
            routes=[
                Route("/chat/completions", self._complete, methods=["POST"]),
                Route("/{prefix:path}/chat/completions", self._complete, methods=["POST"]),
                Route("/{prefix:path}/ai/run/{model:path}", self._run, methods=["POST"]),
                Route("/{rest:path}", self._no_route, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
            ]
        )

    def reset(self) -> None:
        with self._lock:
            self.requests: list[RecordedRequest] = []
            self.script: deque[_Reply | _Error | _Delay] = deque()
            self.default: Callable[[dict[str, Any]], str] = _default_answer
            # x-session-affinity value -> serialised prompts seen so far (the "prefix cache").
            self._seen: dict[str, list[str]] = {}
            # The asynchronous queue: request id -> (body, affinity, polls left before it is done).
            self.queued: dict[str, tuple[dict[str, Any], str | None, int]] = {}
            self.async_polls_before_done = 1
            # And at least this many seconds after its submission (the provider's queue time, for benchmarks).
            self.async_queue_s = 0.0
            self._queued_at: dict[str, float] = {}
            self.async_calls: list[dict[str, Any]] = []
            # Request id -> its answer once run: the provider runs a queued request once, and every later poll
            # of it gets the same answer (a client that polls again after a crash is not billed again).
            self.async_done: dict[str, dict[str, Any]] = {}
            self.queue_errors: deque[_Error] = deque()  # answered by the queue (submit or poll) first
            # Submissions whose request this predicate matches are refused for good (413), whenever they come.
            self.refuse_submission: Callable[[dict[str, Any]], bool] | None = None
            self.async_final_status: str | None = None  # a due poll answers this status instead of the result
            # response_format kinds this provider refuses with 400 (8001): "strict" (a named schema with strict
            # mode), "schema" (a named schema), "bare" (a schema without the envelope), "json_object".
            self.rejected_forms: set[str] = set()
            # Top-level request fields this server refuses the way OpenAI's API does (HTTP 400, `error.message`
            # naming the parameter), as its reasoning models refuse `max_tokens`.
            self.rejected_fields: set[str] = set()
            # The `model` and `usage` of every completion answered, synchronously or through the queue.
            self.served: list[dict[str, Any]] = []
            self.latency = 0.0  # seconds every chat answer takes, on top of scripted delays (load tests)
            # A greedy model: these tool calls answer every unscripted request that lets it call tools.
            self.greedy_tool_calls: list[dict[str, Any]] | None = None
            # Models the catalogue does not pin, answered as if they were the pinned model named (a test's
            # text-only or unknown model): their requests are still checked, against that model's schemas.
            self.stand_ins: dict[str, str] = {}
            # Breaches of the pinned Workers AI schemas: "request: ..." by the client, "response: ..." by us.
            self.violations: list[str] = []
            # A model held to the request's response_format schema (as a grammar-constrained server is): an
            # answer keeps only the properties the schema names and at most its maxItems; off: answers as given.
            self.constrained = False

    def review_requests(self) -> list[RecordedRequest]:
        """Requests other than reviewbot's verification requests (which follow a review with findings)."""
        return [r for r in self.requests if not isinstance(r.json, dict) or verification_candidates(r.json) is None]

    def fix_requests(self) -> list[RecordedRequest]:
        """reviewbot's fix requests (not their verification), in order."""
        return [r for r in self.requests if isinstance(r.json, dict) and fix_turn(r.json) == "fix"]

    def script_reply(
        self,
        content: str,
        *,
        tool_calls: list[dict[str, Any]] | None = None,
        finish_reason: str = "stop",
        reasoning: str | None = None,
    ) -> None:
        with self._lock:
            self.script.append(_Reply(content, tool_calls, finish_reason, reasoning))

    def script_error(self, status: int, body: dict[str, Any] | str, headers: dict[str, str] | None = None) -> None:
        with self._lock:
            self.script.append(_Error(status, body, dict(headers or {})))

    def script_queue_error(self, status: int, body: dict[str, Any]) -> None:
        """The asynchronous queue's next answer (a submission or a poll) is this error."""
        with self._lock:
            self.queue_errors.append(_Error(status, body))

    def script_delay(self, seconds: float) -> None:
        """Make the next answer (scripted or default) wait this long first."""
        with self._lock:
            self.script.append(_Delay(seconds))

    async def _no_route(self, request: Request) -> Response:
        return _cloudflare_error(404, 7000, "No route for that URI")

    async def _complete(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in request.headers.items()}
        recorded = RecordedRequest(request.url.path, headers, body, started=time.monotonic())
        with self._lock:
            self.requests.append(recorded)
        if self.api_token is not None and headers.get("authorization") != f"Bearer {self.api_token}":
            return _cloudflare_error(401, 10000, "Authentication error")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return _cloudflare_error(400, 5006, "Error: required properties at '/' are 'messages'")
        if not isinstance(body.get("model"), str):
            return _cloudflare_error(400, 5006, "Error: required properties at '/' are 'model'")
        if (refused := self._check_request(body["model"], body)) is not None:
            return refused

        if _form(body.get("response_format")) in self.rejected_forms:
            return _cloudflare_error(400, 8001, "Invalid input: response_format")
        if refused_field := sorted(self.rejected_fields & body.keys()):
            message = f"Unsupported parameter: '{refused_field[0]}' is not supported with this model."
            return JSONResponse({"error": {"message": message, "type": "invalid_request_error",
                                           "param": refused_field[0], "code": "unsupported_parameter"}}, 400)
        delay, answer = self._next_answer(body)
        if delay + self.latency:
            await asyncio.sleep(delay + self.latency)
        recorded.finished = time.monotonic()
        if isinstance(answer, _Error):
            return _error_response(answer)
        completion = self._completion(body, answer, headers.get("x-session-affinity"))
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(_sse(completion, include_usage), media_type="text/event-stream")
        return JSONResponse(completion, headers={"cf-ray": f"{secrets.token_hex(8)}-SJC"})

    async def _run(self, request: Request) -> Response:
        """The native endpoint with `?queueRequest=true`: submit a batch, then poll it by request id."""
        headers = {k.lower(): v for k, v in request.headers.items()}
        if self.api_token is not None and headers.get("authorization") != f"Bearer {self.api_token}":
            return _cloudflare_error(401, 10000, "Authentication error")
        if request.query_params.get("queueRequest") != "true":
            return _cloudflare_error(400, 5006, "this fake only serves the asynchronous queue on /ai/run")
        body = json.loads(await request.body())
        with self._lock:
            self.async_calls.append(body)
        model = request.path_params["model"]
        with self._lock:
            queue_error = self.queue_errors.popleft() if self.queue_errors else None
        if queue_error is not None:
            return _error_response(queue_error)
        if model not in CONTRACTS or not CONTRACTS[model].async_queue:
            self._violate(f"request: queued for {model}, whose published properties have no async_queue")
            return _cloudflare_error(400, 5006, f"{model} does not support the asynchronous queue")
        if "requests" in body:
            for item in body["requests"] if isinstance(body["requests"], list) else [None]:
                if (refused := self._check_request(model, item)) is not None:
                    return refused
            if self.refuse_submission is not None and self.refuse_submission(body["requests"][0]):
                return _error_response(_Error(413, {"result": None, "success": False, "errors": [
                    {"code": 3006, "message": "Request is too large"}]}))
            request_id = secrets.token_hex(16)
            with self._lock:
                self.queued[request_id] = ({**body["requests"][0], "model": model}, headers.get("x-session-affinity"),
                                           self.async_polls_before_done)
                self._queued_at[request_id] = time.monotonic()
            return _envelope({"status": "queued", "request_id": request_id, "model": model})
        if not isinstance(body.get("request_id"), str):
            self._violate(f"request: a poll without a request id: {str(body)[:200]}")
            return _cloudflare_error(400, 5006, "Error: required properties at '/' are 'request_id'")
        request_id = str(body.get("request_id"))
        with self._lock:
            queued, affinity, polls = self.queued[request_id]
            if polls > 0:
                self.queued[request_id] = (queued, affinity, polls - 1)
        if polls > 0 or time.monotonic() - self._queued_at.get(request_id, 0.0) < self.async_queue_s:
            return _envelope({"status": "running", "request_id": request_id})
        if self.async_final_status is not None:
            return _envelope({"status": self.async_final_status, "request_id": request_id})
        if request_id in self.async_done:
            return _envelope(self.async_done[request_id])
        _, answer = self._next_answer(queued)
        if isinstance(answer, _Error):
            return _error_response(answer)
        completion = self._completion(queued, answer, affinity)
        done = {"responses": [{"id": 0, "result": completion, "success": True}], "usage": completion["usage"]}
        with self._lock:
            self.async_done[request_id] = done
        return _envelope(done)

    def _contract(self, model: str) -> Contract | None:
        return CONTRACTS.get(model) or CONTRACTS.get(self.stand_ins.get(model, ""))

    def _violate(self, what: str) -> None:
        with self._lock:
            self.violations.append(what)

    def _check_request(self, model: str, body: Any) -> Response | None:
        """None when `body` fits the model's pinned input schema; else the 400 Workers AI would answer."""
        contract = self._contract(model)
        if contract is None:
            self._violate(f"request: no pinned schema for model {model!r}")
            return _cloudflare_error(400, 5007, f"No such model {model} or task")
        if errors := contract.request_errors(body):
            self._violate(f"request for {model}: " + "; ".join(errors))
            return _cloudflare_error(400, 5006, "Error: " + errors[0])
        return None

    def _next_answer(self, body: dict[str, Any]) -> tuple[float, _Reply | _Error]:
        # Taken under one lock so concurrent requests never split a delay from the answer it precedes.
        with self._lock:
            delay = 0.0
            while self.script:
                item = self.script.popleft()
                if not isinstance(item, _Delay):
                    return delay, item
                delay += item.seconds
            default, greedy = self.default, self.greedy_tool_calls
        if greedy and body.get("tools") and body.get("tool_choice", "auto") == "auto":
            return delay, _Reply("", list(greedy), "tool_calls", None)
        return delay, _Reply(default(body), None, "stop", None)

    def _usage(self, body: dict[str, Any], content: str, affinity: str | None) -> dict[str, Any]:
        prompt = json.dumps({"tools": body.get("tools"), "messages": body["messages"]}, ensure_ascii=False)
        cached = 0
        if affinity is not None:
            with self._lock:
                seen = self._seen.setdefault(affinity, [])
                shared = max((common_prefix(prompt, earlier) for earlier in seen), default=0)
                seen.append(prompt)
            # Providers cache whole blocks of tokens, never a partial block.
            cached = (shared // _CHARS_PER_TOKEN) // _CACHE_BLOCK_TOKENS * _CACHE_BLOCK_TOKENS
        prompt_tokens, completion_tokens = _tokens(prompt), _tokens(content)
        return {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": 0},
        }

    def _completion(self, body: dict[str, Any], reply: _Reply, affinity: str | None) -> dict[str, Any]:
        if self.constrained and (schema := _answer_schema(body.get("response_format"))) is not None:
            reply = _Reply(_held_to(reply.content, schema), reply.tool_calls, reply.finish_reason, reply.reasoning)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        if reply.tool_calls is not None:
            message["tool_calls"] = [_tool_call(i, call) for i, call in enumerate(reply.tool_calls)]
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        completion = {
            "id": f"chatcmpl-{secrets.token_hex(12)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.served_model or body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": None}],
            "usage": self._usage(body, reply.content, affinity),
        }
        if (contract := self._contract(str(body["model"]))) is not None:
            for error in contract.response_errors(completion):
                self._violate(f"response for {body['model']}: {error}")
        with self._lock:
            self.served.append({"model": completion["model"], "usage": completion["usage"]})
        return completion


async def _sse(completion: dict[str, Any], include_usage: bool) -> AsyncIterator[str]:
    """The same completion as OpenAI-style `chat.completion.chunk` server-sent events."""
    base = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    choice = completion["choices"][0]
    message = choice["message"]

    def event(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
        return f"data: {json.dumps(chunk)}\n\n"

    yield event({"role": "assistant", "content": ""})
    if "reasoning_content" in message:
        yield event({"reasoning_content": message["reasoning_content"]})
    content = message["content"] or ""
    # Several small pieces, so that clients which forget to concatenate deltas fail visibly.
    for start in range(0, len(content), _STREAM_PIECE_CHARS):
        yield event({"content": content[start : start + _STREAM_PIECE_CHARS]})
    if "tool_calls" in message:
        yield event({"tool_calls": [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]})
    yield event({}, choice["finish_reason"])
    if include_usage:
        yield f"data: {json.dumps({**base, 'choices': [], 'usage': completion['usage']})}\n\n"
    yield "data: [DONE]\n\n"


# The built-in benchmark judge's request (reviewbot.eval.judge): one user message starting with this header, then
# "### Golden N" and "### Comment N" blocks, each heading followed by a blank line and the text.
JUDGE_HEADER = "## Match review comments to golden comments"
_JUDGE_BLOCK = re.compile(r"^### (Golden|Comment) (\d+)\n\n(.*)$", re.MULTILINE)


def judge_lists(request_json: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """(golden comments, review comments) a judge request compares, or None for any other request."""
    for message in request_json.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if message.get("role") == "user" and isinstance(content, str) and content.startswith(JUDGE_HEADER):
            blocks = _JUDGE_BLOCK.findall(content)
            return [t for kind, _, t in blocks if kind == "Golden"], [t for kind, _, t in blocks if kind == "Comment"]
    return None


def judging(review: Callable[[dict[str, Any]], str],
            same: Callable[[str, str], bool]) -> Callable[[dict[str, Any]], str]:
    """A `default` for benchmark runs: judge requests get the pairs `same(golden, comment)` accepts; every other
    request goes to `review` (for example an `answering(...)`)."""

    def answer(request_json: dict[str, Any]) -> str:
        lists = judge_lists(request_json)
        if lists is None:
            return review(request_json)
        golden, comments = lists
        return json.dumps({"matches": [{"golden": g, "comments": [c for c, text in enumerate(comments, 1)
                                                                   if same(gold, text)], "reason": "fake judge"}
                                       for g, gold in enumerate(golden, 1)]})

    return answer

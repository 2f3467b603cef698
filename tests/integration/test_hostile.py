"""Hostile input, fuzzed with hypothesis: webhooks (never a 5xx, never an enqueue without a valid signature) and
diffs (the parser, anchoring and the publish planner fail only with DiffError, and never plan a 422)."""

from __future__ import annotations

import asyncio
import copy
import json
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis import Redis

from reviewbot.errors import DiffError
from reviewbot.model import Usage
from reviewbot.review.config import RepoConfig
from reviewbot.review.diff.parse import parse_diff, render_numbered
from reviewbot.review.findings.anchoring import anchor
from reviewbot.review.findings.schema import Finding
from reviewbot.review.publish.markdown import ReviewReport
from reviewbot.review.publish.posting import plan
from reviewbot.settings import Settings
from reviewbot.state.shared_keys import METRICS_PREFIX
from reviewbot.webhooks.server import create_app
from reviewbot.webhooks.signature import sign
from tests.conftest import WEBHOOK_SECRET
from tests.helpers import deliver, payload

FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
EVENTS = ["pull_request", "issue_comment", "check_run", "check_suite", "ping", "installation", "push",
          "code_scanning_alert", ""]
FIXTURES = ["pull_request.opened", "pull_request.synchronize", "pull_request.closed", "issue_comment.created",
            "check_run.rerequested", "check_run.requested_action", "check_suite.rerequested", "ping"]
CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "application/JSON", "text/plain",
                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/json;;;"]
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=10), kids, max_size=5),
                    max_leaves=30)


class Hook:
    """reviewbot's ASGI app in this process (httpx.ASGITransport: no sockets), on its own event loop."""

    def __init__(self, redis_url: str) -> None:
        env = {"GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET, "REDIS_URL": redis_url, "REVIEWBOT_APP_SLUG": "reviewbot"}
        self.app = create_app(Settings.from_mapping(env), redis_url)
        self.loop = asyncio.new_event_loop()
        self.lifespan = self.app.router.lifespan_context(self.app)
        self.loop.run_until_complete(self.lifespan.__aenter__())
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url="http://hook")
        self.redis = Redis.from_url(redis_url)

    def post(self, body: bytes, headers: dict[str, str] | list[tuple[bytes, bytes]]) -> httpx.Response:
        return self.loop.run_until_complete(self.client.post("/webhooks/github", content=body, headers=headers))

    def state(self) -> tuple[int, int]:
        """(keys in Redis, queued jobs): an enqueue, or any other write, changes it. The metrics counters are left
        out: counting refused deliveries is their job, and the first refusal of a run creates their key."""
        keys = sum(1 for key in self.redis.scan_iter(count=1000) if not key.startswith(METRICS_PREFIX.encode()))
        return keys, int(self.redis.zcard("arq:queue"))

    def close(self) -> None:
        self.loop.run_until_complete(self.client.aclose())
        self.loop.run_until_complete(self.lifespan.__aexit__(None, None, None))
        self.loop.close()
        self.redis.close()


@pytest.fixture(scope="module")
def hook(redis_server: str) -> Iterator[Hook]:
    served = Hook(redis_server)
    yield served
    served.close()


def headers_for(event: str, body: bytes, signature: str | None, content_type: str, delivery: str) -> dict[str, str]:
    sent = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery, "Content-Type": content_type}
    return sent | ({"X-Hub-Signature-256": signature} if signature is not None else {})


def mutate(data: Any, path: list[int], value: Any) -> Any:
    """Replace (or, with DELETE, remove) the node of a JSON tree that `path` leads to (indexes modulo size)."""
    data = copy.deepcopy(data)
    parent: Any = None
    key: Any = None
    node = data
    for step in path:
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys:
            break
        parent, key = node, keys[step % len(keys)]
        node = parent[key]
    if parent is None:
        return None if value is DELETE else value
    if value is DELETE and isinstance(parent, dict):
        del parent[key]
    else:
        parent[key] = None if value is DELETE else value
    return data


DELETE = object()
BODIES = st.one_of(
    st.binary(max_size=3000),
    JSON.map(lambda v: json.dumps(v).encode()),
    st.builds(lambda name, path, value: json.dumps(mutate(payload(name), path, value)).encode(),
              st.sampled_from(FIXTURES), st.lists(st.integers(0, 50), min_size=1, max_size=6),
              JSON | st.just(DELETE) | st.integers(min_value=2**63) | st.text(min_size=5000, max_size=6000)),
    st.builds(lambda name, codec: json.dumps(payload(name), ensure_ascii=False).encode(codec),
              st.sampled_from(FIXTURES), st.sampled_from(["utf-16", "utf-32", "utf-8-sig", "latin-1"])),
    st.integers(1, 200_000).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(1, 200_000).map(lambda depth: b'{"a":' * depth + b"1" + b"}" * depth),
    st.just(b'{"action": "opened", "number": ' + b"9" * 5000 + b"}"),
)


@FUZZ
@given(body=BODIES, event=st.sampled_from(EVENTS) | st.text(max_size=20),
       signature=st.one_of(st.none(), st.text(max_size=80), st.just("sha256="),
                           st.binary(min_size=32, max_size=32).map(lambda b: "sha256=" + b.hex())),
       wrong=st.sampled_from(["other secret", "", WEBHOOK_SECRET.upper()]),
       content_type=st.sampled_from(CONTENT_TYPES), delivery=st.text(max_size=120))
def test_without_a_valid_signature_nothing_is_written_or_enqueued(
        hook: Hook, body: bytes, event: str, signature: str | None, wrong: str, content_type: str,
        delivery: str) -> None:
    before = hook.state()
    for sig in (signature, sign(wrong, body), sign(WEBHOOK_SECRET, body + b" "), sign(WEBHOOK_SECRET, body).upper()):
        headers = headers_for(event, body, sig, content_type, delivery)
        response = hook.post(body, [(k.encode(), v.encode("utf-8", "replace")) for k, v in headers.items()])
        assert response.status_code == 401, (sig, response.text)
    assert hook.state() == before


MUTATED = st.sampled_from(FIXTURES).flatmap(lambda name: st.tuples(
    st.just(name.split(".")[0]),
    st.builds(lambda path, value: json.dumps(mutate(payload(name), path, value)).encode(),
              st.lists(st.integers(0, 50), min_size=1, max_size=6),
              JSON | st.just(DELETE) | st.integers(min_value=2**63) | st.text(min_size=5000, max_size=6000))))
SIGNED = MUTATED | st.tuples(st.sampled_from(EVENTS) | st.text(max_size=20), BODIES)


@FUZZ
@given(sent=SIGNED, content_type=st.sampled_from(CONTENT_TYPES[:3]) | st.sampled_from(CONTENT_TYPES),
       delivery=st.text(max_size=120))
def test_signed_garbage_never_gets_a_5xx_and_only_well_formed_jobs_are_queued(
        hook: Hook, sent: tuple[str, bytes], content_type: str, delivery: str) -> None:
    event, body = sent
    headers = headers_for(event, body, sign(WEBHOOK_SECRET, body), content_type, delivery)
    response = hook.post(body, [(k.encode(), v.encode("utf-8", "replace")) for k, v in headers.items()])
    assert response.status_code < 500, response.text
    assert isinstance(response.json(), dict)
    hypothesis.event(f"{response.status_code} {response.json().get('status', '')}")
    if response.json().get("status") == "queued":
        raw = hook.redis.get(f"arq:job:{response.json()['job_id']}")
        job = json.loads(raw or b"null")  # JSON, never pickle
        installation, repo, number, head_sha, *more = job["a"]  # a closed pull request's job adds `merged`
        assert isinstance(installation, int) and isinstance(number, int) and isinstance(repo + head_sha, str)
        assert all(isinstance(m, bool) for m in more) and len(more) <= 1
    hook.redis.flushall()


@pytest.mark.parametrize("value", [1, "7", {"number": 7}, None])
def test_check_runs_with_a_malformed_pull_request_list_are_answered(hook: Hook, value: Any) -> None:
    # Found by the fuzzer above: `"pull_requests": 1` made the endpoint answer 500.
    data = payload("check_run.rerequested")
    data["check_run"]["pull_requests"] = value
    data["check_run"]["external_id"] = ""  # another App's run: nothing else names a pull request
    body = json.dumps(data).encode()
    response = hook.post(body, headers_for("check_run", body, sign(WEBHOOK_SECRET, body), "application/json", ""))
    assert response.status_code == 202 and response.json()["status"] == "ignored"


HEADER_TEXT = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=60)  # what HTTP/1.1 can carry


@settings(FUZZ, max_examples=40)
@given(sent=MUTATED | st.tuples(st.sampled_from(EVENTS) | HEADER_TEXT, BODIES),
       content_type=st.sampled_from(CONTENT_TYPES), delivery=HEADER_TEXT, signed=st.booleans())
def test_over_real_http_fuzzed_deliveries_never_get_a_5xx(
        web: httpx.Client, sent: tuple[str, bytes], content_type: str, delivery: str, signed: bool) -> None:
    event, body = sent
    signature = sign(WEBHOOK_SECRET, body) if signed else "sha256=" + "0" * 64
    response = web.post("/webhooks/github", content=body,
                        headers=headers_for(event, body, signature, content_type, delivery))
    assert response.status_code < 500, response.text
    assert signed or response.status_code == 401


def test_over_real_http_hostile_requests_get_a_4xx(web: httpx.Client, redis_url: str) -> None:
    body = json.dumps(payload("pull_request.opened")).encode()
    nested = b"[" * 100_000 + b"]" * 100_000
    cases = [
        deliver(web, "pull_request", nested),
        deliver(web, "pull_request", b"\xff\xfe\x00garbage"),
        deliver(web, "pull_request", body, headers={"Content-Type": "application/xml"}),
        deliver(web, "pull_request", body, headers={"X-Hub-Signature-256": "sha256=" + "0" * 64}),
        web.post("/webhooks/github", content=(b"x" * 1024 for _ in range(26 * 1024)),  # 26 MB chunked, no length
                 headers={"X-GitHub-Event": "ping", "Content-Type": "application/json"}),
        web.get("/webhooks/github"),
    ]
    assert [r.status_code for r in cases] == [400, 400, 415, 401, 413, 405]
    huge = b"Content-Length: 999999999999\r\nX-GitHub-Event: ping\r\nContent-Type: application/json\r\n\r\n{"
    assert raw_status(web, b"POST /webhooks/github HTTP/1.1\r\nHost: x\r\n" + huge) == 413  # before reading it
    assert raw_status(web, b"POST /webhooks/github HTTP/1.1\r\nHost: x\r\nX-Bad\x00: y\r\n\r\n") == 400
    assert raw_status(web, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n") == 400  # TLS hello
    with Redis.from_url(redis_url) as r:
        assert r.zcard("arq:queue") == 0


def raw_status(client: httpx.Client, request: bytes) -> int:
    """Send bytes no HTTP client would, and read the status line of the answer."""
    with socket.create_connection((client.base_url.host, client.base_url.port or 80), timeout=10) as sock:
        sock.sendall(request)
        return int(sock.recv(4096).split(b" ", 2)[1])


# ----- diffs ---------------------------------------------------------------------------------------------------

PIECES = ["diff --git a/x.py b/x.py", "diff --git a/x.py b/y.py", 'diff --git "a/q\\tx" "b/q\\tx"', "--- a/x.py",
          "+++ b/x.py", "--- /dev/null", "+++ /dev/null", "@@ -1,3 +1,4 @@", "@@ -1 +1 @@", "@@ -0,0 +1,2 @@ def f():",
          "@@ -5,2 +5,0 @@", "@@ -a,b +c @@", "@@ -1,99999999999999999999 +1 @@", "@@ -1,3 +1,4", "@@ @@", "+added",
          "-removed", " context", "", "\\ No newline at end of file", "Binary files a/x.py and b/x.py differ",
          "GIT binary patch", "literal 0", "HcmV?d00001", "new file mode 100644", "deleted file mode 100644",
          "old mode 100644", "new mode 100755", "rename from x.py", "rename to y.py", "similarity index 90%",
          "copy from x.py", "copy to z.py", "index abc..def 100644", "+" + "x" * 20_000, "\x00\x01\ufffd", "+\r",
          "+é漢字 @everyone <img src=x>", "--- ", "+++ ", "diff --git", "diff --git a/ b/", "-" * 3, "+" * 3]
DIFFS = st.one_of(
    st.lists(st.sampled_from(PIECES) | st.text(max_size=30), max_size=60).map("\n".join),
    st.lists(st.sampled_from(PIECES), max_size=60).map("\r\n".join),
    st.binary(max_size=2000),
)
TEXT = st.text(max_size=80) | st.sampled_from(["@everyone", "![x](https://evil.example/x.png)", "<script>", "`", "\n"])


@st.composite
def findings_for(draw: st.DrawFn, paths: list[str]) -> list[Finding]:
    found = []
    for _ in range(draw(st.integers(0, 6))):
        line = draw(st.integers(1, 10**6))
        found.append(Finding.model_validate({
            "path": draw(st.sampled_from(paths) if paths else st.text(min_size=1, max_size=20)) or "x",
            "line": line, "start_line": draw(st.none() | st.integers(1, line + 3)),
            "side": draw(st.sampled_from(["RIGHT", "LEFT"])), "severity": draw(st.sampled_from(["critical", "nit"])),
            "category": "bug", "title": draw(TEXT) or "t", "body": draw(TEXT), "suggestion": draw(st.none() | TEXT),
            "confidence": 0.5}))
    return found


@FUZZ
@given(text=DIFFS, data=st.data())
def test_diffs_parse_anchor_and_plan_or_fail_with_a_diff_error(text: str | bytes, data: st.DataObject) -> None:
    try:
        diff = parse_diff(text)
    except DiffError:
        return
    for file in diff.files:
        render_numbered(file)
    placement = anchor(data.draw(findings_for([f.path for f in diff.files])), diff)
    report = ReviewReport(summary=data.draw(TEXT), placement=placement, usage=Usage(), model="m",
                          files_reviewed=len(diff.files))
    publication = plan(report, diff, head_sha="a" * 40, config=RepoConfig(max_comments=100), run_id="r", key=b"k")
    for comment in publication.payload["comments"]:  # what GitHub would refuse with a 422 is never planned
        file = diff.file(comment["path"])
        assert file is not None and comment["line"] in file.commentable(comment["side"])
        if "start_line" in comment:
            assert comment["start_line"] < comment["line"]
            assert file.hunk_index(comment["side"], comment["start_line"]) == \
                file.hunk_index(comment["side"], comment["line"])
    assert len(publication.payload["body"]) <= 65_536

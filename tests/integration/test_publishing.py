"""Publishing end to end against the fake GitHub: re-reviews without repeats, resolved threads, once-only
posting, the 422 fallback, configuration from the base branch and the organisation."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx

from reviewbot.queue import functions
from reviewbot.queue.enqueue import enqueue_review
from reviewbot.queue.request import ReviewRequest
from reviewbot.queue.worker import redis_settings
from reviewbot.settings import Settings
from tests.conftest import INSTALLATION, REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import deliver, payload, run_worker_until_idle

BASE = "def load(path):\n    return open(path).read()\n\n\ndef parse(text):\n    return text.split(',')\n"
HEAD_1 = ("def load(path):\n    data = open(path).read()\n    return data\n\n\n"
          "def parse(text):\n    return eval(text)\n")
# The push fixes load (closes the file) and adds save(), which has a new problem; parse is untouched.
HEAD_2 = ("import json\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
          "def parse(text):\n    return eval(text)\n\n\n"
          "def save(path, obj):\n    open(path, 'w').write(json.dumps(obj))\n")


def finding(line: int, title: str, category: str = "bug", severity: str = "major", **kw: Any) -> dict[str, Any]:
    return {"path": "app/io.py", "line": line, "start_line": None, "side": "RIGHT", "severity": severity,
            "category": category, "title": title, "body": f"{title}.", "suggestion": None, "confidence": 0.9} | kw


async def review(web: httpx.Client, settings: Settings, redis_url: str, pull: dict[str, Any],
                 event: str = "pull_request.opened", **extra: Any) -> None:
    assert deliver(web, "pull_request", payload(event, pull) | extra).status_code == 202
    await run_worker_until_idle(settings, redis_url)


async def test_a_re_review_posts_only_the_new_finding_and_resolves_the_fixed_one(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": BASE}, head_files={"app/io.py": HEAD_1})
    fake_model.script_reply(findings_json([finding(2, "File handle is never closed"),
                                           finding(7, "eval on untrusted input", "security", "critical")]))
    await review(web, settings, redis_url, pull)
    [first] = fake_github.reviews[(REPO, 7)]
    assert len(first["comments"]) == 2

    pushed = fake_github.update_head(REPO, 7, {"app/io.py": HEAD_2})
    # The model reports the eval again (now on line 10) and a new problem in save(); the leak is fixed.
    fake_model.script_reply(findings_json([finding(10, "Eval on untrusted input!", "security", "critical"),
                                           finding(14, "File handle is never closed in save")]))
    await review(web, settings, redis_url, pushed, "pull_request.synchronize", before=pull["head"]["sha"])
    _, second = fake_github.reviews[(REPO, 7)]
    assert [(c["line"], "save" in c["body"]) for c in second["comments"]] == [(14, True)]  # zero repeats
    assert "1 finding(s) already open on this pull request were not repeated" in second["body"]
    resolved = [c for c in fake_github.review_comments[(REPO, 7)] if c.get("in_reply_to_id")]
    assert len(resolved) == 1 and "fixed" in resolved[0]["body"]
    assert len(fake_github.resolved_threads) == 1
    last = max(fake_github.check_runs.values(), key=lambda c: c["id"])
    assert "1 earlier finding(s) are fixed" in last["output"]["summary"]
    assert last["conclusion"] == "neutral"  # a critical finding is still open; blocking is not opted in


async def test_the_same_request_run_twice_posts_once(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    from arq import create_pool

    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": BASE}, head_files={"app/io.py": HEAD_1})
    fake_model.script_reply(findings_json([finding(2, "File handle is never closed")]))
    pool = await create_pool(redis_settings(redis_url), job_serializer=functions.serialize,
                             job_deserializer=functions.deserialize)
    try:
        for _ in range(2):  # e.g. a worker that died after posting: arq runs the same job again
            request = ReviewRequest(INSTALLATION, REPO, 7, pull["head"]["sha"], trigger="opened", run="guid-1")
            await enqueue_review(pool, request)
            await run_worker_until_idle(settings, redis_url)
    finally:
        await pool.aclose()
    assert len(fake_github.reviews[(REPO, 7)]) == 1
    assert len(fake_model.review_requests()) == 1  # the second run asked the model nothing
    assert [c["status"] for c in fake_github.check_runs.values()] == ["completed"]


async def test_a_422_moves_the_comments_into_the_body_and_posts_once(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": BASE}, head_files={"app/io.py": HEAD_1})
    fake_model.script_reply(findings_json([finding(2, "File handle is never closed")]))
    fake_github.inject("POST", f"/repos/{REPO}/pulls/7/reviews", 422,
                       {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]})
    await review(web, settings, redis_url, pull)
    [posted] = fake_github.reviews[(REPO, 7)]
    assert posted["comments"] == []
    assert "Comments GitHub would not place inline" in posted["body"] and "never closed" in posted["body"]


async def test_an_unknown_key_is_named_in_the_check_run_and_the_valid_keys_still_apply(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    config = {".github/reviewbot.yml": "max_coments: 1\nseverity_threshold: Major\nblocking_severity: major\n"}
    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": BASE, **config},
                                head_files={"app/io.py": HEAD_1, **config})
    fake_model.script_reply(findings_json([finding(2, "File handle is never closed"),
                                           finding(3, "Name could be clearer", severity="minor")]))
    await review(web, settings, redis_url, pull)
    [check] = fake_github.check_runs.values()
    summary = check["output"]["summary"]
    assert "Configuration problems" in summary and "line 1" in summary and "`max_coments`" in summary
    assert "did you mean `max_comments`" in summary
    # One typo does not throw the file away: the threshold (written `Major`) and the blocking severity hold.
    assert [c["line"] for c in fake_github.reviews[(REPO, 7)][0]["comments"]] == [2]
    assert check["conclusion"] == "failure"


async def test_org_defaults_apply_and_the_repository_overrides_them(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_github.add_installation(INSTALLATION, [REPO, "acme/.github"])
    fake_github.commits[("acme/.github", "main")] = {
        ".github/reviewbot.yml": "max_comments: 1\nseverity_threshold: major\n"}
    repo_config = {".github/reviewbot.yml": "severity_threshold: nit\n"}
    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": BASE, **repo_config},
                                head_files={"app/io.py": HEAD_1, **repo_config})
    fake_model.script_reply(findings_json([finding(2, "Leak"), finding(3, "Style", "style", "nit"),
                                           finding(7, "Eval", "security", "critical")]))
    await review(web, settings, redis_url, pull)
    [posted] = fake_github.reviews[(REPO, 7)]
    assert [c["line"] for c in posted["comments"]] == [7]  # the org's cap of one, most severe first
    assert "#### More findings" in posted["body"] and "Style" in posted["body"]  # the repo's threshold: nit


def test_config_schema_and_validate_commands(tmp_path: Any) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "reviewbot", "config", *args], capture_output=True,
                              text=True, timeout=60)

    schema = run("schema")
    assert schema.returncode == 0 and '"max_comments"' in schema.stdout
    good, bad = tmp_path / "good.yml", tmp_path / "bad.yml"
    good.write_text("max_comments: 5\nignore: ['docs/**']\n")
    bad.write_text("max_comments: -1\n")
    assert run("validate", str(good)).returncode == 0
    failed = run("validate", str(bad))
    assert failed.returncode == 1 and "max_comments" in failed.stderr


async def test_a_thread_a_person_replied_to_is_left_for_them(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": BASE}, head_files={"app/io.py": HEAD_1})
    fake_model.script_reply(findings_json([finding(2, "File handle is never closed")]))
    await review(web, settings, redis_url, pull)
    [ours] = fake_github.review_comments[(REPO, 7)]
    fake_github.review_comments[(REPO, 7)].append({**ours, "id": ours["id"] + 100_000, "in_reply_to_id": ours["id"],
                                                   "user": {"login": "octocat", "type": "User"},
                                                   "body": "I disagree, the GC closes it."})
    pushed = fake_github.update_head(REPO, 7, {"app/io.py": HEAD_2})
    fake_model.script_reply(findings_json([]))
    await review(web, settings, redis_url, pushed, "pull_request.synchronize", before=pull["head"]["sha"])
    assert fake_github.resolved_threads == set()
    assert not [c for c in fake_github.review_comments[(REPO, 7)] if "fixed" in c["body"]]


async def test_more_than_fifty_annotations_go_in_batches(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    head = "".join(f"v{i} = eval(input())\n" for i in range(60))
    pull = fake_github.add_pull(REPO, 7, base_files={"app/io.py": ""}, head_files={"app/io.py": head})
    fake_model.script_reply(findings_json([finding(i, f"eval number {i}", "security") for i in range(1, 61)]))
    await review(web, settings, redis_url, pull)
    [check] = fake_github.check_runs.values()
    assert len(check["annotations"]) == 60
    assert [len(h.get("output", {}).get("annotations", [])) for h in check["history"]][-2:] == [50, 10]

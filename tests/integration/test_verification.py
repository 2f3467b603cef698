"""The precision policy through a real worker: verification verdicts, `verify: off`, multi-pass merging, and
`@app security-review` end to end with CWE tags and the check run's security summary."""

from __future__ import annotations

import json
from typing import Any

import httpx

from reviewbot.review.config import json_schema, parse_config, precision
from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, answering, findings_json, verification_candidates
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, comment, deliver, payload, run_worker_until_idle

CONFIG = ".github/reviewbot.yml"
EMPTY_CHECK = bug_finding(line=2, title="result starts at zero instead of the first price", severity="major")
LOOP = bug_finding(line=3, title="The loop re-reads items lazily", severity="critical")
AVERAGE = bug_finding()  # line 5: divides by the count


def open_pull(github: FakeGitHub, config: str = "", number: int = 7) -> dict[str, Any]:
    files = {CONFIG: config} if config else {}
    return github.add_pull(REPO, number, base_files={"app/calc.py": BASE_CALC, **files},
                           head_files={"app/calc.py": HEAD_CALC, **files}, title="Rewrite total")


async def review(web: httpx.Client, settings: Settings, redis_url: str, github: FakeGitHub,
                 pull: dict[str, Any]) -> dict[str, Any]:
    assert deliver(web, "pull_request", payload("pull_request.opened", pull)).status_code == 202
    await run_worker_until_idle(settings, redis_url)
    [posted] = github.reviews[(REPO, pull["number"])]
    return dict(posted)


def only_check(github: FakeGitHub) -> dict[str, Any]:
    [check] = github.check_runs.values()
    return check


async def test_verdicts_decide_what_is_posted_and_the_summary_counts_the_dropped(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([AVERAGE, EMPTY_CHECK, LOOP]), {
        EMPTY_CHECK["title"]: ("refute", None), LOOP["title"]: ("downgrade", "minor")})
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github))

    bodies = {c["line"]: c["body"] for c in posted["comments"]}
    assert set(bodies) == {3, 5}  # the refuted finding on line 2 is not posted
    assert bodies[5].startswith("🟠 **Major**")  # confirmed as it was
    assert bodies[3].startswith("🟡 **Minor**") and "downgraded from critical" in bodies[3]
    assert "1 candidate finding was checked and dropped" in posted["body"]
    summary = only_check(fake_github)["output"]["summary"]
    assert "1 candidate finding was checked and dropped" in summary and EMPTY_CHECK["title"] in summary

    # One batched verification request after the review: the same messages first (the cached prefix), the same
    # tools and the same affinity, then the candidates with the code around them.
    first, check = fake_model.requests
    assert check.json["messages"][:2] == first.json["messages"][:2]
    assert check.json["tools"] == first.json["tools"] and first.json["tools"]
    assert check.headers["x-session-affinity"] == first.headers["x-session-affinity"]
    assert sorted(t for _, t in verification_candidates(check.json) or []) == sorted(
        [LOOP["title"], AVERAGE["title"], EMPTY_CHECK["title"]])
    assert ">    5      return result / len(items)" in check.json["messages"][-1]["content"]
    assert check.json["response_format"]["json_schema"]["name"] == "verification"


async def test_verify_off_posts_without_a_second_request(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.default = answering(findings_json([AVERAGE]), {AVERAGE["title"]: ("refute", None)})
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github, "verify: off\n"))
    assert len(fake_model.requests) == 1
    assert [c["line"] for c in posted["comments"]] == [5]
    assert "checked" not in posted["body"]


async def test_minor_findings_are_not_checked_by_default_but_are_with_verify_all(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    minor = bug_finding(severity="minor", title="Minor nit on the loop", line=3)
    fake_model.default = answering(findings_json([minor]), {minor["title"]: ("refute", None)})
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github))
    assert len(fake_model.requests) == 1 and len(posted["comments"]) == 1
    fake_model.reset()
    fake_model.default = answering(findings_json([minor]), {minor["title"]: ("refute", None)})
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github, "verify: all\n", number=8))
    assert len(fake_model.requests) == 2 and posted["comments"] == []


async def test_passes_are_merged_by_fingerprint_before_one_verification(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    reworded = bug_finding(title="Average instead of a sum", confidence=0.7)  # same line, code and category

    def by_pass(request: dict[str, Any]) -> str:
        last = request["messages"][-1]["content"]
        if "## Review pass 3" in last:
            return findings_json([reworded, LOOP])
        return findings_json([AVERAGE] if "## Review pass 2" in last else [AVERAGE, reworded])

    fake_model.default = answering(by_pass)
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github, "passes: 3\n"))

    passes = fake_model.review_requests()
    assert len(passes) == 3 and len(fake_model.requests) == 4
    assert all(p.json["messages"][:2] == passes[0].json["messages"] for p in passes)  # one cached prefix
    assert len({p.headers["x-session-affinity"] for p in fake_model.requests}) == 1
    [check] = [r for r in fake_model.requests if r not in passes]
    assert sorted(t for _, t in verification_candidates(check.json) or []) == sorted(
        [AVERAGE["title"], LOOP["title"]])
    assert sorted(c["line"] for c in posted["comments"]) == [3, 5]
    assert "3 independent review passes, 3 duplicate finding(s) merged" in posted["body"]
    assert "Average instead of a sum" not in json.dumps(posted)  # the more confident copy won


async def test_security_review_command_end_to_end(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    injection = bug_finding(line=4, category="security", severity="critical", cwe="cwe-89",
                            title="Price is interpolated into SQL", suggestion=None)
    secret = bug_finding(line=2, category="security", severity="minor", cwe="CWE-798",
                         title="A token is hard-coded", suggestion=None)
    fake_model.default = answering(findings_json([injection, secret]), {secret["title"]: ("refute", None)})
    pull = open_pull(fake_github)
    body = comment(fake_github, pull, "@reviewbot-test security-review")
    assert deliver(web, "issue_comment", body).json()["status"] == "queued"
    await run_worker_until_idle(settings, redis_url)

    [posted] = fake_github.reviews[(REPO, pull["number"])]
    [only] = posted["comments"]
    assert only["line"] == 4 and "· security · CWE-89 ·" in only["body"]
    first, check = fake_model.requests
    assert "## Security review" in first.json["messages"][1]["content"]  # the checklist
    assert "SSRF" in first.json["messages"][1]["content"]
    # Security mode verifies every candidate, the minor one too.
    assert len(verification_candidates(check.json) or []) == 2
    summary = only_check(fake_github)["output"]["summary"]
    assert "#### Security" in summary and "| CWE-89 (SQL injection) | 1 |" in summary
    assert "CWE-798" not in summary.split("#### Security")[1].split("\n\n")[1]  # the refuted one is not counted


async def test_an_unusable_verification_answer_posts_the_candidates_marked_unverified(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    def review_or_junk(request: dict[str, Any]) -> str:
        if verification_candidates(request) is not None:
            return '{"verdicts": []}'  # no verdict for the candidate, twice
        return findings_json([AVERAGE])

    fake_model.default = review_or_junk
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github))
    _, _, repair = fake_model.requests
    assert "verdicts are missing for candidate ids 1" in repair.json["messages"][-1]["content"]
    [comment_] = posted["comments"]
    assert comment_["line"] == 5 and "**unverified**" in comment_["body"]
    assert "1 candidate finding(s) could not be checked" in posted["body"]
    assert only_check(fake_github)["conclusion"] == "neutral"  # a major finding: not a success


def test_the_config_schema_documents_verify_and_passes() -> None:
    schema = json.loads(json_schema())["properties"]
    assert schema["verify"]["enum"] == ["off", "major", "all"] and schema["verify"]["default"] == "major"
    assert (schema["passes"]["minimum"], schema["passes"]["maximum"], schema["passes"]["default"]) == (1, 5, 1)
    assert parse_config("verify: off\npasses: 2\n").config.verify == "off"  # YAML's bare off is a boolean
    assert parse_config("passes: 9\n").errors
    # focus: [security] in the config is security mode: every candidate is verified, even with verify: off
    assert precision(parse_config("focus: [security]\nverify: off\n").config).policy == "all"


async def test_a_queued_verification_resumes_without_asking_for_the_review_again(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    capacity = {"errors": [{"code": 3040, "message": "Capacity temporarily exceeded"}]}
    fake_model.script_reply(findings_json([AVERAGE]))  # the review is answered at once...
    for _ in range(3):
        fake_model.script_error(429, capacity)  # ...the verification finds the provider full
    fake_model.async_polls_before_done = 1
    posted = await review(web, settings, redis_url, fake_github, open_pull(fake_github))

    assert len(fake_model.review_requests()) == 1  # the re-run job replayed the review from its memo
    [submitted] = [c["requests"][0] for c in fake_model.async_calls if "requests" in c]
    assert verification_candidates(submitted) == [(1, AVERAGE["title"])]
    assert [c["line"] for c in posted["comments"]] == [5]
    assert "asynchronous queue" in posted["body"]

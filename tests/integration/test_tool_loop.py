"""The tool loop through a real worker: tools answered from the base tree, bounded turns, stable prefix."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import httpx

from reviewbot.settings import Settings
from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import BASE_CALC, HEAD_CALC, bug_finding, deliver, payload, run_worker_until_idle

HELPERS = "def price_with_tax(cents):\n    return cents * 108 // 100\n"


def open_with_helpers(github: FakeGitHub) -> dict[str, Any]:
    files = {"app/calc.py": BASE_CALC, "app/helpers.py": HELPERS}
    return github.add_pull(REPO, 7, base_files=files, head_files={**files, "app/calc.py": HEAD_CALC})


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


async def test_tool_calls_are_answered_from_the_base_tree_with_a_stable_prefix(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply("", tool_calls=[tool_call("read_file", path="app/helpers.py"),
                                            tool_call("list_files", directory="app")], finish_reason="tool_calls")
    fake_model.script_reply(findings_json([bug_finding(severity="minor")]))  # minor: no verification request
    deliver(web, "pull_request", payload("pull_request.opened", open_with_helpers(fake_github)))
    await run_worker_until_idle(settings, redis_url)
    first, second = fake_model.requests
    assert [t["function"]["name"] for t in first.json["tools"]] == ["read_file", "search_code", "list_files"]
    assert json.dumps(first.json["tools"]) == json.dumps(second.json["tools"])  # byte-identical definitions
    assert second.json["messages"][:len(first.json["messages"])] == first.json["messages"]  # the cached prefix
    assert first.headers["x-session-affinity"] == second.headers["x-session-affinity"]
    assistant, read, listed = second.json["messages"][-3:]
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["read_file", "list_files"]
    assert read["role"] == "tool" and "def price_with_tax" in read["content"]
    assert "helpers.py" in listed["content"].splitlines()
    assert len(fake_github.reviews[(REPO, 7)]) == 1


async def test_reading_outside_the_repository_is_refused_to_the_model(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    fake_model.script_reply("", tool_calls=[tool_call("read_file", path="../../../../etc/passwd"),
                                            tool_call("read_file", path="/etc/passwd")], finish_reason="tool_calls")
    fake_model.script_reply(findings_json([]))
    deliver(web, "pull_request", payload("pull_request.opened", open_with_helpers(fake_github)))
    await run_worker_until_idle(settings, redis_url)
    answers = [m["content"] for m in fake_model.requests[1].json["messages"] if m["role"] == "tool"]
    assert len(answers) == 2 and all(a.startswith("error:") and "root:" not in a for a in answers)


async def test_the_loop_is_bounded_and_the_last_turn_must_answer(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    two_turns = dataclasses.replace(settings, max_tool_turns=2)
    for _ in range(2):
        fake_model.script_reply("", tool_calls=[tool_call("search_code", pattern="price")],
                                finish_reason="tool_calls")
    fake_model.script_reply(findings_json([bug_finding(severity="minor")]))
    deliver(web, "pull_request", payload("pull_request.opened", open_with_helpers(fake_github)))
    await run_worker_until_idle(two_turns, redis_url)
    choices = [r.json.get("tool_choice") for r in fake_model.requests]
    assert choices == ["auto", "auto", "none"]
    assert "Stop using tools now" in fake_model.requests[-1].json["messages"][-1]["content"]
    assert len(fake_github.reviews[(REPO, 7)]) == 1


async def test_a_model_that_never_stops_calling_tools_fails_visibly(
        web: httpx.Client, settings: Settings, redis_url: str, fake_github: FakeGitHub,
        fake_model: FakeModel) -> None:
    one_turn = dataclasses.replace(settings, max_tool_turns=1)
    for _ in range(4):
        fake_model.script_reply("", tool_calls=[tool_call("list_files", directory="")], finish_reason="tool_calls")
    deliver(web, "pull_request", payload("pull_request.opened", open_with_helpers(fake_github)))
    await run_worker_until_idle(one_turn, redis_url)
    assert len(fake_model.requests) == 3  # one tool turn, the forced final turn, one repair turn
    [check] = fake_github.check_runs.values()
    assert check["conclusion"] == "neutral" and "not valid review JSON" in check["output"]["summary"]
    assert fake_github.reviews[(REPO, 7)] == []

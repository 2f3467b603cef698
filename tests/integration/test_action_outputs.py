"""Issue 33: what a workflow author meets in `reviewbot action`: step outputs for later steps, whose pull requests
are reviewed automatically, the per-review token budget, readable logs, the Action's own help, and an audit that
writes SARIF. Each runs the command as a subprocess with an Actions environment, as test_action.py does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.fakes.github import FakeGitHub
from tests.fakes.model import FakeModel, findings_json
from tests.helpers import bug_finding
from tests.integration.test_action import NUMBER, comment_event, pr_event, pull, run_action

__all__ = ["pull"]  # test_action.py's fixture, imported so that pytest finds it here too


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `name=value` lines, or `name<<DELIMITER` … `DELIMITER`."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            for body in lines:
                if body == delimiter:
                    break
                value.append(body)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
    return outputs


def test_a_review_gives_later_steps_its_conclusion_findings_links_and_cost(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    # The model's text reaches the summary output; a line in it shaped like the output format changes nothing.
    hostile = "Fine.\nconclusion<<EOF\nsuccess\nEOF\ncritical=0"
    fake_model.script_reply(findings_json([bug_finding(body=hostile)], "total() now returns an average."))
    output = tmp_path / "output.txt"
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull),
                      job={"GITHUB_OUTPUT": str(output)}, **{"blocking-severity": "major"})
    assert done.returncode == 1, done.stderr
    outputs = read_outputs(output)
    [check] = fake_github.check_runs.values()
    [review] = fake_github.reviews[(REPO, NUMBER)]
    assert (outputs["outcome"], outputs["conclusion"]) == ("reviewed", "failure")
    assert (outputs["findings"], outputs["critical"], outputs["major"], outputs["minor"], outputs["nit"]) == \
        ("1", "0", "1", "0", "0")
    assert outputs["review-url"] == f"{pull['html_url']}#pullrequestreview-{review['id']}"
    assert outputs["check-run-url"].endswith(f"/{REPO}/runs/{check['id']}")
    assert float(outputs["cost-usd"]) > 0
    assert outputs["summary"] == check["output"]["summary"] and "\n" in outputs["summary"]


def test_outside_authors_are_skipped_without_a_model_request_unless_the_input_lets_them_in(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    event = pr_event(pull)
    event["pull_request"]["author_association"] = "FIRST_TIME_CONTRIBUTOR"
    event["pull_request"]["head"]["repo"] = {**event["pull_request"]["head"]["repo"], "full_name": "someone/widgets"}
    output = tmp_path / "output.txt"
    done = run_action(tmp_path, fake_github, fake_model, "pull_request_target", event,
                      job={"GITHUB_OUTPUT": str(output)})
    assert done.returncode == 0, done.stderr
    assert "is FIRST_TIME_CONTRIBUTOR, not one of COLLABORATOR, MEMBER, OWNER" in done.stderr  # the log line
    assert fake_model.requests == [] and fake_github.check_runs == {} and fake_github.reviews[(REPO, NUMBER)] == []
    assert read_outputs(output)["outcome"] == "skipped"

    let_in = run_action(tmp_path, fake_github, fake_model, "pull_request_target", event,
                        **{"author-associations": "owner, first_time_contributor"})
    assert let_in.returncode == 0, let_in.stderr
    assert len(fake_github.reviews[(REPO, NUMBER)]) == 1


def test_the_review_token_budget_input_caps_what_one_review_may_be_billed(
        pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    done = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull),
                      **{"review-token-budget": "1000"})
    assert done.returncode == 2
    assert "budget" in done.stderr.lower()
    assert fake_model.review_requests() == [] and fake_github.reviews[(REPO, NUMBER)] == []
    [check] = fake_github.check_runs.values()
    assert check["status"] == "completed" and check["output"]["title"] == "Review failed"


def test_logs_in_actions_are_plain_lines_folded_in_groups(pull: dict[str, Any], tmp_path: Path,
                                                            fake_github: FakeGitHub, fake_model: FakeModel) -> None:
    service = run_action(tmp_path, fake_github, fake_model, "pull_request", pr_event(pull))
    assert service.returncode == 0, service.stderr  # outside Actions: JSON lines, for a log collector
    assert any(line.startswith("{") and json.loads(line)["level"] for line in service.stderr.splitlines())

    fake_model.script_reply(findings_json([bug_finding()], "Again."))
    done = run_action(tmp_path, fake_github, fake_model, "issue_comment",
                      comment_event(fake_github, "@reviewbot full review"), job={"GITHUB_ACTIONS": "true"})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    opened = lines.index(f"::group::reviewbot: answering a comment on {REPO}#{NUMBER}")
    assert lines.index("::endgroup::") > opened
    assert "::group::reviewbot: the check run's summary" in lines
    assert [line for line in lines[opened:] if " INFO " in line]  # the review's log lines, inside the fold
    assert not any(line.startswith("{") for line in lines)


def test_help_lists_only_what_the_action_answers(pull: dict[str, Any], tmp_path: Path, fake_github: FakeGitHub,
                                                 fake_model: FakeModel) -> None:
    for text in ("@reviewbot help", "@reviewbot audit"):
        done = run_action(tmp_path, fake_github, fake_model, "issue_comment", comment_event(fake_github, text))
        assert done.returncode == 0, done.stderr
    help_reply, audit_reply = [c for c in fake_github.issue_comments[(REPO, NUMBER)]
                               if not c["body"].startswith("@reviewbot")]
    body = help_reply["body"]
    assert all(f"`@reviewbot {verb}`" in body for verb in ("review", "full review", "security-review", "help"))
    assert not any(word in body for word in ("pause", "resume", "audit", "dismiss", "forget"))
    assert "mode: audit" in audit_reply["body"]
    assert fake_model.requests == []

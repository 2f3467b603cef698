"""`reviewbot action`: decide from the event, review or answer the command, write the step summary, pick the exit
code (1 when a finding reaches the blocking severity, 2 when the review could not be done)."""

from __future__ import annotations

import dataclasses
import logging
import sys
from typing import Any, get_args

import httpx

from reviewbot.action.commands import run_command
from reviewbot.action.environment import ActionEnv
from reviewbot.action.outputs import StepOutputs, append_summary, write_outputs
from reviewbot.action.permissions import FORK_NOTE
from reviewbot.action.reviewing import INTERNAL, Outcome, Run, review_in_action
from reviewbot.action.trigger import action_decision, outside_author
from reviewbot.app.port import GitHubPort
from reviewbot.errors import ConfigError, PermanentError, RetryableError, ReviewbotError
from reviewbot.inference.factory import model_client
from reviewbot.queue.request import ReviewRequest
from reviewbot.review.findings.schema import Severity
from reviewbot.review.publish.markdown import neutralize
from reviewbot.webhooks.events import CommentCommand

log = logging.getLogger(__name__)
BLOCKED, FAILED = 1, 2
REVIEW_VERBS = frozenset({"review", "full review", "security-review"})
NO_MARKER_KEY = (
    "reviewbot action needs a stable key for the hidden markers it signs: without `api-token` it would sign them "
    "with the run's own token, which changes every run, so each run would review, pay for and post the same "
    "comments again. Store any long random string (`openssl rand -hex 32`) as a repository secret, e.g. "
    "REVIEWBOT_MARKER_SECRET, and pass it as the action's `marker-secret` input: "
    "`marker-secret: ${{ secrets.REVIEWBOT_MARKER_SECRET }}`.")


async def run_action(env: ActionEnv) -> int:
    """The step's exit code; every failure, configuration or bug, is FAILED: BLOCKED means only "a finding reached
    the blocking severity", which a required check must not confuse with a broken run."""
    try:
        outcome = await _act(env)
    except ReviewbotError as exc:  # the configuration, or an error before the check run existed
        outcome = Outcome("failed", str(exc))
    except Exception:
        # A bug: the check run already says the review failed (reviewing.py); the step's page says so too, and the
        # caller logs the traceback and exits FAILED.
        _finish(env, Outcome("failed", INTERNAL))
        raise
    return _finish(env, outcome)


async def _act(env: ActionEnv) -> Outcome:
    if env.blocking_severity is not None and env.blocking_severity not in get_args(Severity):
        raise ConfigError(f"blocking-severity must be one of {', '.join(get_args(Severity))} (or empty), not "
                          f"{env.blocking_severity!r}")
    decision = action_decision(env)
    if not isinstance(decision, ReviewRequest | CommentCommand):
        return Outcome("nothing", getattr(decision, "reason", type(decision).__name__))
    if isinstance(decision, ReviewRequest) and (outside := outside_author(env)):
        log.info("skipped: %s", outside)  # before any secret is needed or anything is paid for
        return Outcome("skipped", outside)
    missing = env.settings.missing_for_model()
    fork = env.event_name == "pull_request" and _from_fork(env.event)
    if missing and (isinstance(decision, ReviewRequest) or decision.command.verb in REVIEW_VERBS):
        raise ConfigError(f"reviewbot action needs: {', '.join(missing)} (the action's `api-token` input, from a "
                          "secret)" + (f". {FORK_NOTE}" if fork else ""))
    if not env.settings.marker_secret:
        # Every decision here may post a signed marker (a review, a refusal) that a later run must recognise.
        raise ConfigError(NO_MARKER_KEY + (f" {FORK_NOTE}" if fork else ""))
    assert env.settings.github_token is not None  # from_environ refuses an environment without one
    port = GitHubPort(env.settings.github_token, env.settings.github_api_url)
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(env.settings.model_timeout, connect=10.0)) as http:
            run = Run(env.settings, port, model_client(env.settings, http), env.run_id, env.blocking_severity)
            group(f"reviewbot: {'reviewing' if isinstance(decision, ReviewRequest) else 'answering a comment on'} "
                  f"{decision.repo}#{decision.number}")
            try:
                if isinstance(decision, ReviewRequest):
                    outcome = await review_in_action(run, decision)
                else:
                    outcome = await run_command(run, decision)
            except (PermanentError, RetryableError) as exc:  # before the check run existed, or while opening it
                outcome = Outcome("failed", str(exc))
            finally:
                group(None)
    finally:
        port.close()
    if outcome.outcome == "failed" and fork and not env.settings.cloudflare_api_token:
        # A server of one's own needs no key, so a keyless start is allowed; when the model then refuses, the
        # likely cause on a fork's `pull_request` is the secret GitHub withheld.
        outcome = dataclasses.replace(outcome, reason=f"{outcome.reason}. {FORK_NOTE}")
    return outcome


def _finish(env: ActionEnv, outcome: Outcome) -> int:
    write_outputs(env.output_path, StepOutputs(outcome.outcome, outcome.conclusion or "", outcome.findings,
                                               outcome.review_url, outcome.check_run_url, outcome.cost_usd,
                                               outcome.summary))
    if outcome.outcome == "failed":
        print(f"::error title=reviewbot::{_one_line(outcome.reason)}", file=sys.stderr)
        _summary(env, f"**The review failed.** {neutralize(outcome.reason)}")
        return FAILED
    if outcome.outcome == "nothing":
        print(f"reviewbot: nothing to do: {outcome.reason}")
        _summary(env, f"Nothing to do: {outcome.reason}.")
        return 0
    if outcome.conclusion is None:
        print(f"reviewbot: {outcome.outcome}: {outcome.reason}")
        _summary(env, f"Review {outcome.outcome}: {neutralize(outcome.reason)}.")
        return 0
    print(f"reviewbot: {outcome.title} ({outcome.conclusion})" + (f": {outcome.review_url}" if outcome.review_url
                                                                  else ""), flush=True)
    if outcome.summary:  # long: folded in the job's log, shown whole on the run's page
        group("reviewbot: the check run's summary")
        print(outcome.summary, flush=True)
        group(None)
    _summary(env, f"**{neutralize(outcome.title)}** · check run conclusion: `{outcome.conclusion}`\n\n"
                  f"{outcome.summary}")
    if outcome.conclusion == "failure":
        print("::error title=reviewbot::findings reached the blocking severity", file=sys.stderr)
        return BLOCKED
    return 0


def _from_fork(event: dict[str, Any]) -> bool:
    head = ((event.get("pull_request") or {}).get("head") or {}).get("repo") or {}
    return bool(head.get("full_name")) and head.get("full_name") != (event.get("repository") or {}).get("full_name")


def _summary(env: ActionEnv, text: str) -> None:
    append_summary(env.summary_path, text)


def group(title: str | None) -> None:
    """`::group::` folds what follows in the job's log until `::endgroup::` (None). On stderr with the log lines, so
    that the two streams cannot reorder the fold around them."""
    sys.stdout.flush()
    print(f"::group::{_one_line(title)}" if title else "::endgroup::", file=sys.stderr, flush=True)


def _one_line(text: str) -> str:
    """Workflow commands end at a newline; `%` starts an escape in them."""
    return " ".join(text.split()).replace("%", "%25")

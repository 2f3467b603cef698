"""Every job the worker runs, by name, with its try budget and ledger kind: the worker is assembled here, above
both the queue and the jobs, and the CLI and the web process's embedded worker ask for it."""

from __future__ import annotations

import logging
from typing import Any

from arq import Worker, cron
from arq.worker import func

from reviewbot.app.identity import remember_slug
from reviewbot.app.port.code_scanning import MAX_POLLS
from reviewbot.jobs.alert_job import learn_from_alert
from reviewbot.jobs.audit.chunk_job import audit_chunk
from reviewbot.jobs.audit.finish_job import finish_audit
from reviewbot.jobs.audit.plan_job import plan_audit
from reviewbot.jobs.audit.push_job import audit_after_push
from reviewbot.jobs.audit.schedule import SCAN_MINUTES, audit_schedules
from reviewbot.jobs.audit.upload_status import audit_upload_status
from reviewbot.jobs.commands.comment_job import handle_command
from reviewbot.jobs.deps import Deps, build_deps
from reviewbot.jobs.fix.audit_fix_job import fix_audit_findings
from reviewbot.jobs.fix.ci_report import report_fix_ci
from reviewbot.jobs.fix.fix_job import fix_pull_request
from reviewbot.jobs.learn.propose_job import propose_rule
from reviewbot.jobs.outcomes.closed_job import record_outcomes
from reviewbot.jobs.pr_review.review_job import review_pull_request
from reviewbot.jobs.suite_job import rerun_suite
from reviewbot.jobs.thread_answers.conversation_job import answer_thread
from reviewbot.queue import functions as names
from reviewbot.queue.observed import observed
from reviewbot.queue.worker import POLL_DELAY_S, WorkerJobs, make_worker
from reviewbot.settings import Settings
from reviewbot.settings.catalogue import model_warnings

log = logging.getLogger(__name__)


async def startup(ctx: dict[str, Any]) -> None:
    if "deps" not in ctx:
        ctx["deps"] = build_deps(ctx["settings"], ctx["redis"])
    await remember_slug(ctx["settings"], ctx["redis"])
    for warning in model_warnings(ctx["settings"].model, ctx["settings"].thinking):
        log.warning(warning)
    log.info("worker started")


async def shutdown(ctx: dict[str, Any]) -> None:
    deps: Deps | None = ctx.get("deps")
    if deps is not None:
        await deps.aclose()


def worker_jobs() -> WorkerJobs:
    # arq's try counter also counts waits for a free slot; real failures have their own budget (retries.py).
    # observed(): metrics for every try, and one ledger record per review however it ends.
    return WorkerJobs(
        functions=[func(observed(review_pull_request, "review"), name=names.REVIEW_FUNCTION, max_tries=10_000),
                   func(observed(handle_command, "command"), name=names.COMMAND_FUNCTION, max_tries=10_000),
                   # observed(..., "conversation"): each answer's cost is a `conversation` ledger record
                   func(observed(answer_thread, "conversation"), name=names.CONVERSATION_FUNCTION,
                        max_tries=10_000),
                   func(observed(rerun_suite, "suite"), name=names.SUITE_FUNCTION, max_tries=5),
                   # observed(..., "fix"): a fix that asked the model is a `fix` ledger record (pushed, suggested,
                   # declined:<reason>)
                   func(observed(fix_pull_request, "fix"), name=names.FIX_FUNCTION, max_tries=10_000),
                   # An audit's fix pull requests (pull-request, suggested, declined:<reason>), and a fix commit's
                   # CI result (its own `fix` ledger record: ci-passed, ci-failed).
                   func(observed(fix_audit_findings, "fix"), name=names.AUDIT_FIX_FUNCTION, max_tries=10_000),
                   func(observed(report_fix_ci, "suite"), name=names.FIX_CI_FUNCTION, max_tries=5),
                   # A closed pull request: its findings' outcomes (no model request).
                   func(observed(record_outcomes, "outcomes"), name=names.OUTCOMES_FUNCTION, max_tries=5),
                   func(observed(learn_from_alert, "alert"), name=names.ALERT_FUNCTION, max_tries=5),
                   # A repeated decision proposed as a pull request to .github/reviewbot.yml (no model request).
                   func(observed(propose_rule, "learn"), name=names.LEARN_FUNCTION, max_tries=5),
                   # Audits: a chunk waiting in the provider's queue defers itself, so tries are mostly polls.
                   # A plan handed to a worker with an idle core (CpuBusy) is one of arq's tries too.
                   func(observed(plan_audit, "audit"), name=names.PLAN_FUNCTION, max_tries=10_000),
                   # Defers itself while an audit of the branch runs (each deferral is one of arq's tries).
                   func(observed(audit_after_push, "audit"), name=names.PUSH_AUDIT_FUNCTION, max_tries=10_000),
                   func(observed(audit_chunk, "audit"), name=names.CHUNK_FUNCTION, max_tries=10_000),
                   func(observed(finish_audit, "audit"), name=names.FINISH_FUNCTION, max_tries=10_000),
                   # check_processed gives up after MAX_POLLS looks; each deferral is one of arq's tries.
                   func(observed(audit_upload_status, "audit"), name=names.POLL_FUNCTION, max_tries=MAX_POLLS + 10)],
        # Every few minutes one worker (arq's cron job id is unique per run) starts the scheduled audits that are due.
        cron_jobs=[cron(observed(audit_schedules, "audit"), name=names.SCHEDULE_FUNCTION, minute=SCAN_MINUTES,
                        run_at_startup=False, unique=True)],
        on_startup=startup,
        on_shutdown=shutdown,
    )


def service_worker(settings: Settings, redis_url: str, *, burst: bool = False, handle_signals: bool = True,
                   ctx: dict[str, Any] | None = None, poll_delay: float = POLL_DELAY_S) -> Worker:
    """The service's worker: every job above, on the queue's worker (`ctx` may carry prebuilt deps)."""
    return make_worker(settings, redis_url, worker_jobs(), burst=burst, handle_signals=handle_signals, ctx=ctx,
                       poll_delay=poll_delay)

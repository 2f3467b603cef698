"""What the worker does, one module or small package per job and the trigger that starts it.

- `pr_review/` (`review_pull_request`): a pull request opened, reopened, marked ready or pushed to; a review
  command (`@app review`, `full review`, `security-review`); a check run's Re-run. Reads the diff and the base tree,
  runs the review pipeline, posts one review and the check run.
- `commands/` (`handle_command`): an `@app …` comment on a pull request: permission and limits, then a review job
  or a reply.
- `thread_answers/` (`answer_thread`): an `@app` question or dismissal in one of the bot's review threads.
- `outcomes/` (`record_outcomes`): a pull request closed, merged or not: each posted finding's outcome (a review
  and a thread command record theirs as they happen).
- `suite_job` (`rerun_suite`): "Re-run all checks" on a check suite (a fork's pull request included).
- `audit/` (`plan_audit`, `audit_chunk`, `finish_audit`, `audit_schedules`): a security audit of a branch, asked by
  `@app audit` in an issue or pull request, by the schedule in `.github/reviewbot.yml` (a cron job) or by
  `reviewbot audit --repo OWNER/NAME`: plan, one job per chunk in any worker, then verification and publishing.
- `deps`: the clients every job gets (`Deps`); it imports no job.
- `registry`: every job by name, handed to the queue's worker (`service_worker`); only it imports every job.
"""

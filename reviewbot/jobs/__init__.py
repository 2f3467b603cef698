"""What the worker does, one module or small package per job and the trigger that starts it.

- `pr_review/` (`review_pull_request`): a pull request opened, reopened, marked ready or pushed to; a review
  command (`@app review`, `full review`, `security-review`); a check run's Re-run. Reads the diff and the base tree,
  runs the review pipeline, posts one review and the check run.
- `commands/` (`handle_command`): an `@app …` comment on a pull request: permission and limits, then a review job
  or a reply.
- `thread_answers/` (`answer_thread`): an `@app` question or dismissal in one of the bot's review threads.
- `suite_job` (`rerun_suite`): "Re-run all checks" on a check suite (a fork's pull request included).
- `deps`: the clients every job gets (`Deps`); it imports no job, and only `queue/worker.py` imports the jobs.
"""

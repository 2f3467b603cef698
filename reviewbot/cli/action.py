"""`reviewbot action`: review the pull request of the current GitHub Actions job (what action.yml runs)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping

from reviewbot.cli.common import Subparsers
from reviewbot.errors import ConfigError, ReviewbotError
from reviewbot.observe.logs import setup_logging

log = logging.getLogger(__name__)
MODES = ("review", "audit")


def add(sub: Subparsers) -> None:
    action = sub.add_parser(
        "action", help="inside a GitHub Actions job: review its pull request, or audit the checked-out repository "
                       "with mode: audit (see action.yml)",
        description="Review the pull request of the current GitHub Actions job (or, with the input mode: audit, "
                    "audit the checked-out repository), configured by the job's environment (INPUT_* from "
                    "action.yml, GITHUB_TOKEN, GITHUB_EVENT_PATH). Exit status: 0 done, 1 a finding reached the "
                    "blocking severity, 2 the step could not be done.")
    action.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    import asyncio

    from reviewbot.action.environment import from_environ
    from reviewbot.action.step import FAILED, run_action

    try:
        env = from_environ(os.environ)
        setup_logging(env.settings.secrets, logging.INFO, log_format(env.settings.log_format, os.environ))
        mode = env.inputs.get("mode", "review")
        if mode not in MODES:
            raise ConfigError(f"mode must be review or audit, not {mode!r}")
        if mode == "audit":
            from reviewbot.action.audit_mode import audit_step

            return audit_step(env)
        return asyncio.run(run_action(env))
    except ReviewbotError as exc:  # exit 1 means "findings reached the blocking severity": not this
        print(f"::error title=reviewbot::{' '.join(str(exc).split())}", file=sys.stderr)
        return FAILED
    except Exception as exc:
        # A bug: Python's own exit code for it would be 1, which reads as "findings blocked". The traceback goes to
        # the job's log (through the logging setup, which masks known secrets), and the step exits FAILED.
        log.exception("reviewbot action failed with an internal error")
        raise SystemExit(FAILED) from exc


def log_format(setting: str, environ: Mapping[str, str]) -> str:
    """A person reads an Actions log: plain lines there (JSON lines are for the service's log collectors), unless
    REVIEWBOT_LOG_FORMAT asks otherwise. `auto` alone would pick JSON, since the runner's output is no terminal."""
    return "text" if setting == "auto" and environ.get("GITHUB_ACTIONS") == "true" else setting

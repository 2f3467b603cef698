"""`reviewbot action`: review the pull request of the current GitHub Actions job (what action.yml runs)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from reviewbot.cli.common import Subparsers
from reviewbot.errors import ReviewbotError
from reviewbot.observe.logs import setup_logging

log = logging.getLogger(__name__)


def add(sub: Subparsers) -> None:
    action = sub.add_parser("action", help="inside a GitHub Actions job: review its pull request (see action.yml)")
    action.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    import asyncio

    from reviewbot.action.environment import from_environ
    from reviewbot.action.step import FAILED, run_action

    try:
        env = from_environ(os.environ)
        setup_logging(env.settings.secrets, logging.INFO, env.settings.log_format)
        return asyncio.run(run_action(env))
    except ReviewbotError as exc:  # exit 1 means "findings reached the blocking severity": not this
        print(f"::error title=reviewbot::{' '.join(str(exc).split())}", file=sys.stderr)
        return FAILED
    except Exception as exc:
        # A bug: Python's own exit code for it would be 1, which reads as "findings blocked". The traceback goes to
        # the job's log (through the logging setup, which masks known secrets), and the step exits FAILED.
        log.exception("reviewbot action failed with an internal error")
        raise SystemExit(FAILED) from exc

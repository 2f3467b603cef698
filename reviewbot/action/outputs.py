"""The step's outputs for later steps of the job, written to GITHUB_OUTPUT in the format GitHub documents."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from reviewbot.review.findings.schema import SEVERITY_RANK

SEVERITIES = tuple(SEVERITY_RANK)  # critical, major, minor, nit


@dataclass(frozen=True)
class StepOutputs:
    """What a later step can read as `steps.<id>.outputs.<name>`; every name is always written, empty when it does
    not apply (a skipped review has no review URL), so `if:` expressions never meet an undefined output."""

    outcome: str  # reviewed, skipped, superseded, failed, nothing, audited
    conclusion: str = ""  # the check run's: success, neutral, failure, skipped, cancelled
    findings: dict[str, int] = field(default_factory=dict)  # severity → count
    review_url: str = ""
    check_run_url: str = ""
    cost_usd: float | None = None  # None: nothing was asked of the model
    summary: str = ""  # the check run's summary (Markdown, several lines)
    sarif: str = ""  # audit mode: where the SARIF report was written

    def pairs(self) -> list[tuple[str, str]]:
        counts = [(severity, str(self.findings.get(severity, 0))) for severity in SEVERITIES]
        cost = "" if self.cost_usd is None else f"{self.cost_usd:.6f}"
        return [("outcome", self.outcome), ("conclusion", self.conclusion),
                ("findings", str(sum(self.findings.values()))), *counts, ("review-url", self.review_url),
                ("check-run-url", self.check_run_url), ("cost-usd", cost), ("summary", self.summary),
                ("sarif", self.sarif)]


def write_outputs(path: Path | None, outputs: StepOutputs) -> None:
    """Appended as `name<<DELIMITER`, the value, `DELIMITER` for every output: the form GitHub documents for
    values that may hold newlines, used for all so that no value (the summary quotes the model) can end one output
    early and write another. The delimiter is random per run and checked against the value."""
    if path is None:
        return
    with path.open("a", encoding="utf-8") as out:
        for name, value in outputs.pairs():
            delimiter = _delimiter(value)
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def _delimiter(value: str) -> str:
    while True:
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        if delimiter not in value:
            return delimiter


def review_url(pull_url: str, review_id: int) -> str:
    """GitHub's own link to one review on the pull request's conversation page."""
    return f"{pull_url}#pullrequestreview-{review_id}" if pull_url and review_id else ""


def check_run_url(pull_url: str, check_id: int | None) -> str:
    """The check run's page, `https://HOST/OWNER/NAME/runs/ID`, as its `html_url` reads."""
    repo_url = pull_url.rsplit("/pull/", 1)[0] if "/pull/" in pull_url else ""
    return f"{repo_url}/runs/{check_id}" if repo_url and check_id else ""


def append_summary(path: Path | None, text: str) -> None:
    """Appended to GITHUB_STEP_SUMMARY (Markdown on the run's page); `text` is reviewbot's own or already rebuilt
    by its Markdown publisher."""
    if path is None:
        return
    with path.open("a", encoding="utf-8") as out:
        out.write(f"## reviewbot\n\n{text}\n")

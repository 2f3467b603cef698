"""The summary's line per linked issue ("Addresses #12: partly — …"), for the issues the model was shown only."""

from __future__ import annotations

from collections.abc import Sequence

from reviewbot.review.findings.schema import IssueVerdict
from reviewbot.review.publish.redaction import redact
from reviewbot.review.publish.safemd import LinkPolicy, code_span, safe_inline

MAX_NOTE_CHARS = 300


def _forms(label: str, repo: str) -> set[str]:
    """How a model may write an issue it was shown as `label`: `#12`, `12`, `owner/repo#12`."""
    if label.startswith("#"):
        return {label, label[1:], f"{repo}{label}".lower()}
    return {label.lower()}


def _label(label: str) -> str:
    """The pull request's own repository's `#12` links as GitHub links it; another repository's reference is
    shown as code, so posting it creates no cross-reference in that repository."""
    return label if label.startswith("#") else code_span(label)


def issue_lines(verdicts: Sequence[IssueVerdict], linked: Sequence[tuple[str, str]], repo: str,
                policy: LinkPolicy | None = None) -> list[str]:
    """One line per linked issue: the model's verdict for each it was shown, "not read" (and why) for the rest.
    Verdicts naming an issue it was not shown are dropped, never rendered."""
    by_form: dict[str, IssueVerdict] = {}
    for verdict in verdicts:
        by_form.setdefault(" ".join(verdict.issue.split()).lower(), verdict)
    lines = []
    for label, why_not in linked:
        if why_not:
            lines.append(f"Addresses {_label(label)}: not read ({safe_inline(why_not, policy)}).")
            continue
        found = next((by_form[f] for f in _forms(label, repo) if f in by_form), None)
        if found is None:
            lines.append(f"Addresses {_label(label)}: not assessed.")
            continue
        note = safe_inline(redact(" ".join(found.note.split())[:MAX_NOTE_CHARS]), policy)
        lines.append(f"Addresses {_label(label)}: {found.addressed}" + (f" — {note}" if note else "") + ".")
    return [line if not line.endswith("..") else line[:-1] for line in lines]

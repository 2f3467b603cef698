"""The lines an audit finding names as its evidence, with their code, for the verification request."""

from __future__ import annotations

from collections.abc import Callable

from reviewbot.review.findings.schema import Finding

MAX_CODE = 200  # characters of each evidence line's code shown


def evidence_excerpt(finding: Finding, read: Callable[[str], str | None]) -> str:
    """Each evidence line (source, steps, sink) with its code, in a fenced block, so the verifier checks the flow
    across files instead of taking the finding's word for it; "" for a finding without evidence (reviews')."""
    rows = []
    for step in finding.evidence:
        text = read(step.path) if step.path else None
        lines = text.split("\n") if text is not None else []
        code = lines[step.line - 1].strip()[:MAX_CODE] if 0 < step.line <= len(lines) else "(not available)"
        note = f"  # {' '.join(step.note.split())}" if step.note else ""
        rows.append(f"{step.role:<6} {step.path}:{step.line}  {code}{note}")
    if not rows:
        return ""
    body = "\n".join(rows).replace("```", "`\u200b``")  # the code cannot close the fence
    return f"Evidence it names (source, steps, sink):\n```\n{body}\n```"

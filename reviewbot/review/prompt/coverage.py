"""The coverage report: what the review saw, what it skipped and why, and what each prompt section cost."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewbot.review.publish.autolinks import broken

MAX_LISTED = 40  # per list in the markdown; the JSON form has everything


@dataclass(frozen=True)
class Coverage:
    reviewed: tuple[str, ...]  # diff files shown in full
    partial: tuple[tuple[str, str], ...]  # (path, what was cut) for files shown in part
    skipped: tuple[tuple[str, str], ...]  # (path, reason) for changed files the model did not see
    context: tuple[tuple[str, str, int], ...]  # (path, why it was included, tokens)
    sections: tuple[tuple[str, int], ...]  # (section, tokens) in prompt order
    notes: tuple[str, ...] = ()  # diff problems, config warnings
    left_out: tuple[tuple[str, str], ...] = ()  # (path, why) of related files not sent as context
    # (path, status, why, changed files it applied to) of the team's rules files: applied, truncated, cut,
    # duplicate or not applied
    rules: tuple[tuple[str, str, str, tuple[str, ...]], ...] = ()
    issues: tuple[tuple[str, str], ...] = ()  # (label, why not shown or "") of the linked issues

    @property
    def total_files(self) -> int:
        return len(self.reviewed) + len(self.partial) + len(self.skipped)

    def as_json(self) -> dict[str, Any]:
        return {
            "reviewed": list(self.reviewed),
            "partial": [{"path": p, "why": w} for p, w in self.partial],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "context": [{"path": p, "reason": r, "tokens": t} for p, r, t in self.context],
            "sections": [{"name": n, "tokens": t} for n, t in self.sections],
            "notes": list(self.notes),
            "left_out": [{"path": p, "why": w} for p, w in self.left_out],
            "rules": [{"path": p, "status": s, "why": w, "files": list(f)} for p, s, w, f in self.rules],
            "issues": [{"issue": i, "shown": not w, "why": w} for i, w in self.issues],
        }


def _prose(text: str) -> str:
    """Reasons and notes quote names from the code: no mentions, no HTML, no code spans to break out of."""
    text = text.replace("`", "'").replace("@", "@\u200d").replace("<", "&lt;").replace(">", "&gt;")
    return broken(text)  # `www.` hosts and other repositories' `#12` would still be links


def _code(path: str) -> str:
    # File names are untrusted: no backticks (they would end the span), no newlines.
    return "`" + path.replace("`", "'").replace("\n", " ")[:200] + "`"


def coverage_line(cov: Coverage) -> str:
    """One line for a footer: `12 of 15 files reviewed (1 in part), 3 skipped`."""
    seen = len(cov.reviewed) + len(cov.partial)
    text = f"{seen} of {cov.total_files} file(s) reviewed"
    if cov.partial:
        text += f" ({len(cov.partial)} in part)"
    if cov.skipped:
        text += f", {len(cov.skipped)} skipped"
    return text


def render_coverage(cov: Coverage) -> str:
    """Compact markdown for the summary and check run: a collapsed section with every list bounded."""
    lines = [f"<details><summary>Coverage: {coverage_line(cov)}, {len(cov.context)} context file(s)</summary>",
             ""]
    if cov.skipped:
        lines += ["**Not reviewed**", ""] + [f"- {_code(p)}: {_prose(r)}" for p, r in cov.skipped[:MAX_LISTED]]
        lines += [*_more(len(cov.skipped)), ""]
    if cov.partial:
        lines += ["**Reviewed in part**", ""] + [f"- {_code(p)}: {_prose(w)}" for p, w in cov.partial[:MAX_LISTED]]
        lines += [*_more(len(cov.partial)), ""]
    if cov.context:
        lines += ["**Context included**", ""]
        lines += [f"- {_code(p)} ({t:,} tokens): {_prose(r)}" for p, r, t in cov.context[:MAX_LISTED]]
        lines += [*_more(len(cov.context)), ""]
    if cov.left_out:
        lines += ["**Related but not included**", ""]
        lines += [f"- {_code(p)}: {_prose(w)}" for p, w in cov.left_out[:MAX_LISTED]]
        lines += [*_more(len(cov.left_out)), ""]
    if cov.rules:
        lines += ["**Rules files**", ""] + [_rule(r, cov.total_files) for r in cov.rules[:MAX_LISTED]]
        lines += [*_more(len(cov.rules)), ""]
    if cov.notes:
        lines += ["**Notes**", ""] + [f"- {_prose(n)}" for n in cov.notes[:MAX_LISTED]] + [""]
    lines.append("Tokens per section: " + ", ".join(f"{n} {t:,}" for n, t in cov.sections))
    lines += ["", "</details>"]
    return "\n".join(lines)


def _rule(rule: tuple[str, str, str, tuple[str, ...]], changed: int) -> str:
    path, status, why, files = rule
    names = ", ".join(_code(f) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    applied = "" if not files or status not in ("applied", "truncated") else (
        " to every changed file" if len(files) >= changed else f" to {len(files)} file(s): {names}")
    return f"- {_code(path)}: {status}{applied}" + (f" ({_prose(why)})" if why else "")


def _more(count: int) -> list[str]:
    return [f"- … and {count - MAX_LISTED} more"] if count > MAX_LISTED else []

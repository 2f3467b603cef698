"""A checked change as people see it: a commit message with a trailer later reviews recognise, ```suggestion
comments when every hunk fits one, else a patch with its `git apply` line in a collapsed block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reviewbot.fixes.edits import Change
from reviewbot.fixes.patch import hunks, unified_diff
from reviewbot.fixes.target import FixTarget
from reviewbot.review.findings.fingerprints import fix_seal
from reviewbot.review.publish.autolinks import unreferenced
from reviewbot.review.publish.cutting import bounded
from reviewbot.review.publish.fences import fence
from reviewbot.review.publish.markdown import neutralize, neutralize_inline, plain
from reviewbot.review.publish.suggestions import applies

TRAILER = "Reviewbot-Fix"  # read back by outcomes/classify.py's sealed_fixes (git's trailer rules)
SEAL_TRAILER = "Reviewbot-Seal"
MAX_SUBJECT = 72
MAX_SUGGESTION_LINES = 60


@dataclass(frozen=True)
class Suggestion:
    """One review comment whose ```suggestion block replaces head lines start..end of path."""

    path: str
    start: int
    end: int
    body: str


def commit_message(targets: Sequence[FixTarget], explanation: str, *, repo: str, key: bytes) -> str:
    """Subject naming the finding (or how many), the model's explanation as plain text, one trailer per finding in
    the message's last paragraph (git's trailer block) and the App's seal over them."""
    if len(targets) == 1:
        subject = f"Fix: {_commit_text(targets[0].title)}"
    else:
        subject = f"Fix {len(targets)} reviewbot findings"
    subject = subject if len(subject) <= MAX_SUBJECT else subject[:MAX_SUBJECT - 1] + "…"
    listed = [f"- {t.severity} {t.category}: {_commit_text(t.title)} ({t.path}:{t.start})" for t in targets]
    why = _commit_text(explanation)[:1_000]
    trailers = [f"{TRAILER}: {t.fingerprint}" for t in targets]
    trailers.append(f"{SEAL_TRAILER}: {fix_seal((t.fingerprint for t in targets), repo, key)}")
    return "\n".join([subject, "", *([why, ""] if why else []), *listed, "", *trailers]) + "\n"


def _commit_text(text: str) -> str:
    """The model's words in a commit message, which outlives every comment: one line, no secret, no ping, no link,
    and no issue reference a closing keyword would act on when the commit lands."""
    return unreferenced(plain(" ".join(text.split())))


def suggestions(change: Change, commentable: Mapping[str, set[int]], title: str) -> list[Suggestion] | None:
    """One suggestion comment per hunk, or None when any hunk cannot be one: its lines are not all on the pull
    request's diff (GitHub comments only there), it is too long, or committing it would not do what it says."""
    out: list[Suggestion] = []
    for hunk in hunks(change):
        head_lines = change.before[hunk.path].split("\n")
        wanted = set(range(hunk.start, hunk.end + 1))
        proposed = "\n".join(hunk.lines)
        if not wanted <= commentable.get(hunk.path, set()) or len(hunk.lines) > MAX_SUGGESTION_LINES:
            return None
        if hunk.lines and not applies(proposed, head_lines, hunk.start, hunk.end):
            return None
        body = f"Suggested fix: **{neutralize_inline(title)}**\n\n{fence(proposed, 'suggestion')}"
        out.append(Suggestion(hunk.path, hunk.start, hunk.end, body))
    return out or None


def patch_block(change: Change) -> str:
    """The whole change in a collapsed block: one shell command that applies it from the repository's root."""
    diff = unified_diff(change)
    end = "REVIEWBOT_PATCH"
    while end in diff.split("\n"):
        end += "_"
    command = f"git apply <<'{end}'\n{diff}{end}"
    return (f"<details><summary>Patch ({len(change.paths)} file{'s' if len(change.paths) != 1 else ''}): "
            "run this from the repository's root</summary>\n\n" + fence(command, "sh") + "\n\n</details>")


def pushed_reply(targets: Sequence[FixTarget], sha: str, explanation: str) -> str:
    return bounded(f"Pushed a fix in {sha[:7]} ({_named(targets)}). {neutralize(explanation)}\n\n"
                   "The next review of this pull request checks it.", 60_000)


def suggested_reply(targets: Sequence[FixTarget], explanation: str, patch: str = "") -> str:
    where = patch or "The suggestions are in the review comments on the changed lines: commit them from there."
    return bounded(f"A fix for {_named(targets)}, checked but not pushed. {neutralize(explanation)}\n\n{where}",
                   60_000)


def declined_reply(targets: Sequence[FixTarget], why: str) -> str:
    """`why` may carry the model's words (the verifier's reason, a new finding's title): rebuilt from harmless
    Markdown like every other model text, so it pings nobody and links nowhere."""
    return f"No fix for {_named(targets)}: {neutralize_inline(why)}. Nothing was pushed or suggested."


def _named(targets: Sequence[FixTarget]) -> str:
    if len(targets) == 1:
        return f"**{neutralize_inline(targets[0].title)}**"
    return f"{len(targets)} findings" if targets else "this pull request"

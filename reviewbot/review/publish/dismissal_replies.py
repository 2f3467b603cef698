"""What reviewbot answers to a thread command: a dismissal acknowledged (where it holds, until when, how to undo
it), a learning forgotten, or why nothing happened. The person's own words are untrusted Markdown."""

from __future__ import annotations

import time

from reviewbot.review.findings.dismissals import Learning
from reviewbot.review.findings.scope import Scope
from reviewbot.review.publish.markdown import code_span, neutralize_inline


def acknowledged(learning: Learning, scope: Scope, *, app: str, repo: str, expires: float) -> str:
    where = "in every later review of this repository" if scope.repository else "on this pull request only"
    why = neutralize_inline(learning.reason) or "no reason given"
    narrower = f" ({neutralize_inline(scope.why)})" if scope.why else ""
    until = time.strftime("%Y-%m-%d", time.gmtime(expires))
    return (f"Dismissed by {code_span(learning.by)}: {why}. I will hold this finding back {where}{narrower}, "
            f"listed in each review's summary, until {until} or until the code it points at is rewritten. "
            f"{code_span(f'@{app} forget')} in this thread undoes it "
            f"(or {code_span(f'reviewbot learnings forget {repo} {learning.store_key}')}).")


def forgotten(removed: int, app: str) -> str:
    if removed:
        return ("Forgotten: this finding will be reported again by later reviews. "
                f"{code_span(f'@{app} dismiss')} dismisses it again.")
    return "There was no remembered dismissal of this finding to forget; nothing changed."


def unmatched(app: str) -> str:
    return ("I could not match this thread to a finding I wrote: its hidden marker was signed with a key this "
            "server no longer has (the marker secret changed since that review), so nothing was dismissed or "
            f"forgotten. Ask for a new review ({code_span(f'@{app} review')} in the pull request) and use the "
            "command under the new comment.")


def not_ours(app: str) -> str:
    return (f"{code_span(f'@{app} dismiss')}, {code_span(f'@{app} false positive')}, "
            f"{code_span(f'@{app} won' + chr(39) + 't fix')} and {code_span(f'@{app} forget')} work only in "
            "reviewbot's own review threads, under the finding they are about; nothing was changed.")

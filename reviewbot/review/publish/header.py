"""reviewbot's finding comment read back: its first line names the severity, category, CWE and title."""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt

from reviewbot.review.publish.markdown import BADGE, UNVERIFIED

_SEP = " · "


@dataclass(frozen=True)
class PostedFinding:
    severity: str
    category: str
    title: str  # as a reader sees it (the Markdown escapes removed)
    cwe: str = ""


def read_header(body: str) -> PostedFinding | None:
    """The finding a comment written by `markdown.comment_body` shows; None for any other first line."""
    line = body.split("\n", 1)[0]
    severity = next((s for s, badge in BADGE.items() if line.startswith(badge + _SEP)), None)
    if severity is None:
        return None
    category, _, rest = line[len(BADGE[severity]) + len(_SEP):].partition(_SEP)
    cwe = ""
    if rest.startswith("CWE-"):
        cwe, _, rest = rest.partition(_SEP)
    rest = rest.removeprefix(UNVERIFIED + _SEP)
    if not (rest.startswith("**") and rest.endswith("**") and len(rest) > 4):
        return None
    return PostedFinding(severity=severity, category=category, title=_shown(rest[2:-2]), cwe=cwe)


def _shown(markdown: str) -> str:
    """The text GitHub shows for an inline Markdown fragment: escapes resolved, code spans as their code."""
    tokens = MarkdownIt("commonmark").parseInline(markdown)
    return " ".join("".join(c.content for t in tokens for c in t.children or []
                            if c.type in ("text", "code_inline")).split())

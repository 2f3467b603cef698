"""Untrusted Markdown made inert: parsed as CommonMark/GFM and rebuilt from tokens with only harmless parts."""

from __future__ import annotations

import functools
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

from linkify_it import LinkifyIt  # type: ignore[import-untyped]
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from reviewbot.review.publish.autolinks import autolinked
from reviewbot.review.publish.fences import fence

# Characters that open a construct anywhere (code, emphasis, links, HTML, entities, tables, math) are always
# escaped; the rest only where they could start a block or emphasis, so prose stays readable in the source.
_ALWAYS = frozenset("\\`*[]<>&|~$#!")
_AT_START = frozenset("-+=")
# GitHub's users and org/teams: a word character after @, anything but a word character before it (a backtick
# too: this runs on text tokens, which the parser has already told apart from code spans, escapes resolved).
_MENTION = re.compile(r"(?<!\w)@(?=[A-Za-z0-9])")
_INFO = re.compile(r"[^A-Za-z0-9_+.#-]")


@functools.cache
def parser() -> MarkdownIt:
    """GitHub's dialect: CommonMark with raw HTML, tables, strikethrough and autolinked URLs."""
    md = MarkdownIt("gfm-like")
    md.linkify = _linkify()  # fuzzy: `www.x.com` and bare domains count as links, stricter than GitHub
    return md


@functools.cache
def _linkify() -> Any:
    return LinkifyIt()


@dataclass(frozen=True)
class LinkPolicy:
    """Links may point into the repository itself (its files, pull requests, commits); nowhere else."""

    repo_url: str = ""  # the repository's page on the configured GitHub host, https://github.com/owner/name

    def allows(self, url: str) -> bool:
        if not self.repo_url or any(c in url for c in "\\<>\"' \n") or ".." in urllib.parse.unquote(url):
            return False
        own, it = urllib.parse.urlsplit(self.repo_url.rstrip("/")), urllib.parse.urlsplit(url)
        return (it.scheme, it.netloc) == (own.scheme, own.netloc) and not it.username and \
            (it.path == own.path or it.path.startswith(own.path + "/"))


def safe_markdown(text: str, policy: LinkPolicy | None = None) -> str:
    """Blocks rebuilt: paragraphs, lists, quotes, tables, code; images become words, HTML becomes text, foreign
    links lose their target, mentions lose their ping."""
    root = SyntaxTreeNode(parser().parse(text))
    return "\n\n".join(b for b in (_block(n, policy or LinkPolicy()) for n in root.children) if b).strip()


def safe_inline(text: str, policy: LinkPolicy | None = None) -> str:
    """The same on one line (table cells, list items, titles): blocks are joined, code blocks become code spans."""
    policy = policy or LinkPolicy()
    parts: list[str] = []
    for node in SyntaxTreeNode(parser().parse(text)).walk():
        if node.type == "inline":
            parts.append(_inline(node, policy, one_line=True))
        elif node.type in ("fence", "code_block", "html_block"):
            parts.append(code_span(node.content))
    return " ".join(p for p in parts if p).strip()


def code_span(text: str) -> str:
    """Inline code nothing can break out of: one line, a fence longer than any backtick run inside."""
    line = " ".join(text.split())
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{ticks}{pad}{line}{pad}{ticks}" if line else ""


def _block(node: SyntaxTreeNode, policy: LinkPolicy) -> str:
    kind = node.type
    if kind in ("paragraph", "heading"):
        text = "".join(_inline(c, policy) for c in node.children)
        return f"**{text}**" if kind == "heading" and text else text
    if kind == "blockquote":
        inner = "\n\n".join(_block(c, policy) for c in node.children)
        return "\n".join(f"> {line}".rstrip() for line in inner.split("\n"))
    if kind in ("bullet_list", "ordered_list"):
        first = int(str(node.attrs.get("start", 1))) if kind == "ordered_list" else 1
        tight = all(p.hidden for item in node.children for p in item.children if p.type == "paragraph")
        items = [_item(item, f"{first + i}." if kind == "ordered_list" else "-", policy)
                 for i, item in enumerate(node.children)]
        return ("\n" if tight else "\n\n").join(items)
    if kind in ("fence", "code_block", "html_block"):  # raw HTML is shown as code, never interpreted
        return fence(node.content, _INFO.sub("", node.info.split(" ", 1)[0])[:30] if kind == "fence" else "")
    if kind == "hr":
        return "* * *"
    if kind == "table":
        return _table(node, policy)
    return _text(node.content, policy)


def _item(item: SyntaxTreeNode, bullet: str, policy: LinkPolicy) -> str:
    inner = "\n\n".join(_block(c, policy) for c in item.children) or _text(" ", policy)
    pad = " " * (len(bullet) + 1)
    lines = inner.split("\n")
    return "\n".join([f"{bullet} {lines[0]}", *(f"{pad}{line}" if line else "" for line in lines[1:])])


def _table(node: SyntaxTreeNode, policy: LinkPolicy) -> str:
    rows = [tr for section in node.children for tr in section.children]
    if not rows:
        return ""
    cells = [[" ".join(_inline(c, policy, one_line=True, table=True) for c in cell.children) for cell in tr.children]
             for tr in rows]
    aligns = [str(cell.attrs.get("style", "")) for cell in rows[0].children]
    rule = [":---:" if "center" in a else "---:" if "right" in a else ":---" if "left" in a else "---" for a in aligns]
    return "\n".join("| " + " | ".join(row) + " |" for row in [cells[0], rule, *cells[1:]])


def _inline(node: SyntaxTreeNode, policy: LinkPolicy, *, one_line: bool = False, table: bool = False) -> str:
    def inner() -> str:
        return "".join(_inline(c, policy, one_line=one_line, table=table) for c in node.children)

    kind = node.type
    if kind == "inline":
        return inner()
    if kind == "text" or kind == "html_inline":  # inline HTML is shown as the text it is
        return _text(node.content, policy)
    if kind == "code_inline":
        span = code_span(node.content)
        return span.replace("|", "\\|") if table else span
    if kind in ("softbreak", "hardbreak"):
        return " " if one_line else "\n" if kind == "softbreak" else "\\\n"
    if kind in ("em", "strong", "s"):
        mark = {"em": "*", "strong": "**", "s": "~~"}[kind]
        return f"{mark}{inner()}{mark}"
    if kind == "link":
        href = str(node.attrs.get("href", ""))
        text = inner()
        return f"[{text}]({href})" if policy.allows(href) and node.markup != "linkify" else text
    if kind == "image":  # no images at all: a tracking pixel or a fake screenshot reads as its description
        alt = "".join(c.content for c in node.walk() if c.type in ("text", "code_inline"))
        return _text(f"[image: {alt or 'no description'}]", policy)
    return _text(node.content, policy)


def _text(text: str, policy: LinkPolicy) -> str:
    """Literal text: URLs that GitHub would link become code (or stay links into the repository), mentions are
    broken with a zero-width joiner, and every special character is escaped."""
    out, at = [], 0
    for match in _linkify().match(text) or []:
        out.append(_unlinked(text[at:match.index], policy))
        url = str(match.url)
        out.append(f"<{url}>" if policy.allows(url) and match.schema in ("http:", "https:") else code_span(match.raw))
        at = match.last_index
    out.append(_unlinked(text[at:], policy))
    return "".join(out)


def _unlinked(text: str, policy: LinkPolicy) -> str:
    """Escaped text; what GitHub autolinks beyond the linkify parser (`www.` hosts and e-mail addresses with any
    top-level domain, other repositories' `owner/repo#N`) becomes code, as foreign URLs do."""
    out, at = [], 0
    for start, end in autolinked(text, policy.repo_url):
        out += [_escape(text[at:start]), code_span(text[start:end])]
        at = end
    out.append(_escape(text[at:]))
    return "".join(out)


def _escape(text: str) -> str:
    text = _MENTION.sub("@\u200d", text.replace("\n", " "))
    out = []
    for i, c in enumerate(text):
        intraword = 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        special = c in _ALWAYS or (c == "_" and not intraword) or (i == 0 and c in _AT_START) or \
            (c in ".)" and text[:i].isdigit() and i > 0)  # "1." or "1)" would start a list
        out.append(f"\\{c}" if special else c)
    return "".join(out)

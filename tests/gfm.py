"""The one test helper for everything the bot posts: render it the way GitHub does, fail on what GitHub would make
dangerous. GitHub renders comments, review bodies and check-run summaries as GFM (CommonMark, tables,
strikethrough, autolinks for `http(s)://…`, `www.…` and e-mail addresses), then links `@name` and `@org/team` in
every text node outside code and links, after escapes and entities are decoded: `` \\` `` is a literal backtick,
so `` \\`@team `` is a live mention. This parser is our own instance, not the one the bot's rebuilding uses.

    from tests.gfm import assert_safe_for_github
    assert_safe_for_github(text, repo_host="github.com", repo="owner/repo")          # Markdown
    assert_safe_for_github(annotation_message, plain=True)                          # shown as plain text
    assert_everything_posted_is_safe(fake_github, "owner/repo", 7)                 # all the bot posted on a PR
"""

from __future__ import annotations

import functools
import re
import urllib.parse
from html.parser import HTMLParser
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from markdown_it.token import Token

from reviewbot.audit.tracking import ISSUE_MARKER
from reviewbot.review.findings.fingerprints import MARKER, SIGNED_MARKER

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

# GitHub's mention filter: `@` after the start of a text node or a non-word ASCII character, then a login
# (a team is `@org/team`); it never looks inside code, pre or links.
MENTION = re.compile(r"(?<![0-9A-Za-z_])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9][A-Za-z0-9_-]*)?")
# `owner/repo#12` links (and notifies) another repository's issue or pull request; `owner/repo@sha` its commit.
CROSS_REFERENCE = re.compile(r"(?<![\w./-])([A-Za-z0-9][\w.-]*/[\w.-]+)(?:#\d+|@[0-9a-f]{7,40}\b)")
# GitHub's autolink extension (cmark-gfm) links these in text without checking the top-level domain, which the
# linkify parser below does: `www.evil.example` and `root@evil.example` are links on GitHub.
WWW = re.compile(r"(?:^|(?<=[\s*_~(]))www\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")
EMAIL = re.compile(r"(?<![A-Za-z0-9.+_-])[A-Za-z0-9.+_-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")
URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*:/{1,3}[^\s<]+|\bmailto:[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
SARIF_LINK = re.compile(r"\]\((?!\d+\))")  # `[label](target)` whose target is not a related location's id
LAYOUT_TAGS = frozenset({"details", "summary", "sub"})  # what the bot itself writes, never with attributes


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt("gfm-like", {"linkify": True})


def render(text: str) -> str:
    """The HTML GitHub's renderer makes of `text` (before its sanitizer)."""
    return str(_parser().render(text))


def github_problems(text: str, repo_host: str = "github.com", repo: str = "owner/repo", *,
                    plain: bool = False) -> list[str]:
    """Every live mention, link or reference outside `https://{repo_host}/{repo}`, image and raw HTML (beyond the
    bot's own layout tags and its authenticated trailer marker) GitHub would make of `text`. `plain`: GitHub shows
    the text as is (check-run annotations, titles), so only mentions are looked for."""
    if plain:
        return [f"mention {m.group(0)!r}" for m in MENTION.finditer(text)]
    lines = text.rstrip().split("\n")
    if lines and any(m.fullmatch(lines[-1]) for m in (MARKER, SIGNED_MARKER, ISSUE_MARKER)):
        text = "\n".join(lines[:-1])  # the bot's trailer: the one HTML comment it may write
    found: list[str] = []
    base = repo_host if "://" in repo_host else f"https://{repo_host}"  # a test server's http://127.0.0.1:port
    _walk(_parser().parse(text), f"{base}/{repo}", repo, found)
    return found


def assert_safe_for_github(text: str, repo_host: str = "github.com", repo: str = "owner/repo", *,
                           plain: bool = False) -> None:
    """Fail (AssertionError naming each hazard and the text) when GitHub would ping, link out, show an image or
    pass raw HTML from `text`."""
    found = github_problems(text, repo_host, repo, plain=plain)
    assert not found, f"{found} in:\n{text[:2000]}"


def sarif_message_problems(text: str, repo: str = "owner/repo") -> list[str]:
    """What GitHub's code scanning would make live of a SARIF `message.text`: it is shown as text, except
    `[label](n)` links to the result's related locations, so every other link target, URL, `www.` host, e-mail
    address, mention and foreign reference counts."""
    found = [f"mention {m.group(0)!r}" for m in MENTION.finditer(text)]
    found += [f"link target {m.group(0)!r}" for m in SARIF_LINK.finditer(text)]
    found += [f"URL {m.group(0)!r}" for m in URL.finditer(text)]
    found += [f"foreign link {m.group(0)!r}" for m in (*WWW.finditer(text), *EMAIL.finditer(text))]
    return found + [f"foreign reference {m.group(0)!r}" for m in CROSS_REFERENCE.finditer(text)
                    if m.group(1).lower() != repo.lower()]


def assert_safe_sarif_message(text: str, repo: str = "owner/repo") -> None:
    found = sarif_message_problems(text, repo)
    assert not found, f"{found} in:\n{text[:2000]}"


def posted_by_bot(github: FakeGitHub, repo: str, number: int, annotations: bool = True) -> list[tuple[str, bool]]:
    """Everything the App posted on a pull request of the fake GitHub (reviews, their comments, thread answers,
    command replies, check runs), each with whether GitHub shows it as plain text (check-run titles and
    annotations) rather than rendering it as Markdown."""
    texts = [(r["body"], False) for r in github.reviews[(repo, number)]]
    texts += [(c["body"], False) for r in github.reviews[(repo, number)] for c in r["comments"]]
    for comments in (github.review_comments.get((repo, number), []), github.issue_comments.get((repo, number), [])):
        texts += [(c["body"], False) for c in comments if c["user"]["login"] == github.bot_login]
    for run in github.check_runs.values():
        output = run.get("output") or {}
        texts += [(str(output.get("title")), True), (str(output.get("summary")), False)]
        if annotations:
            texts += [(f"{a.get('title')} {a.get('message')}", True) for a in run.get("annotations") or []]
    return texts


def assert_everything_posted_is_safe(github: FakeGitHub, repo: str, number: int,
                                     repo_host: str = "github.com") -> None:
    """`assert_safe_for_github` on every text `posted_by_bot` lists."""
    for text, plain in posted_by_bot(github, repo, number):
        assert_safe_for_github(text, repo_host, repo, plain=plain)


def _walk(tokens: list[Token], own: str, repo: str, found: list[str]) -> None:
    in_link = 0
    for i, token in enumerate(tokens):
        if token.type == "inline":
            _walk(token.children or [], own, repo, found)
        elif token.type in ("html_block", "html_inline"):
            found += _raw_html(token.content)
        elif token.type == "image":
            found.append(f"image {token.attrGet('src')!r}")
        elif token.type == "link_open":
            in_link += 1
            href = str(token.attrGet("href") or "")
            shown = tokens[i + 1].content if i + 1 < len(tokens) else ""
            if token.markup == "linkify" and not _github_autolinks(href, shown):
                in_link -= 1  # GitHub leaves `example.com` and `setup.py` as text: mentions in it still count
            elif not _inside(href, own):
                found.append(f"foreign link {href!r}")
        elif token.type == "link_close":
            in_link = max(0, in_link - 1)
        elif token.type == "text" and not in_link:
            found += [f"mention {m.group(0)!r}" for m in MENTION.finditer(token.content)]
            found += [f"foreign reference {m.group(0)!r}" for m in CROSS_REFERENCE.finditer(token.content)
                      if m.group(1).lower() != repo.lower()]
            found += [f"foreign link {m.group(0)!r}" for m in (*WWW.finditer(token.content),
                                                                  *EMAIL.finditer(token.content))]


def _github_autolinks(href: str, shown: str) -> bool:
    """GitHub's autolink extension takes `http(s)://`, `www.` and e-mail addresses, not bare domains."""
    return href.startswith("mailto:") or shown.lower().startswith(("http://", "https://", "www."))


def _inside(href: str, own: str) -> bool:
    parts, base = urllib.parse.urlsplit(href), urllib.parse.urlsplit(own)
    return ((parts.scheme, parts.netloc.lower()) == (base.scheme, base.netloc.lower()) and not parts.username
            and ".." not in urllib.parse.unquote(parts.path) and "\\" not in href
            and (parts.path == base.path or parts.path.startswith(base.path + "/")))


class _Raw(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in LAYOUT_TAGS or attrs:
            self.found.append(f"raw HTML <{tag}{' …' if attrs else ''}>")

    def handle_endtag(self, tag: str) -> None:
        if tag not in LAYOUT_TAGS:
            self.found.append(f"raw HTML </{tag}>")

    def handle_comment(self, data: str) -> None:
        self.found.append(f"HTML comment {data[:40]!r}")

    def handle_data(self, data: str) -> None:
        self.found += [f"mention {m.group(0)!r}" for m in MENTION.finditer(data)]

    def unknown_decl(self, data: str) -> None:
        self.found.append(f"raw HTML <!{data[:40]}>")

    def handle_pi(self, data: str) -> None:
        self.found.append(f"raw HTML <?{data[:40]}>")


def _raw_html(content: str) -> list[str]:
    """Raw HTML GitHub keeps: only the bot's bare layout tags are expected."""
    check = _Raw()
    check.feed(content)
    check.close()
    return check.found

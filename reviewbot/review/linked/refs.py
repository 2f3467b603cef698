"""Issue references in a pull request's description and commit messages, read the way GitHub reads them.

Markdown is parsed (markdown-it) so references in code spans, code blocks and HTML do not count; in the text that
is left, `#N`, `GH-N`, `owner/repo#N` and issue URLs are references, closing ones after a closing keyword
(`Fixes #12`, `closes: owner/repo#3`)."""

from __future__ import annotations

import functools
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

CLOSING = frozenset({"close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved"})
# GitHub's names: an owner is letters, digits and single hyphens; a repository also allows dots and underscores.
_REF = re.compile(r"(?:(?P<owner>[A-Za-z0-9][A-Za-z0-9-]{0,38})/(?P<name>[A-Za-z0-9._-]{1,100}))?"
                  r"#(?P<number>[1-9][0-9]{0,9})|GH-(?P<gh>[1-9][0-9]{0,9})")
_EDGE = "()[]{}<>.,;:!?'\"*_~"
_BREAK = "\x00"  # stands for a code span or an image: words on either side are not adjacent


@functools.cache
def _markdown() -> MarkdownIt:
    # Built on first use: the prompt's linked-issues block imports this module, a local review never parses.
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


@dataclass(frozen=True, order=True)
class IssueRef:
    repo: str  # owner/name as written (GitHub names are case-insensitive: compared lowercased)
    number: int

    def label(self, here: str) -> str:
        """`#12` in the pull request's own repository, `owner/repo#12` elsewhere."""
        return f"#{self.number}" if self.repo.lower() == here.lower() else f"{self.repo}#{self.number}"


@dataclass(frozen=True)
class Mention:
    ref: IssueRef
    closing: bool


def _words(tokens: Iterable[Token]) -> Iterator[str]:
    """The words of the prose: text and link targets, never code, HTML or image sources."""
    for token in tokens:
        if token.type == "inline":
            yield from _words(token.children or [])
        elif token.type == "text":
            yield from token.content.split()
        elif token.type in ("softbreak", "hardbreak"):
            continue
        elif token.type == "link_open":
            yield str(token.attrs.get("href", ""))
        else:
            if token.type in ("code_inline", "image", "html_inline", "html_block", "fence", "code_block",
                              "paragraph_close", "heading_close", "list_item_close"):
                yield _BREAK


def _from_url(word: str, hosts: frozenset[str]) -> IssueRef | None:
    url = urllib.parse.urlsplit(word)
    if url.scheme not in ("http", "https") or (url.hostname or "").lower() not in hosts:
        return None
    parts = url.path.strip("/").split("/")
    if len(parts) == 4 and parts[2] == "issues" and parts[3].isdigit() and int(parts[3]) > 0:
        return IssueRef(f"{parts[0]}/{parts[1]}", int(parts[3]))
    return None


def _ref(word: str, repo: str, hosts: frozenset[str]) -> IssueRef | None:
    word = word.strip(_EDGE)
    if word.startswith(("http://", "https://")):
        return _from_url(word, hosts)
    match = _REF.fullmatch(word)
    if match is None:
        return None
    owner_repo = f"{match['owner']}/{match['name']}" if match["owner"] else repo
    return IssueRef(owner_repo, int(match["number"] or match["gh"]))


def find_refs(texts: Iterable[str], repo: str, hosts: Iterable[str] = ("github.com",)) -> list[Mention]:
    """Every issue referenced in `texts` (Markdown), first mention first; closing if any mention closes it."""
    allowed = frozenset(h.lower() for h in hosts)
    found: dict[tuple[str, int], Mention] = {}
    for text in texts:
        previous = ""
        for word in _words(_markdown().parse(text or "")):
            ref = None if word == _BREAK else _ref(word, repo, allowed)
            if ref is not None:
                key = (ref.repo.lower(), ref.number)
                closing = previous.strip(_EDGE).lower() in CLOSING
                if key not in found or (closing and not found[key].closing):
                    found[key] = Mention(found[key].ref if key in found else ref, closing)
            previous = word
    return list(found.values())


def wanted(mentions: Iterable[Mention], closing: Iterable[tuple[str, int]], repo: str, own: int) -> list[Mention]:
    """The issues to read: GitHub's closing references first, then the mentions in order, each once, never the
    pull request itself; a mention GitHub also lists as closing counts as closing."""
    merged: dict[tuple[str, int], Mention] = {}
    for name, number in closing:
        merged.setdefault((name.lower(), number), Mention(IssueRef(name, number), True))
    for mention in mentions:
        key = (mention.ref.repo.lower(), mention.ref.number)
        if key not in merged:
            merged[key] = mention
        elif mention.closing:
            merged[key] = Mention(merged[key].ref, True)
    merged.pop((repo.lower(), own), None)
    return sorted(merged.values(), key=lambda m: not m.closing)  # stable: first mention first within each

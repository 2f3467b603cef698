"""What GitHub would make of a Markdown text, by rendering it: images, foreign links, raw HTML and mentions."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from reviewbot.review.publish.safemd import LinkPolicy, parser

# Tags a Markdown renderer makes from Markdown syntax itself; anything else in the HTML was raw HTML.
MARKDOWN_TAGS = frozenset({"p", "em", "strong", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li",
                           "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "s", "del", "a"})
LAYOUT_TAGS = frozenset({"details", "summary", "sub"})  # what reviewbot itself writes around the model's text
_MENTION = re.compile(r"(?<!\w)@[A-Za-z0-9]")  # as GitHub: outside <code>/<pre>, after any non-word character


class _Hazards(HTMLParser):
    def __init__(self, policy: LinkPolicy, layout: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.policy, self.allowed = policy, MARKDOWN_TAGS | layout
        self.found: list[str] = []
        self.code = 0
        self.open_layout: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.found.append("image")
        elif tag == "a" and not self.policy.allows(dict(attrs).get("href") or ""):
            self.found.append(f"foreign link {dict(attrs).get('href')!r}")
        elif tag not in self.allowed:
            self.found.append(f"raw HTML <{tag}>")
        if tag in ("code", "pre"):
            self.code += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("code", "pre"):
            self.code -= 1
        elif tag not in self.allowed:
            self.found.append(f"raw HTML </{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.code and _MENTION.search(data):
            self.found.append(f"mention in {data.strip()[:60]!r}")

    def handle_comment(self, data: str) -> None:
        self.found.append("HTML comment")


def rendered(markdown: str) -> str:
    return str(parser().render(markdown))


def hazards(markdown: str, policy: LinkPolicy | None = None, layout: frozenset[str] = frozenset()) -> list[str]:
    """Every image, link outside the repository, raw HTML tag or comment, and mention outside code in the HTML
    this Markdown renders to; `layout` names raw tags allowed (the bot's own)."""
    check = _Hazards(policy or LinkPolicy(), layout)
    check.feed(rendered(markdown))
    check.close()
    return check.found

"""The paragraphs a reader sees as the writer's own: where a command may stand (CommonMark, the way GitHub reads it)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

# Brackets whatever is not plain text (emphasis, links, code spans, HTML, escapes): a command's mention and verb
# must be plain text, while a reason keeps what sits between two markers.
OPAQUE = "\x00"
# `<details>` folds its paragraphs away; CommonMark ends the HTML block at a blank line, so the nesting is counted
# across blocks. A regular expression is enough here: it only counts tags in raw HTML the parser already isolated.
_DETAILS_OPEN = re.compile(r"<details(?:\s[^>]*)?>", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.IGNORECASE)


@functools.cache
def _parser() -> MarkdownIt:
    # text_join would fold an escape (`\@app`) into plain text; GitHub shows it but does not notify, so it stays
    # its own token. Strikethrough and tables are GFM's, which GitHub renders.
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


def own_paragraphs(body: str) -> Iterator[str]:
    """Each top-level paragraph a reader sees, as text: line breaks kept, anything not plain text bracketed by
    OPAQUE. Code, HTML blocks and comments, quotes, lists, tables, headings and folded `<details>` hold none."""
    tokens = _parser().parse(body.replace(OPAQUE, ""))
    folded = 0
    for i, token in enumerate(tokens):
        if token.type == "html_block":
            folded = _fold(folded, token.content)
        elif token.type == "inline" and token.level == 1 and tokens[i - 1].type == "paragraph_open":
            children = token.children or []
            if not folded:
                yield "".join(_inline_text(children))
            folded = _fold(folded, "".join(c.content for c in children if c.type == "html_inline"))


def _fold(depth: int, html: str) -> int:
    if "<" not in html:
        return depth
    without_comments = re.sub(r"<!--.*?-->", "", html, flags=re.DOTALL)  # a commented-out tag folds nothing
    opened = len(_DETAILS_OPEN.findall(without_comments))
    return max(0, depth + opened - len(_DETAILS_CLOSE.findall(without_comments)))


def _inline_text(children: list[Token]) -> Iterator[str]:
    for child in children:
        if child.type in ("softbreak", "hardbreak"):
            yield "\n"
        elif child.type == "text":
            yield child.content
        elif child.type == "html_inline" and child.content.startswith("<!--"):
            continue  # GitHub shows nothing of a comment: "@app dismiss <!-- note -->" reads "@app dismiss"
        elif child.type == "code_inline":
            yield f"{OPAQUE}`{child.content}`{OPAQUE}"
        elif child.type in ("html_inline", "image", "text_special"):
            yield f"{OPAQUE}{child.content}{OPAQUE}"
        else:  # emphasis, links, strikethrough: their text follows as text tokens, the marker says it is not plain
            yield OPAQUE

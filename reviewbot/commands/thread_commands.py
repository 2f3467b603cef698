"""`@app dismiss | won't fix | false positive [reason]` and `@app forget` in a review thread (pure parsing).

Only an explicit command dismisses a finding: free text ("this is not a false positive", sarcasm, a question)
never does, whatever its words. A command is the App's mention at the start of a line of a top-level paragraph,
followed by the verb; quotes, lists, tables, code spans, code blocks, links and HTML never hold one (the comment is
parsed as CommonMark, the way GitHub reads it, not scanned with patterns)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

ThreadVerb = Literal["dismiss", "wont-fix", "false-positive", "forget"]
DISMISSALS: frozenset[ThreadVerb] = frozenset({"dismiss", "wont-fix", "false-positive"})
# How people spell each verb (after lower-casing and straightening apostrophes), longest first.
SPELLINGS: tuple[tuple[str, ThreadVerb], ...] = (
    ("false positive", "false-positive"), ("false-positive", "false-positive"), ("won't fix", "wont-fix"),
    ("wont fix", "wont-fix"), ("won't-fix", "wont-fix"), ("wontfix", "wont-fix"), ("dismiss", "dismiss"),
    ("forget", "forget"),
)
REASONS: dict[str, str] = {"dismiss": "dismissed", "wont-fix": "won't fix",
                                  "false-positive": "false positive", "forget": "forget"}
MAX_REASON = 200
_AFTER_VERB = frozenset(" :,.;-–—")  # what may follow the verb: "dismiss: fixture data", "won't fix."
_AFTER_NAME = frozenset(" :,")
_OPAQUE = "\x00"  # brackets code, HTML and link text: kept in a reason, never part of a command


@dataclass(frozen=True)
class ThreadCommand:
    verb: ThreadVerb
    reason: str  # the person's own words after the verb ("" when none), one line, bounded
    name: str  # the name it was addressed to, for replies

    @property
    def dismisses(self) -> bool:
        return self.verb in DISMISSALS

    @property
    def why(self) -> str:
        """What is remembered and shown: the person's reason, else the verb's own words."""
        return self.reason or REASONS[self.verb]


@functools.cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def parse_thread_command(body: str, names: Iterable[str]) -> ThreadCommand | None:
    """The command of the first line that starts with one of `names`; None when that line is no thread command
    (a question, another verb, a verb followed by a question mark) or no line starts with a mention."""
    wanted = {n.lower().lstrip("@").removesuffix("[bot]") for n in names if n.strip("@")}
    if not wanted or "@" not in body:
        return None
    for line in _own_lines(body.replace(_OPAQUE, "")):
        addressed = _addressed(line, wanted)
        if addressed is not None:
            return _command(*addressed)
    return None


def _own_lines(body: str) -> Iterator[str]:
    """The lines of top-level paragraphs, with code spans, HTML and link text made opaque."""
    tokens = _parser().parse(body)
    for i, token in enumerate(tokens):
        if token.type == "inline" and token.level == 1 and tokens[i - 1].type == "paragraph_open":
            yield from "".join(_inline_text(token.children or [])).split("\n")


def _inline_text(children: list[Token]) -> Iterator[str]:
    in_link = 0
    for child in children:
        if child.type in ("link_open", "link_close"):
            in_link += 1 if child.type == "link_open" else -1
        elif child.type in ("softbreak", "hardbreak"):
            yield "\n"
        elif child.type == "text" and not in_link:
            yield child.content
        elif child.type == "code_inline":
            yield f"{_OPAQUE}`{child.content}`{_OPAQUE}"
        elif child.type in ("text", "html_inline", "image"):
            yield f"{_OPAQUE}{child.content}{_OPAQUE}"


def _addressed(line: str, wanted: set[str]) -> tuple[str, str] | None:
    """(the name as written, the rest of the line) when the line starts with `@name`."""
    text = line.strip()
    if not text.startswith("@"):
        return None
    end = 1
    while end < len(text) and (text[end].isascii() and (text[end].isalnum() or text[end] == "-")):
        end += 1
    name = text[1:end]
    rest = text[end:]
    if rest.lower().startswith("[bot]"):
        rest = rest[len("[bot]"):]
    if name.lower() not in wanted or (rest and rest[0] not in _AFTER_NAME):
        return None
    return name, rest.lstrip(" :,")


def _command(name: str, rest: str) -> ThreadCommand | None:
    words = rest.replace("’", "'").replace("‘", "'")
    lowered = words.lower()
    for spelling, verb in SPELLINGS:
        if lowered == spelling or (lowered.startswith(spelling) and lowered[len(spelling)] in _AFTER_VERB):
            reason = words[len(spelling):].strip(" :,.;-–—")
            if "?" in "".join(reason.split(_OPAQUE)[::2]):
                return None  # "dismiss? really" or "dismiss this?" asks; a `?` inside code does not
            reason = " ".join(reason.replace(_OPAQUE, "").split())[:MAX_REASON]
            return ThreadCommand(verb=verb, reason=reason, name=name)
    return None

"""The one command grammar: a paragraph of its own that is `@app VERB`, then only a separator and a reason."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reviewbot.commands.fix_args import fix_selectors
from reviewbot.commands.paragraphs import OPAQUE, own_paragraphs

# Every verb the App reads, longest spelling first so `full review` is never read as `review`; the canonical
# names are what the jobs receive. Hyphens, spaces and a missing apostrophe are how people spell them.
_APOSTROPHE = "['’‘ʼ`´]?"
_VERBS: tuple[tuple[str, str], ...] = (
    ("full review", r"full[ -]?review"), ("security-review", r"security[ -]?review"), ("review", r"review"),
    ("pause", r"pause"), ("resume", r"resume"), ("help", r"help"), ("audit", r"audit"),
    ("wont-fix", rf"won{_APOSTROPHE}t[ -]?fix"), ("false-positive", r"false[ -]?positive"),
    ("dismiss", r"dismiss"), ("forget", r"forget"), ("fix", r"fix"),
)
# The verb must end there: `dismissal`, `dismissed`, `dismiss-all` and `dismiss测试` are other words.
_VERB = re.compile("|".join(f"(?P<{name.replace(' ', '_').replace('-', '_')}>{spelling})"
                            for name, spelling in _VERBS) + r"(?![\w'’]|-\w)", re.IGNORECASE)
_NAMES = {name.replace(" ", "_").replace("-", "_"): name for name, _ in _VERBS}
_MENTION = re.compile(r"@([A-Za-z0-9][A-Za-z0-9-]*)(\[bot\])?", re.IGNORECASE)
_AFTER_MENTION = ("", ",", ":", "，", "：", "、")  # "@app", "@app, dismiss": addressed, no command
_ENDS = ".!。！…"  # a command may end like a sentence: "@app dismiss." "@app won't fix!"
_QUESTION = "?？"
_INVISIBLE = "\ufeff"  # a byte-order mark (zero-width no-break space) before the mention: the reader sees nothing
_DASHES = "–—―"
# Sentence-final question particles, for languages that ask without a mark ("…ですか", "…吗", "…까").
_PARTICLES = ("か", "かな", "吗", "嗎", "呢", "까", "까요", "나요")
MAX_REASON = 200


@dataclass(frozen=True)
class Reading:
    """A paragraph addressed to the App: a command (`verb`), or prose when `verb` is ""."""

    name: str  # the name it was addressed to, as written, for replies
    verb: str = ""
    reason: str = ""  # the person's words after the separator: one line, bounded
    words: str = ""  # what followed the verb before any separator (the audit's `full` and paths, fix's selectors)


def readings(body: str, names: Iterable[str]) -> Iterator[Reading]:
    """Every paragraph of `body` that starts with a mention of one of `names`, in order."""
    wanted = {n.lower().lstrip("@").removesuffix("[bot]") for n in names if n.strip("@")}
    if not wanted or "@" not in body:
        return
    for paragraph in own_paragraphs(body):
        reading = read(paragraph, wanted)
        if reading is not None:
            yield reading


def read(paragraph: str, wanted: set[str]) -> Reading | None:
    """None unless the paragraph starts with the mention; else what it says."""
    paragraph = paragraph.lstrip(_INVISIBLE)
    mention = _MENTION.match(paragraph)
    if mention is None or mention.group(1).lower() not in wanted:
        return None
    rest, name = paragraph[mention.end():], mention.group(1)
    if rest[:1] in _AFTER_MENTION:
        return Reading(name)  # addressed ("@app, please…"), but only a space may stand between mention and verb
    if not rest[0].isspace():
        return None  # "@app.example.com", "@app's": another word
    verb = _VERB.match(rest.lstrip())
    if verb is None or verb.lastgroup is None:
        return Reading(name)
    canonical = _NAMES[verb.lastgroup]
    tail = rest.lstrip()[verb.end():]
    words = ""
    if canonical == "audit":  # `audit [full] [PATH…]`: its words are arguments, not prose
        words, tail = _until_separator(tail)
        if any(q in words for q in _QUESTION):
            return Reading(name)
    elif canonical == "fix":  # `fix [all | CWE-89 | #12 …]`: selectors only; any other word makes it prose
        words, rest = _until_separator(tail)
        if words.strip() and fix_selectors(words) is not None:
            tail = rest
        else:
            words = ""
    reason = _reason(tail)
    return Reading(name) if reason is None else Reading(name, canonical, reason, words)


def _until_separator(tail: str) -> tuple[str, str]:
    for i, char in enumerate(tail):
        if char == "\n" or _separator(tail[i:]) is not None:
            return tail[:i], tail[i:]
    return tail, ""


def _reason(tail: str) -> str | None:
    """The reason after the verb ("" when none), or None when the paragraph is prose or a question."""
    rest = _hstrip(tail)
    if rest[:1] and rest[0] in _QUESTION:
        return None
    while rest[:1] and rest[0] in _ENDS:
        rest = rest[1:]
    rest = _hstrip(rest)
    if not rest:
        return ""
    after = _separator(rest)
    if after is None:
        return None  # "@app dismiss all you want": words after the verb without a separator are prose
    visible = "".join(after.split(OPAQUE)[::2]).rstrip().rstrip(_ENDS).rstrip()
    if visible.endswith(tuple(_QUESTION)) or visible.endswith(_PARTICLES):
        return None  # "@app dismiss: is this even reachable?" asks; a `?` inside code or a URL does not
    return " ".join(after.replace(OPAQUE, "").split())[:MAX_REASON]


def _separator(text: str) -> str | None:
    """What follows an explicit separator at the start of `text` (a colon, a dash, a line break), else None."""
    text = _hstrip(text)
    if text[:1] in ("\n", ":", "："):
        return text[1:]
    if text[:1] in _DASHES:  # a run of them: "——" is how Chinese writes a dash
        return text.lstrip(_DASHES)
    after = text.lstrip("-")
    if after != text and (not after or after[0].isspace()):
        return after  # an ASCII dash only when spaced: "dismiss -x" is not "dismiss - x"
    return None


def _hstrip(text: str) -> str:
    """Leading horizontal space: tabs, no-break and ideographic spaces too, never a line break."""
    i = 0
    while i < len(text) and text[i].isspace() and text[i] != "\n":
        i += 1
    return text[i:]

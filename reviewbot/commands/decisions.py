"""What a comment asks of the App: a PR comment's command, or a review-thread reply's command (pure parsing)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from reviewbot.commands.fix_args import AuditFixTarget, fix_selectors, fix_target
from reviewbot.commands.grammar import readings

Verb = Literal["review", "full review", "security-review", "pause", "resume", "help", "audit", "fix", "unknown"]
# The grammar reads every verb; each kind of comment acts on its own (a thread's `review` is a question).
COMMENT_VERBS: dict[str, Verb] = {"review": "review", "full review": "full review", "pause": "pause",
                                  "security-review": "security-review", "resume": "resume", "help": "help",
                                  "audit": "audit", "fix": "fix"}
ThreadVerb = Literal["dismiss", "wont-fix", "false-positive", "forget", "fix"]
THREAD_VERBS: dict[str, ThreadVerb] = {"dismiss": "dismiss", "wont-fix": "wont-fix",
                                       "false-positive": "false-positive", "forget": "forget", "fix": "fix"}
DISMISSALS: frozenset[ThreadVerb] = frozenset({"dismiss", "wont-fix", "false-positive"})
REASONS: dict[str, str] = {"dismiss": "dismissed", "wont-fix": "won't fix",
                           "false-positive": "false positive", "forget": "forget", "fix": "fix"}
MAX_AUDIT_PATHS = 20


@dataclass(frozen=True)
class Command:
    verb: Verb
    name: str  # the name it was addressed to, for replies
    args: tuple[str, ...] = ()  # `audit`: "full" first when asked, then the paths; `fix`: its selectors


@dataclass(frozen=True)
class ThreadCommand:
    verb: ThreadVerb
    reason: str  # the person's own words after the separator ("" when none), one line, bounded
    name: str  # the name it was addressed to, for replies

    @property
    def dismisses(self) -> bool:
        return self.verb in DISMISSALS

    @property
    def why(self) -> str:
        """What is remembered and shown: the person's reason, else the verb's own words."""
        return self.reason or REASONS[self.verb]


def parse_command(body: str, names: Iterable[str]) -> Command | None:
    """The first PR-comment command addressed to one of `names`; `unknown` when a paragraph addresses the App
    without one (it gets the help), None when no paragraph starts with the App's mention."""
    first = None
    for reading in readings(body, names):
        verb = COMMENT_VERBS.get(reading.verb)
        if verb is not None:
            return Command(verb=verb, name=reading.name, args=_args(verb, reading.words))
        first = first or reading
    return None if first is None else Command(verb="unknown", name=first.name)


def parse_fix_target(body: str, names: Iterable[str]) -> AuditFixTarget | None:
    """The audit form of `fix` in an issue comment (all, one CWE, one alert), or None when the first command is not
    a `fix` with one target."""
    command = parse_command(body, names)
    if command is None or command.verb != "fix":
        return None
    return fix_target(" ".join(command.args))


def parse_thread_command(body: str, names: Iterable[str]) -> ThreadCommand | None:
    """The first review-thread command addressed to one of `names`, or None (a question, prose, no mention)."""
    for reading in readings(body, names):
        verb = THREAD_VERBS.get(reading.verb)
        if verb is not None:
            return ThreadCommand(verb=verb, reason=reading.reason, name=reading.name)
    return None


def _args(verb: Verb, words: str) -> tuple[str, ...]:
    if verb == "audit":
        return _audit_args(words)
    return (fix_selectors(words) or ()) if verb == "fix" else ()


def _audit_args(words: str) -> tuple[str, ...]:
    """`full` and the repository paths after `audit`, as written (paths are case-sensitive); anything that could
    leave the repository (`..`) is dropped, and so is a path that is not plain text."""
    split = words.replace("\x00", "").replace("`", " ").replace(",", " ").split()
    full = bool(split) and split[0].lower() == "full"
    paths = []
    for word in split[1 if full else 0:]:
        path = word.strip().strip("/")
        if path and ".." not in path.split("/") and path.isprintable() and len(path) <= 200:
            paths.append(path)
    return (("full",) if full else ()) + tuple(dict.fromkeys(paths))[:MAX_AUDIT_PATHS]

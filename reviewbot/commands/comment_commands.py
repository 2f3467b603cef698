"""`@app review`, `full review`, `security-review`, `pause`, `resume`, `help` in PR comments, and `audit [full]
[PATH…]` in issue or PR comments (pure parsing)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Verb = Literal["review", "full review", "security-review", "pause", "resume", "help", "audit", "unknown"]
VERBS: tuple[Verb, ...] = ("full review", "security-review", "review", "pause", "resume", "help", "audit")
MAX_AUDIT_PATHS = 20
HELP = """reviewbot commands (write them in a pull request comment):

- `@{name} review`: review the latest commit (only what changed since the last review).
- `@{name} full review`: review everything again, ignoring earlier findings.
- `@{name} security-review`: a full review against the security checklist (injection, access control, \
secrets, deserialisation, path traversal, SSRF, crypto, unsafe defaults, dependencies), findings tagged with CWE \
ids and every one verified.
- `@{name} pause` / `@{name} resume`: stop or restart automatic reviews on this pull request.
- `@{name} audit [full] [PATH…]`: a security audit of this pull request's head (its alerts appear in its \
checks; in an issue: of the default branch), or of these folders; only files changed since the default branch's \
last audit are audited again, unless `full`.
- `@{name} help`: this message.

In one of reviewbot's review threads, on a line of its own: `@{name} dismiss [reason]` (or `won't fix`, \
`false positive`) stops the finding from being raised again, `@{name} forget` undoes that.

Only people with write access to the repository can start reviews."""
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


@dataclass(frozen=True)
class Command:
    verb: Verb
    name: str  # the name it was addressed to, for replies
    args: tuple[str, ...] = ()  # `audit`: "full" first when asked, then the paths


def parse_command(body: str, names: Iterable[str]) -> Command | None:
    """The first command addressed to one of `names`; quoted lines and code never count."""
    wanted = {n.lower().removesuffix("[bot]") for n in names if n}
    if not wanted or "@" not in body:
        return None
    text = _CODE.sub(" ", body)
    for line in text.splitlines():
        if line.lstrip().startswith(">"):
            continue  # a quoted reply repeats someone else's command
        for match in re.finditer(r"(?<![\w@])@([A-Za-z0-9][A-Za-z0-9-]*)(?:\[bot\])?\b(.*)", line):
            name = match.group(1).lower()
            if name not in wanted:
                continue
            rest = " ".join(match.group(2).lower().replace(",", " ").split())
            verb: Verb = "unknown"
            for candidate in VERBS:
                if rest == candidate or rest.startswith(candidate + " "):
                    verb = candidate
                    break
            args = _audit_args(match.group(2)) if verb == "audit" else ()
            return Command(verb=verb, name=match.group(1), args=args)
    return None


def _audit_args(rest: str) -> tuple[str, ...]:
    """`full` and the repository paths after `audit`, as written (paths are case-sensitive); anything that could
    leave the repository (`..`) is dropped, and so is a path that is not plain text."""
    words = rest.replace(",", " ").split()[1:]
    full = bool(words) and words[0].lower() == "full"
    paths = []
    for word in words[1 if full else 0:]:
        path = word.strip().strip("/")
        if path and ".." not in path.split("/") and path.isprintable() and len(path) <= 200:
            paths.append(path)
    return (("full",) if full else ()) + tuple(dict.fromkeys(paths))[:MAX_AUDIT_PATHS]


def help_text(name: str) -> str:
    return HELP.format(name=name)

"""`@app review`, `full review`, `security-review`, `pause`, `resume`, `help` in PR comments (pure parsing)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Verb = Literal["review", "full review", "security-review", "pause", "resume", "help", "unknown"]
VERBS: tuple[Verb, ...] = ("full review", "security-review", "review", "pause", "resume", "help")
HELP = """reviewbot commands (write them in a pull request comment):

- `@{name} review`: review the latest commit (only what changed since the last review).
- `@{name} full review`: review everything again, ignoring earlier findings.
- `@{name} security-review`: a full review against the security checklist (injection, access control, \
secrets, deserialisation, path traversal, SSRF, crypto, unsafe defaults, dependencies), findings tagged with CWE \
ids and every one verified.
- `@{name} pause` / `@{name} resume`: stop or restart automatic reviews on this pull request.
- `@{name} help`: this message.

In one of reviewbot's review threads, on a line of its own: `@{name} dismiss [reason]` (or `won't fix`, \
`false positive`) stops the finding from being raised again, `@{name} forget` undoes that.

Only people with write access to the repository can start reviews."""
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


@dataclass(frozen=True)
class Command:
    verb: Verb
    name: str  # the name it was addressed to, for replies


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
            return Command(verb=verb, name=match.group(1))
    return None


def help_text(name: str) -> str:
    return HELP.format(name=name)

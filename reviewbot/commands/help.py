"""The App's answer to `@app help` and to a paragraph addressed to it that is no command."""

from __future__ import annotations

HELP = """reviewbot commands (write them in a pull request comment, each in a paragraph of its own):

- `@{name} review`: review the latest commit (only what changed since the last review).
- `@{name} full review`: review everything again, ignoring earlier findings.
- `@{name} security-review`: a full review against the security checklist (injection, access control, \
secrets, deserialisation, path traversal, SSRF, crypto, unsafe defaults, dependencies), findings tagged with CWE \
ids and every one verified.
- `@{name} pause` / `@{name} resume`: stop or restart automatic reviews on this pull request.
- `@{name} audit [full] [PATH…]`: a security audit of this pull request's head (its alerts appear in its \
checks; in an issue: of the default branch), or of these folders; only files changed since the default branch's \
last audit are audited again, unless `full`.
- `@{name} fix`: one checked fix for the open verified findings of the latest review (the most severe first), \
pushed as a commit or offered as suggestions, when the operator turned fixes on. In an audit's issue, \
`@{name} fix [all | CWE-89 | #12]` opens a checked fix pull request for each of the latest audit's findings \
(of that class, or of code-scanning alert 12).
- `@{name} help`: this message.

In one of reviewbot's review threads, as a paragraph of its own: `@{name} dismiss` (or `won't fix`, \
`false positive`), optionally followed by a colon, a dash or a line break and your reason \
(`@{name} dismiss: fixture data`), stops the finding from being raised again; `@{name} forget` undoes that; \
`@{name} fix` fixes that one finding. \
Anything else after the command's words makes the paragraph an ordinary comment.

Only people with write access to the repository can start reviews; the pull request's author may also ask for fixes."""


def help_text(name: str) -> str:
    return HELP.format(name=name)

"""Where GitHub links plain text on its own: `www.` hosts, e-mail addresses and `owner/repo#N` references."""

from __future__ import annotations

import re
import urllib.parse

# GFM's extended autolinks (cmark-gfm): `www.` after the start, a space or `*_~(`, and e-mail addresses, both
# with any top-level domain (the linkify parser the rebuilding uses only knows listed TLDs, so it misses
# `www.evil.example` and `root@evil.example`). `WWW.` too, in case a renderer ignores case.
_WWW = re.compile(r"(?:^|(?<=[\s*_~(]))www\.[\w-]+(?:\.[\w-]+)*", re.ASCII | re.IGNORECASE)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.ASCII)
# GitHub links (and notifies) another repository's issue or pull request, escaped `\#` or not: the reference
# filter runs on the rendered text.
_REFERENCE = re.compile(r"(?<![\w./-])([A-Za-z0-9][\w.-]*/[\w.-]+)(?:#\d+|@[0-9a-f]{7,40}\b)", re.ASCII)


def autolinked(text: str, repo_url: str = "") -> list[tuple[int, int]]:
    """Spans of `text` (already unescaped, as in a text token) GitHub would turn into a link that leaves the
    repository at `repo_url`; a reference to the repository's own issues stays text."""
    own = urllib.parse.urlsplit(repo_url).path.strip("/").lower()
    spans = [m.span() for m in (*_WWW.finditer(text), *_EMAIL.finditer(text))]
    spans += [m.span() for m in _REFERENCE.finditer(text) if m.group(1).lower() != own]
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if kept and start < kept[-1][1]:
            kept[-1] = (kept[-1][0], max(end, kept[-1][1]))
        else:
            kept.append((start, end))
    return kept


def broken(text: str, repo_url: str = "") -> str:
    """`text` with a zero-width joiner where GitHub's autolinking would start, for text that cannot hold a code
    span: after `www`, after the `@` of an address and after the `#` or `@` of a reference."""
    out, at = [], 0
    for start, end in autolinked(text, repo_url):
        span = text[start:end]
        cut = 3 if span.lower().startswith("www.") else max(span.find("@"), span.find("#")) + 1
        out += [text[at:start], span[:cut], "\u200d", span[cut:]]
        at = end
    out.append(text[at:])
    return "".join(out)


# `#12` in text the App writes for the model (a fix's commit message or pull request body): after a closing keyword
# ("Fixes #12") GitHub closes that issue when the change lands; a zero-width joiner keeps the text and breaks the
# reference, as `@` gets one against pings.
_ISSUE_REF = re.compile(r"#(?=\d)")
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+")


def unreferenced(text: str) -> str:
    """`text` with no issue reference GitHub would act on and no address: for model text in commits and bodies."""
    return _ISSUE_REF.sub("#\u200d", _URL.sub("[link]", text))

"""The README and docs/ pages: every relative link resolves (file and heading), every docs/ page is linked.

Pure and fast: reads the Markdown files, no network.
"""

from __future__ import annotations

import re
from pathlib import Path

# The repository root, found upward so the test keeps working if it moves deeper under tests/.
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
DOCS = ROOT / "docs"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"(`+).+?\1")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def outside_fences(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks (a fence closes only with as many backticks or more)."""
    lines, fence = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in outside_fences(path):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    return [
        target
        for line in outside_fences(path)
        for target in LINK.findall(CODE_SPAN.sub("", line))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)
    ]


def test_the_link_parser_skips_code_and_sees_links(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# A `code` title\n[x](a.md#b) `[no](c.md)`\n````md\n[no](d.md)\n```\n````\n![img](e.png)\n")
    assert relative_links(page) == ["a.md#b", "e.png"]
    assert anchors(page) == {"a-code-title"}


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in pages():
        for target in relative_links(page):
            file_part, _, anchor = target.partition("#")
            resolved = (page.parent / file_part).resolve() if file_part else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = ROOT / "README.md"
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in relative_links(readme)}
    missing = [page.name for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert not missing, f"docs pages not linked from README.md: {missing}"

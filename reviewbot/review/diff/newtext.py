"""A changed file's new text, rebuilt from its base text and its hunks (no second download needed)."""

from __future__ import annotations

from reviewbot.review.diff.parse import FileDiff


def head_text(file: FileDiff, base: str | None) -> str | None:
    """The file after the change, or None when the hunks do not fit the base (then the caller uses the base)."""
    if file.status == "removed" or file.binary or file.too_large:
        return None
    if file.status == "added" or base is None:
        if file.status != "added":
            return None
        return "\n".join(ln.text for h in file.hunks for ln in h.lines if ln.kind == "+")
    old = base.split("\n")
    out: list[str] = []
    cursor = 0  # 0-based index of the next base line not yet copied
    for hunk in file.hunks:
        start = max(hunk.old_start - 1, 0) if hunk.old_len else hunk.old_start
        if start < cursor or start > len(old):
            return None
        out.extend(old[cursor:start])
        cursor = start
        for ln in hunk.lines:
            if ln.kind == "+":
                out.append(ln.text)
                continue
            if cursor >= len(old) or old[cursor].rstrip("\r") != ln.text:
                return None  # the base we have is not the one the diff was made against
            if ln.kind == " ":
                out.append(old[cursor])
            cursor += 1
    out.extend(old[cursor:])
    return "\n".join(out)


def changed_lines(file: FileDiff) -> tuple[set[int], set[int]]:
    """(added line numbers in the new file, removed line numbers in the old file)."""
    added = {ln.new for h in file.hunks for ln in h.lines if ln.kind == "+" and ln.new is not None}
    removed = {ln.old for h in file.hunks for ln in h.lines if ln.kind == "-" and ln.old is not None}
    return added, removed

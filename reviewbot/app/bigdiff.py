"""A pull request's diff even when GitHub's diff endpoint refuses it (406: over 300 files or 20,000 lines):
rebuilt from the paginated files list and, where GitHub omits a file's patch, from its blobs at base and head."""

from __future__ import annotations

import asyncio
import difflib
import logging
from typing import Any

from reviewbot.app.port import MAX_LISTED, GitHubPort
from reviewbot.errors import GitHubError

log = logging.getLogger(__name__)
MAX_REBUILT = 200  # files without a patch whose contents we fetch; the rest are reported unseen
# difflib is quadratic at worst (~0.35 s for 2,500 lines with every other one changed), so both the size of
# one file and the lines diffed per pull request are bounded; what is over is reported, not diffed.
MAX_FILE_LINES = 20_000
MAX_TOTAL_LINES = 100_000
NO_NEWLINE = "\\ No newline at end of file\n"
Blobs = tuple[str | None, str | None]


async def load_diff(port: GitHubPort, repo: str, number: int, base_sha: str,
                    head_sha: str) -> tuple[str, list[str]]:
    """The diff text, and what could not be seen (one line each) so the review can say so."""
    try:
        return await port.get_diff(repo, number), []
    except GitHubError as exc:
        if exc.status != 406:
            raise
    files = await port.list_files(repo, number)
    log.info("the diff is too large for GitHub's diff endpoint; rebuilt from the files list",
             extra={"repo": repo, "pr": number, "files": len(files)})
    unseen = []
    if len(files) >= MAX_LISTED and (total := (await port.get_pull(repo, number)).changed_files) > len(files):
        unseen.append(f"{total - len(files):,} files after the first {len(files):,} (GitHub lists no more)")
    missing = [f for f in files if _needs_blobs(f)]
    unseen += [f"{f['filename']} (no patch from GitHub; over {MAX_REBUILT} such files)" for f in missing[MAX_REBUILT:]]
    blobs = await _fetch_blobs(port, repo, missing[:MAX_REBUILT], base_sha, head_sha)
    text, more = await asyncio.to_thread(diff_from_files, files, blobs)
    return text, unseen + more


def diff_from_files(files: list[dict[str, Any]], blobs: dict[str, Blobs]) -> tuple[str, list[str]]:
    """Pure: the git-format diff of the listed files, using `blobs` (path -> (base, head)) where no patch is."""
    parts: list[str] = []
    unseen: list[str] = []
    budget = MAX_TOTAL_LINES
    for item in files:
        path, old_path = str(item["filename"]), str(item.get("previous_filename") or item["filename"])
        header = _header(str(item.get("status") or "modified"), old_path, path)
        patch = item.get("patch")
        if isinstance(patch, str) and patch:
            parts.append(header + _markers(item, old_path, path) + (patch if patch.endswith("\n") else patch + "\n"))
        elif path not in blobs:
            parts.append(header)  # a pure rename, an empty file, a mode change: nothing to show
        else:
            body, why, used = _blob_diff(item, old_path, path, *blobs[path], budget=budget)
            budget -= used
            parts.append(header + body)
            if why:
                unseen.append(f"{path} ({why})")
    return "".join(parts), unseen


def _needs_blobs(item: dict[str, Any]) -> bool:
    return not item.get("patch") and not (item.get("status") == "renamed" and not item.get("changes"))


async def _fetch_blobs(port: GitHubPort, repo: str, files: list[dict[str, Any]], base_sha: str,
                       head_sha: str) -> dict[str, Blobs]:
    limit = asyncio.Semaphore(8)

    async def one(item: dict[str, Any]) -> tuple[str, Blobs]:
        path, status = str(item["filename"]), item.get("status")
        old_path = str(item.get("previous_filename") or path)
        async with limit:
            old = None if status == "added" else await port.get_file(repo, old_path, base_sha)
            new = None if status == "removed" else await port.get_file(repo, path, head_sha)
        return path, (old, new)

    return dict(await asyncio.gather(*(one(item) for item in files)))


def _header(status: str, old_path: str, path: str) -> str:
    lines = [f"diff --git a/{old_path} b/{path}"]
    if status == "added":
        lines.append("new file mode 100644")
    elif status == "removed":
        lines.append("deleted file mode 100644")
    elif old_path != path:
        verb = "copy" if status == "copied" else "rename"
        lines += [f"{verb} from {old_path}", f"{verb} to {path}"]
    return "\n".join(lines) + "\n"


def _markers(item: dict[str, Any], old_path: str, path: str) -> str:
    old = "/dev/null" if item.get("status") == "added" else f"a/{old_path}"
    new = "/dev/null" if item.get("status") == "removed" else f"b/{path}"
    return f"--- {old}\n+++ {new}\n"


def _blob_diff(item: dict[str, Any], old_path: str, path: str, old: str | None, new: str | None, *,
               budget: int) -> tuple[str, str, int]:
    """The file's hunks from its two versions (and the lines diffed), or a binary marker and why it stays unseen."""
    status = item.get("status")
    marker = f"Binary files a/{old_path} and b/{path} differ\n"
    if (old is None and status != "added") or (new is None and status != "removed"):
        return marker, "binary, or too large for GitHub to show", 0
    a, b = _git_lines(old or ""), _git_lines(new or "")
    if len(a) + len(b) > min(MAX_FILE_LINES, budget):
        too_big = len(a) + len(b) > MAX_FILE_LINES
        return marker, f"over {MAX_FILE_LINES:,} lines" if too_big else "over the size this review rebuilds", 0
    out = []
    for line in difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{old_path}",
                                     "/dev/null" if new is None else f"b/{path}", n=3):
        out.append(line if line.endswith("\n") else line + "\n" + NO_NEWLINE)
    return "".join(out), "", len(a) + len(b)


def _git_lines(text: str) -> list[str]:
    # git splits on "\n" only (str.splitlines would also split on \r, \x0c, \u2028 and shift line numbers).
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

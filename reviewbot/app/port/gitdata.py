"""The Git Data API: one commit made from blobs and a tree on the head's, then a non-forced branch update."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping

from reviewbot.app.port.base import PortBase, _q
from reviewbot.errors import GitHubError, PermanentError

NOT_FAST_FORWARD = "not a fast forward"  # GitHub's 422 when the branch moved since the parent was read


class BranchMoved(PermanentError):
    """The branch is no longer at the commit the fix was made on: a person's push wins."""


class GitDataAPI(PortBase):
    """Blobs, trees, commits and refs."""

    async def commit_tree(self, repo: str, commit_sha: str) -> str:
        data = await self._get(f"GET git commit {commit_sha[:7]}",
                               f"/repos/{_q(repo)}/git/commits/{urllib.parse.quote(commit_sha, safe='')}")
        return str(data["tree"]["sha"])

    async def commit_files(self, repo: str, branch: str, parent: str, files: Mapping[str, str], message: str) -> str:
        """One commit on `branch` whose parent is `parent`, with `files` (path → text) changed; the branch moves
        only if it is still at `parent` (`force: false`), else BranchMoved. Each file keeps its mode (an executable
        script stays executable)."""
        sha = await self.make_commit(repo, parent, files, message)
        ref = "heads/" + "/".join(urllib.parse.quote(part, safe="") for part in branch.split("/"))
        try:
            await self._send("PATCH", f"PATCH ref {branch}", f"/repos/{_q(repo)}/git/refs/{ref}",
                             {"sha": sha, "force": False})
        except GitHubError as exc:
            if exc.status == 422 and NOT_FAST_FORWARD in str(exc).lower():
                raise BranchMoved(f"{branch} moved on from {parent[:7]}") from exc
            raise
        return sha

    async def make_commit(self, repo: str, parent: str, files: Mapping[str, str], message: str) -> str:
        """A commit (on no branch yet) whose parent is `parent`, with `files` (path → text) changed, modes kept."""
        base_tree = await self.commit_tree(repo, parent)
        modes = await self._modes(repo, base_tree, files)
        entries = []
        for path, text in sorted(files.items()):
            blob = await self._send("POST", f"POST blob {path}", f"/repos/{_q(repo)}/git/blobs",
                                    {"content": text, "encoding": "utf-8"})
            entries.append({"path": path, "mode": modes.get(path, "100644"), "type": "blob", "sha": str(blob["sha"])})
        tree = await self._send("POST", "POST tree", f"/repos/{_q(repo)}/git/trees",
                                {"base_tree": base_tree, "tree": entries})
        commit = await self._send("POST", "POST commit", f"/repos/{_q(repo)}/git/commits",
                                  {"message": message, "tree": str(tree["sha"]), "parents": [parent]})
        return str(commit["sha"])

    async def create_branch(self, repo: str, branch: str, sha: str) -> None:
        """A new branch at `sha` (a fix's own branch, for a fix pull request); GitHubError 422 if it exists."""
        await self._send("POST", f"POST ref {branch}", f"/repos/{_q(repo)}/git/refs",
                         {"ref": f"refs/heads/{branch}", "sha": sha})

    async def branch_head(self, repo: str, branch: str) -> str:
        ref = "heads/" + "/".join(urllib.parse.quote(part, safe="") for part in branch.split("/"))
        data = await self._get(f"GET ref {branch}", f"/repos/{_q(repo)}/git/ref/{ref}")
        return str(data["object"]["sha"])

    async def _modes(self, repo: str, tree: str, files: Mapping[str, str]) -> dict[str, str]:
        """The files' modes in `tree`: the recursive listing (GitHub truncates beyond 100,000 entries; a file it
        leaves out is a regular file)."""
        data = await self._get(f"GET tree {tree[:12]}", f"/repos/{_q(repo)}/git/trees/{urllib.parse.quote(tree)}",
                               params={"recursive": "1"})
        return {str(e["path"]): str(e["mode"]) for e in data.get("tree") or []
                if e.get("type") == "blob" and e.get("path") in files and e.get("mode") in ("100644", "100755")}

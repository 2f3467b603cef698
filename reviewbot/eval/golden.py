"""A public benchmark of real pull requests on disk, in withmartian's code-review-benchmark format: one JSON file per
repository (`golden_comments/sentry.json`), each a list of pull requests with their golden comments."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from reviewbot.errors import ConfigError


@dataclass(frozen=True)
class Golden:
    """A real issue a person found in the pull request, as the benchmark words it."""

    comment: str
    severity: str = ""
    category: str = ""


@dataclass(frozen=True)
class BenchmarkPR:
    url: str  # the key the benchmark's own tools use (results/*/candidates.json, evaluations.json)
    title: str
    source: str  # the golden file's stem: "sentry", "cal_dot_com"
    owner: str
    name: str
    number: int
    golden: tuple[Golden, ...]
    base_sha: str = ""  # not in the published files; a local extension for pull requests git cannot place
    head_sha: str = ""

    @property
    def repo(self) -> str:
        return f"{self.owner}/{self.name}"


def load_benchmark(root: Path, only: list[str] | None = None) -> list[BenchmarkPR]:
    """Every pull request of every `*.json` under `root` (or its `golden_comments/`), in file then list order;
    `only` keeps the pull requests whose URL is listed."""
    folder = root / "golden_comments" if (root / "golden_comments").is_dir() else root
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ConfigError(f"no benchmark files (*.json) in {folder}")
    prs = [pr for path in files for pr in _read(path)]
    if only:
        missing = sorted(set(only) - {pr.url for pr in prs})
        if missing:
            raise ConfigError(f"no such pull request in the benchmark: {', '.join(missing)}")
        prs = [pr for pr in prs if pr.url in only]
    return prs


def _read(path: Path) -> list[BenchmarkPR]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable JSON file ({exc})") from None
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a list of pull requests")
    return [_entry(path, i, item) for i, item in enumerate(data)]


def _entry(path: Path, index: int, item: Any) -> BenchmarkPR:
    where = f"{path.name}[{index}]"
    if not isinstance(item, dict) or not isinstance(item.get("url"), str):
        raise ConfigError(f"{where}: each pull request needs a `url`")
    owner, name, number = parse_pr_url(item["url"], where)
    comments = item.get("comments")
    if not isinstance(comments, list):
        raise ConfigError(f"{where}: `comments` must be a list")
    golden = tuple(Golden(str(c["comment"]), str(c.get("severity") or ""), str(c.get("category") or ""))
                   for c in comments if isinstance(c, dict) and isinstance(c.get("comment"), str))
    title = item.get("pr_title") or item.get("title") or f"Pull request #{number}"
    return BenchmarkPR(url=item["url"], title=str(title), source=path.stem, owner=owner, name=name, number=number,
                       golden=golden, base_sha=str(item.get("base_sha") or ""),
                       head_sha=str(item.get("head_sha") or ""))


def parse_pr_url(url: str, where: str = "url") -> tuple[str, str, int]:
    """(owner, name, number) of `https://github.com/OWNER/NAME/pull/N` (any host: GitHub Enterprise too)."""
    parts = [p for p in urlsplit(url).path.split("/") if p]
    if len(parts) < 4 or parts[2] != "pull" or not parts[3].isdigit():
        raise ConfigError(f"{where}: {url!r} is not a pull request URL (…/OWNER/NAME/pull/N)")
    return parts[0], parts[1], int(parts[3])

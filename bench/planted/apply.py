"""Materialise planted cases: a real release copied into a fresh tree, every case's patch applied, lines checked.

Releases come from the benchmark cache (`~/.cache/reviewbot-bench`, or --cache): the Django repository there
(one tagged commit per release, `v<version>`) or an sdist under `sdists/` as `pip download` leaves it. `--download`
fetches a missing sdist with `pip download --no-deps --no-binary :all:`.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename
from packaging.version import Version

from bench.planted.cases import CORPUS, Case, by_release, load_corpus


class ReleaseMissing(LookupError):
    """Neither a tagged repository nor an sdist of the release is in the cache."""


class PatchFailed(RuntimeError):
    """A case's patch does not apply, or two cases of one release patch the same file."""


def default_cache() -> Path:
    return Path.home() / ".cache" / "reviewbot-bench"


def find_sdist(package: str, version: str, cache: Path) -> Path | None:
    wanted = (canonicalize_name(package), Version(version))
    for path in sorted((cache / "sdists").glob("*.tar.gz")):
        try:
            if parse_sdist_filename(path.name) == wanted:
                return path
        except InvalidSdistFilename:
            continue
    return None


def download_sdist(package: str, version: str, cache: Path) -> Path:
    (cache / "sdists").mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "-d", str(cache / "sdists"), f"{package}=={version}"], check=True)
    found = find_sdist(package, version, cache)
    if found is None:
        raise ReleaseMissing(f"pip download left no sdist of {package} {version} in {cache / 'sdists'}")
    return found


def _extract(archive: tarfile.TarFile, dest: Path, strip_top: bool) -> None:
    for member in archive.getmembers():
        if strip_top:
            parts = member.name.split("/", 1)
            if len(parts) < 2 or not parts[1]:
                continue
            member.name = parts[1]
        if member.isfile() or member.isdir():
            archive.extract(member, dest, filter="data")


def copy_release(package: str, version: str, dest: Path, cache: Path, download: bool = False) -> str:
    """Fill dest with the release's files; say where they came from."""
    repo = cache / canonicalize_name(package)
    tag = f"v{version}"
    if (repo / ".git").exists() and subprocess.run(["git", "-C", str(repo), "tag", "-l", tag], check=True,
                                                   capture_output=True, text=True).stdout.strip():
        tar = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", tag], check=True,
                             capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            _extract(archive, dest, strip_top=False)
        return f"{repo} at {tag}"
    sdist = find_sdist(package, version, cache)
    if sdist is None and download:
        sdist = download_sdist(package, version, cache)
    if sdist is None:
        raise ReleaseMissing(f"no {package} {version} in {cache} (a git repository tagged {tag}, or an sdist "
                             "under sdists/): run with --download")
    with tarfile.open(sdist) as archive:
        _extract(archive, dest, strip_top=True)
    return str(sdist)


def apply_patch(tree: Path, case: Case) -> None:
    # The ceiling keeps git from finding a repository above the tree and applying the patch relative to that.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tree.parent)}
    done = subprocess.run(["git", "apply", "--whitespace=nowarn", "-p1", case.patch], cwd=tree, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise PatchFailed(f"{case.id}: {done.stderr.strip()}")


def misplaced(tree: Path, case: Case) -> list[str]:
    """Each source, intermediate or sink line that is not at its stated line after patching."""
    problems = []
    for kind, where in case.pieces:
        lines = (tree / where.path).read_text(encoding="utf-8").splitlines()
        actual = lines[where.line - 1].strip() if 0 < where.line <= len(lines) else "<past the end>"
        if actual != where.text:
            problems.append(f"{case.id} {kind} {where.path}:{where.line}: {actual!r} is not {where.text!r}")
    return problems


def materialise(cases: Sequence[Case], dest: Path, cache: Path, download: bool = False) -> tuple[str, list[str]]:
    """Copy the one release all cases patch into dest, apply every patch; return the origin and misplaced lines."""
    releases = {case.release for case in cases}
    if len(releases) != 1:
        raise PatchFailed(f"one tree holds one release, not {sorted(releases)}")
    owners: dict[str, str] = {}
    for case in cases:
        for path in case.patched_files():
            if path in owners:
                raise PatchFailed(f"{case.id} and {owners[path]} both patch {path}")
            owners[path] = case.id
    package, version = releases.pop()
    origin = copy_release(package, version, dest, cache, download)
    for case in cases:
        apply_patch(dest, case)
    return origin, [problem for case in cases for problem in misplaced(dest, case)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--cache", type=Path, default=None, help="default: ~/.cache/reviewbot-bench")
    parser.add_argument("--package", help="only this package's cases")
    parser.add_argument("--dest", type=Path, help="where the trees go (default: a new temporary directory)")
    parser.add_argument("--download", action="store_true", help="pip download a missing sdist")
    args = parser.parse_args(argv)
    cache = args.cache or default_cache()
    dest = args.dest or Path(tempfile.mkdtemp(prefix="planted-"))
    failed = False
    for (package, version), cases in by_release(load_corpus(args.corpus)).items():
        if args.package and canonicalize_name(args.package) != canonicalize_name(package):
            continue
        tree = dest / f"{canonicalize_name(package)}-{version}"
        tree.mkdir(parents=True)
        origin, problems = materialise(cases, tree, cache, args.download)
        print(f"{tree}: {len(cases)} cases on {origin}; audit {sorted({c.audited for c in cases})}")
        for problem in problems:
            print(f"  MISPLACED {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

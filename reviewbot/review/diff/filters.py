"""What is not worth reviewing: lockfiles, generated, minified, vendored, binary and data files, ignore globs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from pathspec import GitIgnoreSpec

from reviewbot.review.diff.parse import FileDiff


def _words(text: str) -> list[str]:
    return text.split()


LOCKFILES = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
    "deno.lock", "Cargo.lock", "Gemfile.lock", "poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock",
    "composer.lock", "go.sum", "go.work.sum", "mix.lock", "Podfile.lock", "packages.lock.json", "flake.lock",
    "pubspec.lock", "gradle.lockfile", "Package.resolved", "conan.lock", "paket.lock", "cabal.project.freeze",
    "stack.yaml.lock", "shrinkwrap.yaml", "MODULE.bazel.lock", "renv.lock", "Manifest.toml",
})
VENDORED_DIRS = frozenset({"vendor", "vendors", "third_party", "third-party", "thirdparty", "node_modules",
                           "bower_components", "Pods", ".yarn", "site-packages"})
BINARY_EXTENSIONS = frozenset(_words(
    ".png .jpg .jpeg .gif .bmp .ico .webp .tif .tiff .psd .pdf .zip .gz .tgz .bz2 .xz .7z .rar .zst .jar .war "
    ".class .so .dylib .dll .exe .bin .o .a .lib .obj .woff .woff2 .ttf .otf .eot .mp3 .mp4 .mov .avi .mkv .wav "
    ".flac .ogg .webm .wasm .pyc .pyo .db .sqlite .sqlite3 .dat .iso .dmg .keystore .jks .p12"))
DATA_EXTENSIONS = frozenset(_words(".csv .tsv .jsonl .ndjson .parquet .avro .orc .arrow .feather .npy .npz .h5 .hdf5 "
                            ".pkl .pickle .xml .json .sql .log .txt .geojson .xlsx .xls"))
GENERATED_SUFFIXES = (".min.js", ".min.css", ".min.mjs", ".js.map", ".css.map", "_pb2.py", "_pb2_grpc.py",
                      ".pb.go", ".pb.gw.go", ".pb.h", ".pb.cc", ".g.dart", ".freezed.dart", ".designer.cs",
                      ".generated.ts", ".generated.js", "_generated.go", ".snap")
LARGE_DATA_CHARS = 100_000  # a data file whose diff is bigger than this is data, not code
LONG_LINE = 1_000  # minified or generated code: lines nobody reads
HEADER_LINES = 10


@dataclass(frozen=True)
class Excluded:
    path: str
    reason: str


@dataclass(frozen=True)
class Screened:
    kept: tuple[FileDiff, ...]
    excluded: tuple[Excluded, ...]


class Attributes:
    """`.gitattributes` rules (root and nested) for linguist-generated, linguist-vendored, binary and -diff."""

    def __init__(self, files: dict[str, str]) -> None:
        self._rules: list[tuple[GitIgnoreSpec, str, bool]] = []
        for where in sorted(files, key=lambda p: p.count("/")):
            base = where.rsplit("/", 1)[0] + "/" if "/" in where else ""
            for line in files[where].splitlines():
                parts = line.split()
                if not parts or parts[0].startswith("#"):
                    continue
                pattern = parts[0] if not base else base + parts[0].lstrip("/")
                for attr in parts[1:]:
                    name, value = _attribute(attr)
                    if name in ("linguist-generated", "linguist-vendored", "binary", "diff"):
                        self._rules.append((GitIgnoreSpec.from_lines([pattern]), name, value))

    def value(self, path: str, name: str) -> bool | None:
        found: bool | None = None
        for spec, attr, value in self._rules:
            if attr == name and spec.match_file(path):
                found = value  # the last matching line wins, as in git
        return found


def _attribute(token: str) -> tuple[str, bool]:
    if token.startswith("-"):
        return token[1:], False
    name, _, value = token.partition("=")
    return name, value.lower() not in ("false", "0", "unset")


def screen(files: Sequence[FileDiff], sample: Callable[[FileDiff], str | None], attributes: Attributes,
           ignore: Sequence[str] = ()) -> Screened:
    """Split the diff's files into kept and excluded (with the reason); `sample` gives a file's text, if any."""
    spec = GitIgnoreSpec.from_lines(list(ignore)) if ignore else None
    kept: list[FileDiff] = []
    excluded: list[Excluded] = []
    for file in files:
        reason = exclusion(file, attributes, spec) or _content_reason(file, sample)
        if reason:
            excluded.append(Excluded(file.path, reason))
        else:
            kept.append(file)
    return Screened(tuple(kept), tuple(excluded))


def exclusion(file: FileDiff, attributes: Attributes, spec: GitIgnoreSpec | None) -> str | None:
    """Why a file is excluded by its path, attributes or size alone (no content needed), or None."""
    if file.binary:
        return "binary"
    if reason := path_reason(file.path, attributes, spec):
        return reason
    suffix = PurePosixPath(file.path).suffix.lower()
    if file.too_large:
        return f"too large ({file.diff_chars / 1e6:.1f} MB diff)"
    if suffix in DATA_EXTENSIONS and file.diff_chars > LARGE_DATA_CHARS:
        return f"large data file ({file.diff_chars / 1e3:,.0f} kB diff)"
    return None


def path_reason(path: str, attributes: Attributes, spec: GitIgnoreSpec | None) -> str | None:
    """Why a path is never worth reading (for the diff and for context alike), or None."""
    folders, _, name = path.rpartition("/")  # string operations: this runs for every path of the tree
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""
    if spec is not None and spec.match_file(path):
        return "ignored by the repository's configuration"
    if vendored_dir := next((part for part in folders.split("/") if part in VENDORED_DIRS), None):
        return f"vendored ({vendored_dir}/)"
    if attributes.value(path, "linguist-vendored"):
        return "vendored (linguist-vendored in .gitattributes)"
    if name in LOCKFILES:
        return "lockfile"
    if suffix in BINARY_EXTENSIONS or attributes.value(path, "binary"):
        return "binary"
    if attributes.value(path, "diff") is False:
        return "binary (-diff in .gitattributes)"
    if attributes.value(path, "linguist-generated"):
        return "generated (linguist-generated in .gitattributes)"
    if name.endswith(GENERATED_SUFFIXES):
        return "generated or minified (file name)"
    return None


def _content_reason(file: FileDiff, sample: Callable[[FileDiff], str | None]) -> str | None:
    """Generated headers in the file's first lines; minified code in what it is or what is added to it."""
    added = added_text(file)
    text = sample(file) or added
    head = "\n".join(text.split("\n", HEADER_LINES)[:HEADER_LINES])
    if "@generated" in head:
        return "generated (@generated header)"
    if "DO NOT EDIT" in head:
        return "generated (DO NOT EDIT header)"
    for body in (text, added) if text is not added else (text,):
        lines = body.split("\n")
        if max(map(len, lines), default=0) > LONG_LINE and len(body) / max(len(lines), 1) > 200:
            return f"minified or generated (lines over {LONG_LINE:,} characters)"
    return None


def added_text(file: FileDiff) -> str:
    """The added lines of a file's diff: what a new file looks like, for the header and line-length checks."""
    return "\n".join(ln.text for h in file.hunks for ln in h.lines if ln.kind == "+")

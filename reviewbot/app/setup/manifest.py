"""The App manifest flow: the manifest from app.yml, GitHub's creation URL, and saving the new App's
credentials (the key file with mode 0600, the rest merged into .env without touching other lines)."""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Collection
from pathlib import Path
from typing import Any

import yaml

from reviewbot.app.app_api import CreatedApp
from reviewbot.errors import ConfigError

CHECKOUT_MANIFEST = Path(__file__).resolve().parents[3] / "app.yml"
ORG_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_SAFE_VALUE = re.compile(r"^[A-Za-z0-9_./:@+-]*$")
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


def find_manifest() -> Path:
    """`app.yml` in the working directory, else the one of this checkout."""
    for path in (Path("app.yml"), CHECKOUT_MANIFEST):
        if path.is_file():
            return path
    raise ConfigError("app.yml (the App manifest) was not found in the working directory")


def webhook_url(public_url: str) -> str:
    """Where GitHub sends webhooks: `{public}/webhooks/github`, or a smee.io channel itself (smee forwards)."""
    if urllib.parse.urlsplit(public_url).hostname == "smee.io":
        return public_url
    return f"{public_url}/webhooks/github"


def build_manifest(path: Path, *, public_url: str, redirect_url: str, name: str | None = None,
                   push_fixes: bool = False) -> dict[str, Any]:
    """app.yml with the addresses of this installation of reviewbot filled in; `push_fixes` (REVIEWBOT_FIXES=push)
    asks for `contents: write`, which a fix commit needs and nothing else does."""
    try:
        manifest = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the App manifest {path}: {exc}") from None
    if not isinstance(manifest, dict):
        raise ConfigError(f"the App manifest {path} must be a mapping")
    hook = dict(manifest.get("hook_attributes") or {})
    hook["url"] = webhook_url(public_url)
    manifest.update(url=public_url, hook_attributes=hook, redirect_url=redirect_url)
    if name:
        manifest["name"] = name
    if push_fixes:
        manifest["default_permissions"] = {**(manifest.get("default_permissions") or {}), "contents": "write"}
    return manifest


def creation_url(github_url: str, state: str, org: str | None = None) -> str:
    """GitHub's "create an App from a manifest" page, for a personal account or an organisation."""
    if org and not ORG_NAME.match(org):
        raise ConfigError(f"{org!r} is not a GitHub account or organisation name")
    where = f"/organizations/{org}/settings/apps/new" if org else "/settings/apps/new"
    return f"{github_url}{where}?{urllib.parse.urlencode({'state': state})}"


def save_app(app: CreatedApp, env_path: Path, data_dir: Path) -> Path:
    """Write the key to `{data_dir}/{slug}.private-key.pem` (0600) and the rest into .env; returns the key path."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    key_path = (data_dir / f"{app.slug}.private-key.pem").resolve()
    write_private(key_path, app.pem)
    values = {"GITHUB_APP_ID": str(app.id), "GITHUB_CLIENT_ID": app.client_id,
              "GITHUB_PRIVATE_KEY_PATH": str(key_path)}
    if app.webhook_secret:  # never an empty (or "None") secret; the operator was told to set one
        values["GITHUB_WEBHOOK_SECRET"] = app.webhook_secret
    existing = env_path.read_text() if env_path.is_file() else ""
    # An inline key would win over the new key file, so it goes.
    write_private(env_path, merge_env(existing, values, drop={"GITHUB_PRIVATE_KEY"}))
    return key_path


def merge_env(text: str, values: dict[str, str], drop: Collection[str] = ()) -> str:
    """Replace the lines of `values`' variables (and remove `drop`'s), keep every other line, append the rest."""
    out: list[str] = []
    pending = dict(values)
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line, i = lines[i], i + 1
        match = _ASSIGNMENT.match(line)
        if match is None or (match.group(1) not in values and match.group(1) not in drop):
            out.append(line)
            continue
        quote = match.group(2)[:1]
        if quote in ("'", '"') and match.group(2).count(quote) == 1:  # a multi-line quoted value
            while i < len(lines) and quote not in lines[i]:
                i += 1
            i += 1
        if match.group(1) in pending:
            out.append(_assign(match.group(1), pending.pop(match.group(1))))
    out += [_assign(k, v) for k, v in pending.items()]
    return "\n".join(out) + "\n"


def _assign(name: str, value: str) -> str:
    if _SAFE_VALUE.match(value):
        return f"{name}={value}"
    return f'{name}="' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read, replacing it atomically."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an older temporary file may have had wider permissions
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)

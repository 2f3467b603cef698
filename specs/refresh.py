"""Regenerate the pinned Workers AI model specs (specs/workers-ai/*.json) from a copy of cloudflare/cloudflare-docs.

Usage: python specs/refresh.py /path/to/cloudflare-docs [--pin kimi-k2.6=<commit> ...]

Only this script reads the sources; tests and reviewbot read the pinned files. Each pinned file keeps what the bot
needs: the model's properties (prices, context window, async queue, function calling, vision, reasoning,
deprecation), the chat-completions request schema (the "Messages" input form and the asynchronous batch form that
wraps it) and the JSON response schema. Descriptions are dropped; every validation keyword is kept as published.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

MODELS = ("kimi-k2.5", "kimi-k2.6", "kimi-k2.7-code")
MODELS_DIR = "src/content/workers-ai-models"
REPOSITORY = "cloudflare/cloudflare-docs"
LICENCE = "CC-BY-4.0"
OUT = Path(__file__).resolve().parent / "workers-ai"


def strip(schema: Any) -> Any:
    """The schema without `description`/`title` annotations; names inside `properties` are kept."""
    if isinstance(schema, list):
        return [strip(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("description", "title"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: strip(sub) for name, sub in value.items()}
        else:
            out[key] = strip(value)
    return out


def _messages_form(alternatives: list[dict[str, Any]]) -> dict[str, Any]:
    [form] = [a for a in alternatives if a.get("title") == "Messages"]
    return form


def subset(doc: dict[str, Any], source: dict[str, str]) -> dict[str, Any]:
    """The pinned part of one model JSON."""
    direct, batch = doc["schema"]["input"]["anyOf"]
    messages = {"type": "object", **strip(_messages_form(direct["oneOf"]))}
    batched = {"type": "object", **strip(_messages_form(batch["properties"]["requests"]["items"]["oneOf"]))}
    if batched != messages:
        raise SystemExit(f"{doc['name']}: the batch form differs from the direct form; pin both by hand")
    [output] = [o for o in doc["schema"]["output"]["oneOf"] if o.get("contentType") == "application/json"]
    return {
        "name": doc["name"],
        "source": source,
        "created_at": doc.get("created_at"),
        "properties": {p["property_id"]: p["value"] for p in doc.get("properties", [])},
        "schema": {
            "input": {
                "$defs": {"messages": messages},
                "anyOf": [
                    {"$ref": "#/$defs/messages"},
                    {"type": "object", "properties": {"requests": {"type": "array",
                                                                   "items": {"$ref": "#/$defs/messages"}}}},
                ],
            },
            "output": strip(output),
        },
    }


def _commit(docs: Path, path: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(docs), "log", "-1", "--format=%H %cs", "--", path],  # noqa: S603,S607
                              capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs", type=Path, help="a checkout (or copy) of cloudflare/cloudflare-docs")
    parser.add_argument("--pin", action="append", default=[], metavar="MODEL=COMMIT",
                        help="the commit a copied file came from (default: git log of the checkout)")
    args = parser.parse_args(argv)
    pins = dict(item.split("=", 1) for item in args.pin)
    OUT.mkdir(parents=True, exist_ok=True)
    for slug in MODELS:
        path = f"{MODELS_DIR}/{slug}.json"
        doc = json.loads((args.docs / path).read_text(encoding="utf-8"))
        source = {"repository": REPOSITORY, "path": path, "commit": pins.get(slug) or _commit(args.docs, path),
                  "licence": LICENCE}
        pinned = subset(doc, source)
        (OUT / f"{slug}.json").write_text(json.dumps(pinned, indent=1) + "\n", encoding="utf-8")
        print(f"{slug}: {source['commit']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

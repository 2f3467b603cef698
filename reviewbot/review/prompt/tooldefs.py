"""The repository tools as the model sees them: OpenAI function definitions, the same bytes in every request."""

from __future__ import annotations

import json
from typing import Any

MAX_READ_LINES = 400
MAX_MATCHES = 50
# Every argument is capped, here for the model and again where the tools check them.
MAX_PATH = 1_000
MAX_PATTERN = 200
MAX_GLOB = 120
MAX_LINE_NUMBER = 10_000_000

# Serialised once, in a fixed key order: the same bytes in every request, so they stay in the cached prefix.
TOOL_DEFINITIONS_JSON = json.dumps([
    {"type": "function", "function": {
        "name": "read_file",
        "description": "Read a file of the repository at the base commit, with line numbers. At most "
                       f"{MAX_READ_LINES} lines per call; ask for a range for longer files.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["path"], "properties": {
            "path": {"type": "string", "maxLength": MAX_PATH, "description": "Path relative to the repository root."},
            "start_line": {"type": "integer", "minimum": 1, "maximum": MAX_LINE_NUMBER,
                           "description": "First line (1-based)."},
            "end_line": {"type": "integer", "minimum": 1, "maximum": MAX_LINE_NUMBER,
                         "description": "Last line (inclusive)."}}}}},
    {"type": "function", "function": {
        "name": "search_code",
        "description": "Find lines containing a literal text (not a regular expression) in the repository at "
                       f"the base commit. At most {MAX_MATCHES} matches, as path:line: text.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["pattern"], "properties": {
            "pattern": {"type": "string", "maxLength": MAX_PATTERN, "description": "The exact text to find."},
            "path_glob": {"type": "string", "maxLength": MAX_GLOB,
                          "description": "Only files matching this glob (gitignore syntax), e.g. src/**/*.py."}}}}},
    {"type": "function", "function": {
        "name": "list_files",
        "description": "List the files and folders (ending in /) directly inside a folder of the repository.",
        "parameters": {"type": "object", "additionalProperties": False, "required": ["directory"], "properties": {
            "directory": {"type": "string", "maxLength": MAX_PATH,
                          "description": "Folder relative to the root; \"\" for the root."}}}}},
], sort_keys=True, separators=(",", ":"))


def tool_definitions() -> list[dict[str, Any]]:
    """The `tools` array for chat completions (a fresh copy of the canonical definitions)."""
    definitions: list[dict[str, Any]] = json.loads(TOOL_DEFINITIONS_JSON)
    return definitions

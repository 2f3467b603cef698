"""The audit's chunk size is written out where importing the planner would cost every command: the same number."""

from __future__ import annotations

from reviewbot.audit.chunks import AUDIT_CHUNK_TOKENS
from reviewbot.cli.main import parser
from reviewbot.settings import Settings


def test_the_command_line_and_the_settings_default_to_the_planners_chunk_size() -> None:
    args = parser().parse_args(["audit", "--repo", "."])
    assert args.chunk_tokens == AUDIT_CHUNK_TOKENS
    assert Settings.from_mapping({"REVIEWBOT_DATA_DIR": "/nonexistent"}).audit_chunk_tokens == AUDIT_CHUNK_TOKENS

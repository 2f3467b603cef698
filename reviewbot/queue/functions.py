"""The worker's job function names and the JSON job serializer (never pickle); job ids are in reviewbot.state."""

from __future__ import annotations

import json
from typing import Any

REVIEW_FUNCTION = "review_pull_request"
COMMAND_FUNCTION = "handle_command"
CONVERSATION_FUNCTION = "answer_thread"
SUITE_FUNCTION = "rerun_suite"
FIX_FUNCTION = "fix_pull_request"
AUDIT_FIX_FUNCTION = "fix_audit_findings"
FIX_CI_FUNCTION = "report_fix_ci"
PUSH_AUDIT_FUNCTION = "audit_after_push"
ALERT_FUNCTION = "learn_from_alert"
PLAN_FUNCTION = "plan_audit"
CHUNK_FUNCTION = "audit_chunk"
FINISH_FUNCTION = "finish_audit"
SCHEDULE_FUNCTION = "audit_schedules"
POLL_FUNCTION = "audit_upload_status"
OUTCOMES_FUNCTION = "record_outcomes"
LEARN_FUNCTION = "propose_rule"


def serialize(obj: Any) -> bytes:
    # Exceptions stored as job results have no JSON form; their repr is enough for arq's result record.
    return json.dumps(obj, default=repr, separators=(",", ":")).encode()


def deserialize(data: bytes) -> Any:
    return json.loads(data)

"""What the bot writes about an audit (its plan, progress and result) in the comment that answers a request; paths and
titles come from the repository and the model, so every one goes through the Markdown rebuilding."""

from __future__ import annotations

import time

from reviewbot.audit.disclosure import finding_key, is_public, security_tab_url, severity_counts
from reviewbot.audit.report import code_line
from reviewbot.audit.service_record import AuditRecord, FindingJson
from reviewbot.jobs.audit.audit_record import published_text
from reviewbot.jobs.audit.audit_target import pull_number
from reviewbot.review.findings.schema import SEVERITY_RANK
from reviewbot.review.publish.markdown import BADGE, neutralize_inline
from reviewbot.review.publish.safemd import LinkPolicy

MAX_LISTED = 20


def _code(path: str) -> str:
    return neutralize_inline(f"`{path.replace('`', '')}`")


def scope_line(record: AuditRecord) -> str:
    where = ", ".join(_code(p) for p in record.paths[:MAX_LISTED]) or "the whole repository"
    kind = "full audit" if record.full or not record.incremental else "incremental audit"
    return f"Security audit ({kind}) of {where} on `{neutralize_inline(record.branch)}` at `{record.sha[:7]}`"


def plan_text(record: AuditRecord) -> str:
    chunks = record.chunks
    files = sum(len(c.paths) for c in chunks)
    lines = [f"**{scope_line(record)}**", "",
             f"Plan: {files} file(s) in {len(chunks)} chunk(s), estimated ${record.estimate_usd:.2f} "
             f"(model `{neutralize_inline(record.model)}`)."]
    if record.unchanged:
        outside = ", with those outside the audited folders" if record.paths else ""
        lines.append(f"{record.unchanged} unchanged file(s) since the last audit of this branch: their findings "
                     f"are carried forward ({len(record.carried)}{outside}).")
    elif record.carried:  # a folder's audit: the branch's findings elsewhere stay in its one code-scanning picture
        lines.append(f"{len(record.carried)} finding(s) of the branch's last audit outside the audited folders are "
                     "carried forward.")
    lines += _related(record)
    lines += _left_out(record)
    return "\n".join(lines)


def progress_text(record: AuditRecord, done: int, failed: int, spent: float) -> str:
    total = len(record.chunks)
    elapsed = max(1.0, time.time() - float(record.created))
    left = f"; about {round(elapsed / done * (total - done - failed) / 60) + 1} min left" if done else ""
    return "\n".join([plan_text(record), "",
                      f"Progress: {done + failed} of {total} chunk(s) done, ${spent:.2f} spent of "
                      f"${record.estimate_usd:.2f} estimated{left}."])


def result_text(record: AuditRecord) -> str:
    # Alerts people dismissed in code scanning stay dismissed there; the answer neither lists nor counts them.
    dismissed = set(record.publication.dismissed) if record.publication is not None else set()
    findings = [f for f in record.findings if finding_key(f["path"], f["line"]) not in dismissed]
    lines = [f"**{scope_line(record)}: done**", "",
             f"{record.files} file(s) in {len(record.chunks)} chunk(s); ${record.spent_usd:.2f} spent "
             f"(estimated ${record.estimate_usd:.2f}); {record.candidates} distinct candidate(s) verified, "
             f"{len(findings)} finding(s) kept"
             + (f", {record.carried_count} carried forward from the last audit" if record.carried_count
                else "") + "."]
    outcomes = [a.outcome for a in record.code_asks]
    if said := code_line(outcomes.count("more code"), outcomes.count("unverified")):
        lines += ["", said]
    lines += _related(record)
    if dismissed:
        lines += ["", f"{len(dismissed)} more finding(s) are code-scanning alerts people dismissed: not listed."]
    if counts := severity_counts(f["severity"] for f in findings):
        lines += ["", counts]
    shown = _describable(record, findings)
    for f in sorted(shown, key=lambda f: (SEVERITY_RANK[f["severity"]], f["path"], f["line"]))[:MAX_LISTED]:
        cwe = f" ({neutralize_inline(f['cwe'])})" if f.get("cwe") else ""
        label = " · **unverified**" if f.get("unverified") else ""
        lines.append(f"- {BADGE[f['severity']]}{label} {_code(f['path'])} line {int(f['line'])}: "
                     f"{neutralize_inline(f['title'])}{cwe}")
    if len(shown) > MAX_LISTED:
        lines.append(f"- … and {len(shown) - MAX_LISTED} more.")
    lines += _withheld(record, len(findings) - len(shown))
    if record.not_audited:
        lines += ["", "Not audited (the rest completed):"]
        lines += [f"- chunk {int(i) + 1} ({len(record.chunks[int(i)].paths)} file(s)): "
                  f"{neutralize_inline(why[:200])}" for i, why in sorted(record.not_audited.items())]
    lines += _left_out(record)
    lines += ["", f"Where the results are: {_where(record)}."]
    return "\n".join(lines)


def _describable(record: AuditRecord, findings: list[FindingJson]) -> list[FindingJson]:
    """What this answer may describe: everything on a private or internal repository; on a public one (everyone
    reads this thread, while code-scanning alerts are shown to writers only) a pull request's findings on the
    lines it changes, which the pull request shows anyway, and nothing of a branch's audit."""
    if not is_public(record.visibility):
        return list(findings)
    shown = set(record.in_diff) if pull_number(record.branch) is not None else set()
    return [f for f in findings if finding_key(f["path"], f["line"]) in shown]


def _withheld(record: AuditRecord, count: int) -> list[str]:
    """The findings this public thread counts but does not describe, and where those allowed to see them do."""
    if not count:
        return []
    publication = record.publication
    number = pull_number(record.branch)
    where = "in the audit record only (`reviewbot audit status`, the dashboard)"  # withheld, or not published
    if publication is not None and publication.where == "code-scanning" and publication.status != "failed" \
            and record.repo_url:
        where = (f"in [the Security tab's code-scanning alerts]({security_tab_url(record.repo_url, number)}), "
                 "which people with write access see")
    elif publication is not None and publication.where == "advisory":
        where = "in the repository's private draft security advisory"
    untouched = "on code this pull request does not change " if number is not None else ""
    return ["", f"{count} finding(s) {untouched}are not described here because this repository is public; they "
            f"are {neutralize_inline(where, LinkPolicy(record.repo_url))}."]


def _where(record: AuditRecord) -> str:
    """The tracking issue as a link, not the escaped `\\#N` the rebuilding makes of text: a link to the audited
    repository's own issue, which its link policy keeps; everything else stays text."""
    publication, repo_url = record.publication, record.repo_url
    if publication is not None and publication.where == "issue" and publication.issue_number and repo_url:
        linked = published_text(publication, f"{repo_url}/issues/{int(publication.issue_number)}")
        return neutralize_inline(linked, LinkPolicy(repo_url))
    return neutralize_inline(record.published or "the audit record")


def _related(record: AuditRecord) -> list[str]:
    """An incremental audit reviews the changed files' callers and callees again with them."""
    if not record.related:
        return []
    return [f"{record.related} file(s) that call or are called by the changed ones are audited again with them."]


def _left_out(record: AuditRecord) -> list[str]:
    # Names the tree could not hold (not UTF-8, too long): the repository has files this audit never saw.
    lines = [f"Not audited: {neutralize_inline(note)}." for note in record.tree_notes]
    left = record.left_out
    if left:
        shown = ", ".join(_code(p) for p in left[:MAX_LISTED]) + (" …" if len(left) > MAX_LISTED else "")
        lines.append(f"Left out by the cost cap (`max_usd` ${record.max_usd or 0:.2f}): {len(left)} file(s): {shown}")
    return ["", *lines] if lines else []


def busy_text(branch: str) -> str:
    return (f"An audit of `{neutralize_inline(branch)}` is already running; this request was not started. "
            "`reviewbot audit status` (or the dashboard) shows its progress.")

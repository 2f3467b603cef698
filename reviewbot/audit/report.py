"""The audit's report from its state, pure: Markdown for people, JSON for tools."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from reviewbot.audit.findings import evidence_of
from reviewbot.review.findings.schema import SEVERITY_RANK, Finding
from reviewbot.review.findings.security import CWE_NAMES, cwe_counts
from reviewbot.review.publish.markdown import BADGE, code_span, neutralize, neutralize_inline


def findings_of(state: dict[str, Any]) -> list[Finding]:
    """Every distinct finding once: the verified ones and those the policy kept without a check, most severe
    first."""
    raw = [f for checked in state.get("verified", {}).values() for f in checked["findings"]]
    raw += state.get("merged", {}).get("unchecked_kept", [])
    found = [Finding.model_validate(f) for f in raw]
    return sorted(found, key=lambda f: (SEVERITY_RANK[f.severity], f.path, f.line))


def totals(state: dict[str, Any]) -> dict[str, Any]:
    done = list(state.get("done", {}).values())
    checked = list(state.get("verified", {}).values())
    usage: Counter[str] = Counter()
    for part in done + checked:
        usage.update({k: v for k, v in part["usage"].items() if isinstance(v, int | float)})
    prompt = usage["prompt_tokens"]
    merged = state.get("merged", {})
    return {"files": sum(len(c["paths"]) for c in state["chunks"]), "chunks": len(state["chunks"]),
            "chunks_done": len(done), "checked": sum(c["checked"] for c in checked),
            "candidates": merged.get("candidates", 0), "distinct": merged.get("distinct", 0),
            "dropped": [d for c in checked for d in c["dropped"]], "unchecked": [t for c in checked
                                                                                 for t in c["unchecked"]],
            **code_counts(a for c in checked for a in c.get("code", [])),
            "partial": list(state.get("partial", [])), "failed": dict(state.get("failed", {})),
            "evidence_dropped": sum(int(d.get("evidence_dropped") or 0) for d in done),
            "usage": {"prompt_tokens": prompt, "cached_tokens": usage["cached_tokens"],
                      "completion_tokens": usage["completion_tokens"], "cost_usd": round(usage["cost_usd"], 6),
                      "requests": usage["requests"], "async_requests": usage["async_requests"],
                      "cache_ratio": round(usage["cached_tokens"] / prompt, 4) if prompt else 0.0}}


def code_counts(asks: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many candidates were verified with the more code their verifier asked for, and how many were published
    unverified because the tree did not have it (or the follow-up could not settle them)."""
    outcomes = Counter(str(a.get("outcome")) for a in asks)
    return {"more_code": outcomes["more code"], "lacking_code": outcomes["unverified"]}


def code_line(more: int, lacking: int) -> str:
    """The sentence the local report and the service's answer share; "" when no verifier asked for code."""
    if not more and not lacking:
        return ""
    return f"{more} verified with more code, {lacking} published unverified for lack of code."


def as_json(state: dict[str, Any]) -> dict[str, Any]:
    findings = findings_of(state)
    return {"root": state["root"], "directory": state["directory"], "model": state.get("model", ""),
            **totals(state), "cwe": dict(cwe_counts(findings)),
            "findings": [f.model_dump() for f in findings]}


def markdown(state: dict[str, Any]) -> str:
    t, findings = totals(state), findings_of(state)
    u = t["usage"]
    where = state["directory"] or "the whole repository"
    lines = [f"# Security audit of {state['root']} ({where})", "",
             f"{t['files']} file(s) in {t['chunks']} chunk(s), {t['chunks_done']} done; model "
             f"{state.get('model', '?')}; {u['requests']} request(s), {u['async_requests']} through the "
             f"asynchronous queue; {u['prompt_tokens']:,} prompt tokens ({u['cache_ratio']:.0%} cached), "
             f"{u['completion_tokens']:,} completion tokens, ${u['cost_usd']:.4f}.", "",
             f"The chunks proposed {t['candidates']} candidate(s), {t['distinct']} distinct after merging those "
             "that point at the same code; every distinct one was checked by a second request: "
             f"{t['checked']} checked, {len(t['dropped'])} dropped, {len(findings)} kept."
             + (f" {said}" if (said := code_line(t["more_code"], t["lacking_code"])) else ""), "",
             f"## Findings ({len(findings)})", ""]
    if not findings:
        lines.append("No findings.")
    for f in findings:
        cwe = f" · {f.cwe} ({CWE_NAMES.get(f.cwe, 'see cwe.mitre.org')})" if f.cwe else ""
        span = f"{f.start_line}-{f.line}" if f.start_line else str(f.line)
        label = " · **unverified**" if f.unverified else ""  # its verification could not run; kept, labelled
        lines += [f"### {BADGE[f.severity]}{label} `{f.path}` line {span}: {neutralize_inline(f.title)}", "",
                  f"{f.category}{cwe} · confidence {f.confidence:.2f}", "", neutralize(f.body), ""]
        lines += [f"- {e.role} {code_span(f'{e.path}:{e.line}')}{': ' + neutralize_inline(e.note) if e.note else ''}"
                  for e in evidence_of(f)] + ([""] if f.evidence else [])
    counts = cwe_counts(findings)
    if counts:
        lines += ["## By CWE", "", "| CWE | Findings |", "|---|---|"]
        lines += [f"| {c}{f' ({CWE_NAMES[c]})' if c in CWE_NAMES else ''} | {n} |" for c, n in counts] + [""]
    if t["dropped"]:
        lines += ["## Dropped after verification", ""]
        lines += [f"- **{neutralize_inline(title)}**: {neutralize_inline(reason)}" for title, reason in t["dropped"]]
        lines += [""]
    if t["evidence_dropped"]:
        lines += [f"{t['evidence_dropped']} evidence line(s) the model gave were left out: outside the audited "
                  "files, or past a file's end.", ""]
    if t["unchecked"]:
        lines += [f"{len(t['unchecked'])} finding(s) could not be checked and are listed above marked "
                  "**unverified**.", ""]
    if t["partial"] or t["failed"]:
        lines += ["## Not fully audited", ""]
        lines += [f"- `{path}`: {why}" for path, why in t["partial"]]
        lines += [f"- {'chunk ' + str(int(i) + 1) if i.isdigit() else i}: {why} (run the audit again to resume)"
                  for i, why in t["failed"].items()]
    return "\n".join(lines).rstrip() + "\n"

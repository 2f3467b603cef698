"""Flows no chunk's request holds whole get a request of their own: input read in one file, passed through a second,
used in a sink in a third, the three split over chunks, shown together once; bounded; none when a chunk holds the
flow; the same tree plans the same requests."""

from __future__ import annotations

from reviewbot.audit.flowpaths import find_flows
from reviewbot.audit.flowrequests import flow_chunks
from reviewbot.audit.planner import AuditPlan, plan_audit
from reviewbot.review.context.snapshot import MemorySnapshot

SOURCE_LINE = "token = request.COOKIES['token']"
MIDDLE_DEF = "def lookup_token(token):"
SINK_LINE = "cursor.execute(\"SELECT * FROM tokens WHERE key = '%s'\" % token)"
PAD = "def pad_{n}_{m}(value):\n    return value * {m} + {n}\n\n\n"


def padding(n: int, units: int = 60) -> str:
    return "".join(PAD.format(n=n, m=m) for m in range(units))


def tree(flows: int = 1) -> dict[str, str]:
    """Each of the flow's files large enough to be a chunk of its own."""
    files: dict[str, str] = {}
    for k in range(flows):
        files[f"web{k}/views.py"] = (f"from svc{k}.tokens import lookup_token{k}\n\n\n" + padding(k)
                                     + f"def check{k}(request):\n    {SOURCE_LINE}\n"
                                     f"    return lookup_token{k}(token)\n")
        files[f"svc{k}/tokens.py"] = (f"from store{k}.sql import fetch_token{k}\n\n\n" + padding(k + 100)
                                      + f"{MIDDLE_DEF.replace('lookup_token', f'lookup_token{k}')}\n"
                                      f"    token = token.strip()\n    return fetch_token{k}(token)\n")
        files[f"store{k}/sql.py"] = (padding(k + 200) + f"def fetch_token{k}(token):\n"
                                     f"    cursor = connection.cursor()\n    {SINK_LINE}\n"
                                     "    return cursor.fetchone()\n")
    return files


def plan(files: dict[str, str], chunk_tokens: int = 1_500) -> AuditPlan:
    return plan_audit(MemorySnapshot(files), chunk_tokens=chunk_tokens)


def requests(audit: AuditPlan, files: dict[str, str]) -> list[str]:
    return [audit.messages(c, files.get)[1]["content"] for c in audit.chunks]


def holds_flow(text: str, k: int = 0) -> bool:
    return SOURCE_LINE in text and f"def lookup_token{k}(token):" in text and SINK_LINE in text


def test_a_two_hop_flow_split_over_chunks_gets_one_request_holding_all_three_pieces() -> None:
    files = tree()
    audit = plan(files)
    regular = [c for c in audit.chunks if c.paths]
    assert len(regular) >= 3  # each file a chunk: no chunk's request holds the flow by itself
    flow_parts = [c for c in audit.chunks if not c.paths]
    assert len(flow_parts) == 1
    texts = requests(audit, files)
    assert [i for i, t in enumerate(texts) if holds_flow(t)] == [flow_parts[0].index]
    flow_text = texts[flow_parts[0].index]
    part = flow_text.split("one cross-file flow to audit", 1)[1]
    assert "def pad_" not in part  # just the flow's pieces, none of the files' other functions
    # on the audit's shared prefix: the same system message and head as every chunk
    first, flow = audit.messages(regular[0], files.get), audit.messages(flow_parts[0], files.get)
    assert first[0] == flow[0] and flow[1]["content"].startswith(audit.prefix.head)


def test_no_flow_request_when_one_chunk_already_holds_the_flow() -> None:
    files = tree()
    audit = plan(files, chunk_tokens=120_000)
    assert len(audit.chunks) == 1 and audit.chunks[0].paths
    assert holds_flow(requests(audit, files)[0])


def test_flow_requests_are_bounded_in_count_and_tokens() -> None:
    files = tree(flows=4)
    audit = plan(files)
    regular = [c for c in audit.chunks if c.paths]
    contexts = [audit.context(c, files.get) for c in regular]
    flows = find_flows(files, audit.definitions, audit.files)
    assert len(flow_chunks(flows, regular, contexts, files)) == 4
    assert len(flow_chunks(flows, regular, contexts, files, most=2)) == 2
    assert flow_chunks(flows, regular, contexts, files, tokens=20) == []  # a flow that does not fit is left out
    assert all(c.tokens <= 6_000 for c in audit.chunks if not c.paths)


def test_the_same_tree_plans_the_same_flow_requests() -> None:
    files = tree(flows=3)
    first, second = plan(files), plan(dict(reversed(list(files.items()))))
    assert first.chunks == second.chunks
    assert requests(first, files) == requests(second, files)

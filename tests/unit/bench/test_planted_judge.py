"""The ideal stand-in on hand-made requests: found only when one request shows the whole flow, once per request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.planted.cases import Case, Location
from bench.planted.ideal import judge, main, summarise, table

SOURCE = "term = request.GET.get('term', '')"
HELPER = "def count_matches(self, term):"
SINK = "cursor.execute(f\"SELECT COUNT(*) FROM t WHERE name LIKE '{term}%'\")"


def case(case_id: str = "sql", intermediates: tuple[str, ...] = (HELPER,)) -> Case:
    return Case(id=case_id, package="demo", version="1.0", audited="demo", language="python", cwe="CWE-89",
                title="t", flow="f", patch="unused.diff",
                source=Location(path="demo/web/views.py", line=3, text=SOURCE),
                sink=Location(path="demo/db/ops.py", line=9, text=SINK),
                intermediates=tuple(Location(path="demo/web/search.py", line=1, text=t) for t in intermediates))


def request(*lines: str) -> str:
    """A request as an audit might write one: file headers, numbered and indented code."""
    return "\n".join(["## demo/web/views.py"] + [f"{n:>4}  {line}" for n, line in enumerate(lines, 1)])


def test_a_case_is_found_once_when_one_request_holds_source_intermediate_and_sink() -> None:
    [verdict] = judge([request("x = 1"), request(SOURCE, "    " + HELPER, "        " + SINK)], [case()])
    assert verdict.found and verdict.requests == (1,) and verdict.reports == 1 and verdict.duplicates == 0


def test_a_request_body_as_sent_counts_with_its_json_escaping() -> None:
    body = json.dumps({"messages": [{"role": "user", "content": request(SOURCE, HELPER, SINK)}]})
    assert SINK not in body
    [verdict] = judge([body], [case()])
    assert verdict.found


def test_source_and_sink_in_different_requests_are_missed_though_each_was_seen() -> None:
    [verdict] = judge([request(SOURCE, HELPER), request(SINK)], [case()])
    assert not verdict.found and verdict.reports == 0
    assert verdict.seen == ("source", "intermediate", "sink")


def test_a_request_without_the_intermediate_definition_does_not_count() -> None:
    [verdict] = judge([request(SOURCE, SINK)], [case()])
    assert not verdict.found and verdict.seen == ("source", "sink")
    [direct] = judge([request(SOURCE, SINK)], [case(intermediates=())])
    assert direct.found


def test_every_request_showing_the_flow_is_one_more_report_for_deduplication_to_fold() -> None:
    whole = request(SOURCE, HELPER, SINK)
    verdicts = judge([whole, request("y = 2"), whole, whole], [case("sql"), case("other", ("def other():",))])
    assert [v.requests for v in verdicts] == [(0, 2, 3), ()]
    total = summarise(verdicts)
    assert (total.cases, total.found, total.missed, total.reports, total.duplicates) == (2, 1, 1, 3, 2)
    text = table(verdicts)
    assert "| sql | CWE-89 | yes | 3 |" in text and "| other | CWE-89 | MISSED | 0 | source, sink |" in text
    assert "1 of 2 found, 1 missed" in text and "3 times (2 duplicates" in text


def test_main_prints_the_table_for_a_json_file_of_request_texts(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    requests = tmp_path / "requests.json"
    requests.write_text(json.dumps({"requests": ["nothing relevant"]}))
    assert main([str(requests), "--package", "django"]) == 0
    out = capsys.readouterr().out
    assert "| django-static-resize | CWE-78 | MISSED | 0 | none |" in out and "0 of " in out
    requests.write_text(json.dumps({"requests": [1, 2]}))
    with pytest.raises(ValueError, match="list of strings"):
        main([str(requests)])

"""The textual screen before a parse: a name after a definition keyword (a Go receiver too) or at a line's start
counts, a use does not; lines that cannot end the keyword pattern are not searched, with the same answers."""

from __future__ import annotations

from reviewbot.review.context.index import looks_defined


def test_definitions_pass_and_uses_do_not() -> None:
    assert looks_defined("def run_query(q):\n    pass\n", "run_query")
    assert looks_defined("func (s *Server) Handle() {}\n", "Handle")
    assert looks_defined("func (s *Server)  \tHandle() {}\n", "Handle")
    assert looks_defined("class A:\n    limit = 3\n", "limit")
    assert not looks_defined("x = run_query(q)\n", "run_query")
    assert not looks_defined("return helpers.run_query(q)\n", "run_query")
    assert not looks_defined("print(run_query)\n", "run_query")
    assert not looks_defined("undefined run_query\n", "run_query")  # `def` inside a word is no keyword
    assert not looks_defined("def run_query_all(q):\n", "run_query")

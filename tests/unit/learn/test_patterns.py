"""Which repeated decisions become a proposed rule, and which do not."""

from __future__ import annotations

from reviewbot.learn.patterns import from_dismissals, from_rates, from_reactions
from reviewbot.outcomes.rates import rates
from reviewbot.outcomes.records import FindingRecord
from reviewbot.review.findings.dismissals import Learning


def dismissed(by: str, path: str = "src/legacy/a.py", rule: str = "magic number in loop", *, pr: int = 1,
              category: str = "maintainability", repository: bool = True, cwe: str = "") -> Learning:
    return Learning(rule=rule, code_key=f"{by}{path}{pr}{rule}", path=path, by=by, title=rule.capitalize(),
                    category=category, cwe=cwe, pr=pr, repository=repository, at=1_790_000_000.0 + pr)


def test_the_same_rule_dismissed_three_times_in_a_folder_by_two_people_is_a_pattern() -> None:
    found = from_dismissals([dismissed("alice", pr=1), dismissed("bob", "src/legacy/b.py", pr=2),
                             dismissed("alice", "src/legacy/c.py", pr=3)])
    assert [(p.kind, p.folder, p.rule, p.count, p.people) for p in found] == [
        ("dismissed_rule", "src/legacy", "magic number in loop", 3, ("alice", "bob"))]
    assert [e.pr for e in found[0].evidence] == [1, 2, 3]


def test_one_person_three_folders_or_a_pull_request_only_dismissal_is_not_enough() -> None:
    assert from_dismissals([dismissed("alice", pr=n) for n in range(5)]) == []  # one person
    assert from_dismissals([dismissed("alice"), dismissed("bob", "src/a.py"), dismissed("carol", "lib/b.py")]) == []
    assert from_dismissals([dismissed("alice"), dismissed("bob", pr=2),
                            dismissed("carol", pr=3, repository=False)]) == []  # the author's, for their PR only


def test_different_rules_of_one_category_make_a_category_pattern_and_security_never_does() -> None:
    mixed = [dismissed("alice", rule="long function"), dismissed("bob", rule="deep nesting", pr=2),
             dismissed("carol", rule="unused variable", pr=3)]
    assert [(p.kind, p.category, p.count) for p in from_dismissals(mixed)] == [
        ("dismissed_category", "maintainability", 3)]
    security = [dismissed(who, category="security", pr=n) for n, who in enumerate(["alice", "bob", "carol"])]
    assert from_dismissals(security) == []


def record(n: int, category: str, outcome: str, *, down: int = 0, up: int = 0, path: str = "app/x.py",
           by: tuple[str, ...] = ("mo", "kim")) -> FindingRecord:
    return FindingRecord(installation=1, repo="acme/app", pr=n, fingerprint=f"f{n}", category=category,
                         severity="minor", path=path, line=1, posted_at=1_790_000_000.0 + n, outcome=outcome,
                         thumbs_down=down, thumbs_up=up, disliked_by=by if down else ())


def test_a_category_fixed_in_under_a_fifth_of_thirty_decided_findings_is_a_pattern() -> None:
    style = [record(n, "style", "fixed" if n < 5 else "open_at_merge") for n in range(30)]
    bugs = [record(100 + n, "bug", "fixed" if n < 10 else "dismissed") for n in range(30)]
    pending = [record(200 + n, "performance", "") for n in range(40)]  # no outcome yet: not counted
    records = style + bugs + pending
    found = from_rates(rates(records, "category"), records)
    assert [(p.kind, p.category, p.count, p.fixed) for p in found] == [("low_resolution", "style", 30, 5)]
    assert from_rates(rates(style[:29], "category"), style[:29]) == []  # 29 decided: too few to say


def test_three_disliked_comments_of_one_category_are_a_pattern_in_the_folder_they_share() -> None:
    records = [record(n, "style", "open_at_merge", down=2, path=f"web/ui/f{n}.ts") for n in range(3)]
    records += [record(9, "style", "fixed", down=1, up=3, path="web/ui/g.ts"),  # liked more than disliked
                record(10, "bug", "fixed", down=5, path="web/ui/h.ts")]
    found = from_reactions(records)
    assert [(p.kind, p.category, p.folder, p.count) for p in found] == [("thumbs_down", "style", "web/ui", 3)]
    assert found[0].hash == from_reactions(records + records[:1])[0].hash  # more evidence, the same pattern


def test_thumbs_down_from_people_without_write_access_or_from_one_person_propose_nothing() -> None:
    drive_by = [record(n, "style", "open_at_merge", down=4, path=f"web/ui/f{n}.ts", by=()) for n in range(5)]
    assert from_reactions(drive_by) == []  # counted in the stats, never acted on
    one_writer = [record(n, "style", "open_at_merge", down=2, path=f"web/ui/f{n}.ts", by=("mo",)) for n in range(5)]
    assert from_reactions(one_writer) == []

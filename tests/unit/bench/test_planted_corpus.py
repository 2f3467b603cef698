"""The planted corpus: real releases, far-apart flows, patches that apply together, lines where the corpus says."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.planted.apply import ReleaseMissing, copy_release, default_cache, find_sdist, materialise, misplaced
from bench.planted.cases import Case, by_release, load_corpus
from bench.planted.ideal import judge

CASES = load_corpus()
RELEASES = by_release(CASES)
# Words that would tell a reader (or a model) where the flaw is.
GIVEAWAYS = ("vuln", "unsafe", "insecure", "exploit", "inject", "planted", "taint", "cwe", "attack", "xss", "sqli")


def added_lines(case: Case) -> list[str]:
    return [line[1:] for line in case.patch_text().splitlines() if line.startswith("+") and not line.startswith("+++")]


def test_the_corpus_is_mostly_django_and_every_case_has_a_cwe_and_a_flow() -> None:
    django = [case for case in CASES if case.package == "django"]
    assert len(django) >= 8 and all(case.version == "5.2.2" and case.audited == "django" for case in django)
    assert all(case.cwe.startswith("CWE-") and case.flow and case.title for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_source_and_sink_are_far_apart_and_inside_the_audited_directory(case: Case) -> None:
    assert case.far_apart()
    for _, where in case.pieces:
        assert case.audited == "." or where.path.startswith(f"{case.audited}/"), where.path


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_no_added_line_names_the_flaw(case: Case) -> None:
    flagged = [line for line in added_lines(case) if any(word in line.lower() for word in GIVEAWAYS)]
    assert flagged == []


@pytest.mark.parametrize("release", sorted(RELEASES), ids=lambda release: "-".join(release))
def test_the_cases_of_one_release_patch_disjoint_files(release: tuple[str, str]) -> None:
    """So each case's lines are the same whether it is applied alone or with all the others."""
    files = [path for case in RELEASES[release] for path in case.patched_files()]
    assert files and len(files) == len(set(files))


@pytest.fixture(scope="module", params=sorted(RELEASES), ids=lambda release: "-".join(release))
def patched(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Case], Path]:
    """One release from the benchmark cache with all its cases applied, or a skip saying how to get it."""
    cache = default_cache()
    package, version = request.param
    if not (cache / package / ".git").exists() and find_sdist(package, version, cache) is None:
        pytest.skip(f"{package} {version} is not in {cache}: `python -m bench.planted.apply --download` fetches it")
    tree = tmp_path_factory.mktemp(f"{package}-{version}")
    origin, problems = materialise(RELEASES[request.param], tree, cache)
    assert problems == [], origin
    return RELEASES[request.param], tree


def test_every_patch_applies_to_the_cached_release_and_each_line_is_where_stated(
        patched: tuple[list[Case], Path]) -> None:
    cases, tree = patched
    assert all(misplaced(tree, case) == [] for case in cases)


def test_no_case_is_visible_in_one_file_alone_but_each_is_with_the_files_of_its_flow(
        patched: tuple[list[Case], Path]) -> None:
    """The ideal stand-in on the real patched trees: one request per file finds nothing; one per flow finds all."""
    cases, tree = patched
    files = sorted({where.path for case in cases for _, where in case.pieces})
    alone = [(tree / path).read_text(encoding="utf-8") for path in files]
    assert [v.case_id for v in judge(alone, cases) if v.found] == []
    flows = ["\n".join((tree / path).read_text(encoding="utf-8") for path in dict.fromkeys(
        where.path for _, where in case.pieces)) for case in cases]
    verdicts = judge(flows, cases)
    assert [v.requests for v in verdicts] == [(index,) for index in range(len(cases))]


def test_a_release_missing_from_the_cache_says_how_to_get_it(tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(ReleaseMissing, match="--download"):
        copy_release("django", "5.2.2", tmp_path_factory.mktemp("tree"), tmp_path_factory.mktemp("empty-cache"))

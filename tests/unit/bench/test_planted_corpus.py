"""The planted corpus: real releases, far-apart flows, patches that apply together, lines where the corpus says."""

from __future__ import annotations

import pytest

from bench.planted.apply import ReleaseMissing, copy_release, default_cache, find_sdist, materialise
from bench.planted.cases import Case, by_release, load_corpus

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


@pytest.mark.parametrize("release", sorted(RELEASES), ids=lambda release: "-".join(release))
def test_every_patch_applies_to_the_cached_release_and_each_line_is_where_stated(
        release: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = default_cache()
    package, version = release
    if not (cache / package / ".git").exists() and find_sdist(package, version, cache) is None:
        pytest.skip(f"{package} {version} is not in {cache}: `python -m bench.planted.apply --download` fetches it")
    tree = tmp_path_factory.mktemp(f"{package}-{version}")
    origin, problems = materialise(RELEASES[release], tree, cache)
    assert problems == [], origin


def test_a_release_missing_from_the_cache_says_how_to_get_it(tmp_path_factory: pytest.TempPathFactory) -> None:
    with pytest.raises(ReleaseMissing, match="--download"):
        copy_release("django", "5.2.2", tmp_path_factory.mktemp("tree"), tmp_path_factory.mktemp("empty-cache"))

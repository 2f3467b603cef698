"""The held-out planted corpus: other releases than corpus.yaml's, several languages, the same checks on every case."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.planted.apply import default_cache, find_sdist, materialise, misplaced
from bench.planted.cases import HELDOUT, Case, by_release, load_corpus
from bench.planted.ideal import judge
from tests.unit.bench.test_planted_corpus import GIVEAWAYS, added_lines

CASES = load_corpus(HELDOUT)
RELEASES = by_release(CASES)


def test_the_held_out_corpus_patches_other_packages_than_the_tuned_one_in_several_languages() -> None:
    tuned = {case.package for case in load_corpus()}
    assert len(CASES) >= 10 and not tuned & {case.package for case in CASES}
    assert {"python", "c", "javascript"} <= {case.language for case in CASES}
    assert all(case.cwe.startswith("CWE-") and case.flow and case.title and case.via for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_source_and_sink_are_far_apart_and_inside_the_audited_directory(case: Case) -> None:
    assert case.far_apart()
    for _, where in case.pieces:
        assert case.audited == "." or where.path.startswith(f"{case.audited}/"), where.path


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_no_added_line_names_the_flaw(case: Case) -> None:
    assert [line for line in added_lines(case) if any(word in line.lower() for word in GIVEAWAYS)] == []


@pytest.fixture(scope="module", params=sorted(RELEASES), ids=lambda release: "-".join(release))
def patched(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Case], Path]:
    """One release from the benchmark cache with its cases applied, or a skip saying how to get it."""
    cache = default_cache()
    package, version = request.param
    if find_sdist(package, version, cache) is None:
        pytest.skip(f"{package} {version} is not in {cache}: "
                    "`python -m bench.planted.apply --corpus bench/planted/heldout.yaml --download` fetches it")
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
    cases, tree = patched
    files = sorted({where.path for case in cases for _, where in case.pieces})
    alone = [(tree / path).read_text(encoding="utf-8") for path in files]
    assert [v.case_id for v in judge(alone, cases) if v.found] == []
    flows = ["\n".join((tree / path).read_text(encoding="utf-8") for path in dict.fromkeys(
        where.path for _, where in case.pieces)) for case in cases]
    assert [v.requests for v in judge(flows, cases)] == [(index,) for index in range(len(cases))]

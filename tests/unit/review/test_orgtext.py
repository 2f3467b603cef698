"""The organisation's free text: which keys it is, who may open it to public repositories."""

from __future__ import annotations

from reviewbot.review.config import parse_config, raw_mapping
from reviewbot.review.orgtext import without_org_text

DEFAULTS = raw_mapping("instructions: Org words.\npath_instructions: {'app/**': Path words.}\nmax_comments: 3\n"
                       "ignore: ['vendor/**']\nlearnings: [{rule: divides by the item count}]\n")


def test_only_the_free_text_is_left_out_the_settings_stay() -> None:
    kept = parse_config("severity_threshold: major\n", defaults=without_org_text(DEFAULTS)).config
    assert (kept.instructions, kept.path_instructions, kept.learnings) == ("", {}, [])
    assert (kept.max_comments, kept.ignore, kept.severity_threshold) == (3, ["vendor/**"], "major")


def test_the_opt_in_is_the_organisations_alone() -> None:
    opt_in = "public_repos:\n  use_org_text: true\n"
    loaded = parse_config(opt_in)
    assert not loaded.config.public_repos.use_org_text
    assert loaded.errors == [".github/reviewbot.yml: `public_repos` is read only from the organisation's `.github` "
                             "repository (its default branch); ignored"]
    org = parse_config(opt_in, org_file=True)
    assert org.config.public_repos.use_org_text and org.errors == []
    assert parse_config("", defaults=raw_mapping(opt_in)).config.public_repos.use_org_text


def test_the_opt_in_is_off_unless_set_and_checked_like_every_key() -> None:
    assert not parse_config("", defaults=raw_mapping("instructions: Org words.")).config.public_repos.use_org_text
    assert parse_config("public_repos: {use_org_txt: true}", org_file=True).errors  # a misspelling is an error

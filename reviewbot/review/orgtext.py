"""The organisation defaults' free text on public pull requests: used only where everyone could read its source."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# The defaults' keys whose words reach what the model reads (instructions, each path instruction) or what is posted
# (learnings: the held-back list quotes each rule and reason). Every other key is a setting (a switch, a threshold,
# a glob) whose effect, not its wording, shows: those apply to every repository, public or not.
ORG_TEXT_KEYS = ("instructions", "path_instructions", "learnings")
# Only the organisation's defaults may set it: a repository's own file must not open the organisation's text.
PUBLIC_REPOS_KEY = "public_repos"
# One line, never quoting what was left out.
ORG_TEXT_DROPPED = ("the organisation's instructions, path instructions and learnings (`.github/reviewbot.yml` of "
                    "its `.github` repository) were not used: that repository is not public and this one is, and "
                    "the organisation has not set `public_repos.use_org_text`")


class PublicReposConfig(BaseModel):
    """`public_repos` in the organisation's defaults; see docs/configuration.md for the rule."""

    model_config = ConfigDict(extra="forbid")  # a misspelled key is an error, never silently ignored

    use_org_text: bool = Field(
        default=False, description="Use the organisation's instructions, path instructions and learnings in "
        "reviews of public repositories too, although its `.github` repository is private or internal (anyone "
        "reading a public pull request may then see them echoed). Only read from the organisation's `.github` "
        "repository.")


def without_org_text(defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The defaults with their settings and without their free text."""
    return {key: value for key, value in defaults.items() if key not in ORG_TEXT_KEYS}

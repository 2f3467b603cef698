"""The HTML of the /setup pages: the dashboard's chrome, every value escaped, no script, no secret."""

from __future__ import annotations

from pathlib import Path

from reviewbot.app.app_api import CreatedApp
from reviewbot.observe.theme import page_templates

# The setup templates extend the dashboard's base.html; message.html is the dashboard's too.
_TEMPLATES = page_templates("reviewbot.app.setup")


def message(text: str, title: str = "reviewbot setup") -> str:
    return _TEMPLATES.get_template("message.html").render(title=title, message=text)


def form(*, key: str, org: str, name: str, action: str, manifest: str, hook: str, public_url_set: bool) -> str:
    return _TEMPLATES.get_template("setup_form.html").render(
        key=key, org=org, name=name, action=action, manifest=manifest, hook=hook, public_url_set=public_url_set)


def created(app: CreatedApp, env_path: Path, *, done_before: bool) -> str:
    # Escaping keeps a link's quotes closed but not its scheme: anything but http(s) becomes a dead link.
    install = app.install_url if app.install_url.startswith(("https://", "http://")) else "#"
    return _TEMPLATES.get_template("setup_done.html").render(
        name=app.name, env_path=str(env_path), install_url=install, done_before=done_before)

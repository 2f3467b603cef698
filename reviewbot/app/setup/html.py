"""The HTML of the /setup pages: plain markup, every value escaped, no script, no secret."""

from __future__ import annotations

from html import escape
from pathlib import Path

from reviewbot.app.app_api import CreatedApp


def _page(title: str, body: str) -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n'
            f"<body><main><h1>{escape(title)}</h1>\n{body}\n</main></body></html>\n")


def message(text: str) -> str:
    return _page("reviewbot setup", f"<p>{escape(text)}</p>")


def form(*, key: str, org: str, name: str, action: str, manifest: str, hook: str, public_url_set: bool) -> str:
    warning = "" if public_url_set else (
        "<p><strong>REVIEWBOT_PUBLIC_URL is not set.</strong> GitHub will send webhooks to "
        f"<code>{escape(hook)}</code>, which it cannot reach from the internet. Start a tunnel (see the README), "
        "set REVIEWBOT_PUBLIC_URL to its address, restart reviewbot and open its setup link again.</p>")
    owner = f"the organisation {escape(org)}" if org else "your personal account"
    return _page("Set up reviewbot", f"""<p>reviewbot creates its GitHub App from its manifest (<code>app.yml</code>).
GitHub shows you what the App may do, you confirm, and GitHub sends you back here.</p>
{warning}
<form method="get" action="/setup">
<input type="hidden" name="key" value="{escape(key)}">
<p><label>Organisation (empty: your personal account)<br><input name="org" value="{escape(org)}"></label></p>
<p><label>App name (unique on GitHub)<br><input name="name" value="{escape(name)}" maxlength="34"></label></p>
<p><button type="submit">Change</button></p>
</form>
<form method="post" action="{escape(action)}">
<input type="hidden" name="manifest" value="{escape(manifest)}">
<p>Webhooks will go to <code>{escape(hook)}</code>.</p>
<p><button type="submit">Create the GitHub App for {owner}</button></p>
</form>""")


def created(app: CreatedApp, env_path: Path, *, done_before: bool) -> str:
    lead = ("The GitHub App was already created from this page." if done_before else
            f"The GitHub App <strong>{escape(app.name)}</strong> exists. Its id, client id and webhook secret "
            f"are in <code>{escape(str(env_path))}</code>, its private key in a file only you can read.")
    install = app.install_url if app.install_url.startswith(("https://", "http://")) else "#"
    return _page("reviewbot is set up", f"""<p>{lead}</p>
<ol>
<li><a href="{escape(install)}">Install the App on your repositories</a>.</li>
<li>Restart reviewbot (stop it, then <code>./dev run</code>) so it loads the new settings.</li>
<li>Run <code>reviewbot doctor</code> to check everything works.</li>
</ol>""")

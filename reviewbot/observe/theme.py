"""The chrome every HTML page shares (dashboard, sign-in, /setup): base.html, its stylesheet and its route."""

from __future__ import annotations

from importlib.resources import files

from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reviewbot.observe.access import secured

STYLESHEET = "/dashboard/static/dashboard.css"


def page_templates(*packages: str) -> Environment:
    """Templates of `packages` first, then the dashboard's, so any page can extend base.html or use message.html.
    Autoescaping is on for every .html template."""
    loaders = [PackageLoader(package, "templates") for package in (*packages, "reviewbot.observe")]
    env = Environment(loader=ChoiceLoader(loaders), autoescape=select_autoescape(["html"]))
    env.globals["stylesheet"] = STYLESHEET
    return env


def stylesheet_route() -> Route:
    """Served without the dashboard token: it holds no data, and the pages seen before signing in (sign-in,
    /setup, the standalone `reviewbot setup` server) need it too."""
    css = (files("reviewbot.observe") / "static" / "dashboard.css").read_bytes()

    async def stylesheet(request: Request) -> Response:
        return secured(Response(css, media_type="text/css"))

    return Route(STYLESHEET, stylesheet)

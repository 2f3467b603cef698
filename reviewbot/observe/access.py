"""Who may see the dashboard and metrics (a token, or a login cookie derived from it), and every page's headers."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "reviewbot_dashboard"


def security_headers(*form_targets: str) -> dict[str, str]:
    """No script, framing or referrer anywhere; forms post to this server and to `form_targets` only (the setup
    page posts its manifest to GitHub)."""
    forms = " ".join(("'self'", *form_targets))
    return {
        "Content-Security-Policy": f"default-src 'self'; base-uri 'none'; form-action {forms}; frame-ancestors 'none'",
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach; 0.0.0.0, :: and other names are exposed."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def session_value(token: str) -> str:
    """The cookie holds a MAC of the token, not the token: a leaked cookie does not reveal it, and changing
    the token signs everyone out."""
    return hmac.new(token.encode(), b"reviewbot dashboard session v1", hashlib.sha256).hexdigest()


def authorized(request: Request, token: str | None) -> bool:
    """No token configured means open (the caller decides whether that is allowed at all)."""
    if token is None:
        return True
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode()):
        return True
    cookie = request.cookies.get(COOKIE, "")
    return hmac.compare_digest(cookie.encode(), session_value(token).encode())


def token_matches(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode(), token.encode())


def sign_in(response: Response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE, session_value(token), max_age=30 * 86_400, path="/dashboard", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")


def secured(response: Response, *form_targets: str) -> Response:
    response.headers.update(security_headers(*form_targets))
    return response

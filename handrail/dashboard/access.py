"""Who the dashboard answers, decided before anything is read.

The page is read-only, but what it shows (commands, paths, an agent's messages) is
nobody else's business, and a page on loopback is reachable from every other page the
browser has open. So, in this order:

1. **Host.** A request whose `Host` header is not one of the names the server was
   started for is refused: that is what a DNS-rebinding page sends (its own name,
   resolved to 127.0.0.1).
2. **Method.** GET and HEAD only; no endpoint changes state (decisions stay the
   human-only CLI verbs).
3. **Token.** Every request carries the random token the command printed, as
   `?token=` or, after the first load, as the cookie set then (HttpOnly,
   SameSite=Strict, so another site's page never sends it).
4. **Path.** Only the names in `server.STATIC` and `server.API` exist; nothing is
   looked up on disk by a name a request gives, so `/../` and `%2e%2e` reach nothing.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie
from typing import NamedTuple

READ_METHODS = ("GET", "HEAD")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class Refusal(NamedTuple):
    status: int
    message: str  # one line, for the person who typed the address


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """A host as it is written in a URL and a Host header: IPv6 in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers a browser sends for this server: the loopback names, and the
    name it was told to listen on."""
    names: Iterable[str] = (*LOOPBACK_NAMES, url_host(host))
    return frozenset(f"{name}:{port}".lower() for name in names)


def cookie_name(port: int) -> str:
    """One cookie per port: browsers share cookies across ports of one host, and two
    dashboards (two projects) must not log each other out."""
    return f"handrail_dashboard_{port}"


def token_given(query: dict[str, list[str]], cookie_header: str | None, name: str) -> tuple[str | None, str | None]:
    """(the token in the query, the token in the cookie), either None when absent."""
    in_query = query["token"][-1] if query.get("token") else None
    in_cookie = None
    if cookie_header:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie_header)
        except CookieError:
            pass  # an unreadable cookie header carries no token
        if name in jar:
            in_cookie = jar[name].value
    return in_query, in_cookie


def matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def refusal(*, method: str, host_header: str | None, hosts: frozenset[str], query_token: str | None,
            cookie_token: str | None, token: str) -> Refusal | None:
    """Why this request gets no answer, or None; the order of the module's docstring."""
    if (host_header or "").lower() not in hosts:
        return Refusal(403, f"refused: Host {host_header or '(none)'} is not this dashboard's address")
    if method not in READ_METHODS:
        return Refusal(405, f"refused: {method}: the dashboard only reads (GET, HEAD); decisions are CLI verbs")
    if not (matches(query_token, token) or matches(cookie_token, token)):
        return Refusal(401, "refused: no valid token; open the address `handrail dashboard` printed")
    return None

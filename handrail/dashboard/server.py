"""The dashboard's HTTP server: the standard library's threaded server, one small
handler, a fixed table of what exists.

Every answer, a refusal included, carries the same headers: a Content-Security-Policy
that allows nothing but this origin's own files (no inline script or style, so an
agent's message shown on the page can never run), no caching, no referrer (the first
address carries the token), no framing.
"""

from __future__ import annotations

import json
import secrets
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from handrail.dashboard import access, data
from handrail.errors import describe

# Path -> (file in static/, content type). Nothing outside this table is served.
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}
API_PREFIX = "/api/"
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class Site(NamedTuple):
    project: str
    token: str
    hosts: frozenset[str]
    cookie: str


class Server(ThreadingHTTPServer):
    daemon_threads = True  # a browser's open connection never keeps Ctrl-C waiting
    site: Site


class Server6(Server):
    address_family = socket.AF_INET6


def make(project: str, host: str, port: int, token: str | None = None) -> Server:
    """A server listening on host:port (0: a free port), not yet serving. OSError when
    the address cannot be had."""
    cls = Server6 if ":" in host else Server
    server = cls((host.strip("[]"), port), Handler)
    bound = server.server_address[1]
    server.site = Site(project, token or secrets.token_urlsafe(24), access.allowed_hosts(host, bound),
                       access.cookie_name(bound))
    return server


def url(server: Server, host: str) -> str:
    return f"http://{access.url_host(host)}:{server.server_address[1]}/?token={server.site.token}"


def static_file(name: str) -> bytes:
    return (resources.files("handrail.dashboard") / "static" / name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    server: Server
    server_version = "handrail-dashboard"
    sys_version = ""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    # Every other method that names itself is refused the same way (a name the standard
    # handler does not know gets its 501): nothing here changes state.
    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = do_GET  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal shows the address; a line per poll would bury it

    def _answer(self, *, body: bool) -> None:
        site = self.server.site
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        in_query, in_cookie = access.token_given(query, self.headers.get("Cookie"), site.cookie)
        refused = access.refusal(method=self.command, host_header=self.headers.get("Host"), hosts=site.hosts,
                                 query_token=in_query, cookie_token=in_cookie, token=site.token)
        if refused is not None:
            extra = {"Allow": ", ".join(access.READ_METHODS)} if refused.status == 405 else {}
            self._send(refused.status, refused.message.encode() + b"\n", "text/plain; charset=utf-8", body, extra)
            return
        if parts.path == "/" and access.matches(in_query, site.token):
            # The first load: the token moves into a cookie, and out of the address bar.
            cookie = f"{site.cookie}={site.token}; Path=/; HttpOnly; SameSite=Strict"
            self._send(303, b"", "text/plain; charset=utf-8", body, {"Location": "/", "Set-Cookie": cookie})
            return
        if parts.path in STATIC:
            name, kind = STATIC[parts.path]
            self._send(200, static_file(name), kind, body)
            return
        reader = data.API.get(parts.path[len(API_PREFIX):]) if parts.path.startswith(API_PREFIX) else None
        if reader is None:
            self._send(404, b"not found\n", "text/plain; charset=utf-8", body)
            return
        try:
            answer, status = reader(site.project, query), 200
        except data.BadQuery as e:
            answer, status = {"error": str(e)}, 400
        except Exception as e:  # noqa: BLE001 - one broken answer is a line on the page, not a dead server
            reason, line = describe(e)
            answer, status = {"error": line, "reason": reason}, 500
        self._send(status, json.dumps(answer, ensure_ascii=False).encode(), "application/json", body)

    def _send(self, status: int, payload: bytes, kind: str, body: bool, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in {**HEADERS, "Content-Type": kind, "Content-Length": str(len(payload)),
                           **(extra or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        if body:
            self.wfile.write(payload)

"""Raw HTTP to a dashboard on loopback: the test says exactly which path, Host and
method go out, as a hostile page or a script would send them."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any, NamedTuple


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Site(NamedTuple):
    port: int
    token: str
    project: Path

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def request(self, path: str, *, method: str = "GET", host: str | None = "", token: bool = True,
                headers: dict[str, str] | None = None, body: bytes | None = None) -> Answer:
        """`path` as sent (nothing is normalised); the token appended unless `token` is
        False; `host` the Host header ('' this site's own, None none at all)."""
        if token:
            path += ("&" if "?" in path else "?") + f"token={self.token}"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            if host is not None:
                conn.putheader("Host", host or self.host)
            for key, value in (headers or {}).items():
                conn.putheader(key, value)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body)
            r = conn.getresponse()
            return Answer(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        finally:
            conn.close()

    def api(self, name: str, query: str = "") -> Any:
        answer = self.request(f"/api/{name}" + (f"?{query}" if query else ""))
        assert answer.status == 200, answer.body
        return answer.json()

"""The dashboard answers only its own page, only to reads, only with the token, only
under its own name: each refusal as a browser or a script meets it."""

from __future__ import annotations

import re

import pytest
from dashkit import Site

from handrail.records import events

CSP = "default-src 'self'"


def _count(site: Site) -> int:
    return len(events.query(str(site.project)))


def test_no_token_is_refused_and_shows_nothing(site: Site) -> None:
    for path in ("/", "/api/events", "/app.js"):
        r = site.request(path, token=False)
        assert r.status == 401
        assert b"no valid token" in r.body and b"task_phase_changed" not in r.body


def test_a_wrong_token_is_refused(site: Site) -> None:
    r = site.request("/api/events?token=guess", token=False)
    assert r.status == 401
    r = site.request("/api/events", token=False, headers={"Cookie": f"handrail_dashboard_{site.port}=guess"})
    assert r.status == 401


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost.evil:{port}",
                                  None])
def test_another_host_name_is_refused_even_with_the_token(site: Site, host: str | None) -> None:
    # What a DNS-rebinding page sends: its own name, resolved to 127.0.0.1.
    r = site.request("/api/events", host=None if host is None else host.format(port=site.port))
    assert r.status == 403
    assert b"Host" in r.body and b"task_phase_changed" not in r.body


def test_every_loopback_name_is_answered(site: Site) -> None:
    for name in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]"):
        assert site.request("/api/events", host=f"{name}:{site.port}").status == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_no_method_but_reading_is_answered(site: Site, method: str) -> None:
    before = _count(site)
    for path in ("/api/events", "/api/gates", "/"):
        r = site.request(path, method=method, body=b'{"decision": "approved"}')
        assert r.status == 405
        assert r.headers["allow"] == "GET, HEAD"
    assert _count(site) == before
    assert not (site.project / ".handrail" / "tasks" / "t1" / "gates").exists()


@pytest.mark.parametrize("path", [
    "/../pyproject.toml", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
    "/app.js/../../../etc/passwd", "/static/../index.html", "/..%2fapp.js", "/.%2e/.%2e/etc/passwd",
    "/api/../../etc/passwd", "/api/%2e%2e/events", "/app.py", "/server.py", "/__init__.py", "//etc/passwd",
])
def test_nothing_outside_the_page_is_served(site: Site, path: str) -> None:
    r = site.request(path)
    assert r.status == 404
    assert b"root:" not in r.body and b"import" not in r.body


def test_the_first_load_moves_the_token_into_a_cookie(site: Site) -> None:
    r = site.request("/")
    assert r.status == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"handrail_dashboard_{site.port}={site.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    jar = {"Cookie": cookie.split(";", 1)[0]}
    page = site.request("/", token=False, headers=jar)
    assert page.status == 200 and b'<script src="/app.js"' in page.body
    assert site.request("/api/events", token=False, headers=jar).status == 200


def test_every_answer_carries_the_policy_and_no_inline_code(site: Site) -> None:
    for path, token in (("/api/events", True), ("/api/events", False), ("/nope", True), ("/app.css", True)):
        r = site.request(path, token=token)
        assert r.headers["content-security-policy"].startswith(CSP)
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    page = site.request("/", token=False, headers={"Cookie": f"handrail_dashboard_{site.port}={site.token}"}).body
    assert b"<script>" not in page and b"<style" not in page and b" style=" not in page
    assert not re.search(rb"\son[a-z]+=", page), "an inline event handler"


def test_head_answers_without_a_body(site: Site) -> None:
    r = site.request("/api/events", method="HEAD")
    assert r.status == 200 and r.body == b""
    assert int(r.headers["content-length"]) > 0

"""The page in a real browser: Playwright driving Debian's chromium-headless-shell
(`.ci/run` installs it with apt; Playwright's own browser download is never used).

A notice recorded by `handrail notify` appears without a reload, the filters narrow the
timeline, and any script error or Content-Security-Policy violation fails the test. A
screenshot of the page is saved in the test's tmp folder, and its path printed, so a
failure can be looked at.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import run_handrail
from test_answers import SESSION
from test_command import start, stop

# Where Debian's package puts the browser; HANDRAIL_CHROMIUM names another.
CANDIDATES = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium-headless-shell")


def browser_path() -> str | None:
    named = os.environ.get("HANDRAIL_CHROMIUM")
    if named:
        return named
    found = [p for p in CANDIDATES if os.access(p, os.X_OK)] + [shutil.which("chromium-headless-shell") or ""]
    return next((p for p in found if p), None)


sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed (pip install "
                               "'.[test]')")
BROWSER = browser_path()
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no chromium-headless-shell: `apt-get install "
                                "chromium-headless-shell` (.ci/run does), or set HANDRAIL_CHROMIUM")

# Runs before the page's own script, outside its CSP: every violation is kept for the test.
WATCH_CSP = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(`${e.violatedDirective} blocked ${e.blockedURI}`));
"""


def test_a_notice_appears_live_and_the_filters_narrow_the_timeline(project: Path, tmp_path: Path) -> None:
    assert run_handrail("task", "new", "t2", cwd=project).returncode == 0
    assert run_handrail("audit", str(SESSION), cwd=project).returncode == 1  # its findings, for the page
    proc, address = start(project)
    problems: list[str] = []
    dialogs: list[str] = []
    shot = tmp_path / "dashboard.png"
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=BROWSER)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.add_init_script(WATCH_CSP)
            try:
                _drive(page, project, address)
            finally:
                page.screenshot(path=str(shot), full_page=True)
                print(f"dashboard screenshot: {shot}")
                problems += page.evaluate("window.__violations || []")
                browser.close()
    finally:
        code, err = stop(proc)
    assert problems == []
    assert dialogs == [], "text from the log ran as a script"
    assert code == 0, err


def _drive(page: Any, project: Path, address: str) -> None:
    page.goto(address)
    assert page.url.endswith("/") and "token=" not in page.url, "the token stays in the address bar"
    rows = page.locator("#events-body tr")
    rows.filter(has_text="task 't2' created").wait_for()
    page.evaluate("window.__sameLoad = true")

    message = "seen live <img src=x onerror=alert(1)>"
    r = run_handrail("notify", "--level", "warn", "--topic", "dash", "--message", message, "--task", "t1",
                     "--agent", "claude", cwd=project)
    assert r.returncode == 0, r.stderr
    notice = rows.filter(has_text="seen live")
    notice.wait_for()
    assert page.evaluate("window.__sameLoad") is True, "the page reloaded"
    assert notice.locator("td").nth(4).inner_text() == message  # shown as text, never as markup
    assert rows.first.inner_text().startswith(notice.inner_text()[:10]), "newest first"

    page.select_option("#f-task", "t2")
    notice.wait_for(state="detached")
    assert rows.count() == 1 and "t2" in rows.first.inner_text()

    page.select_option("#f-task", "")
    page.locator("#f-agent option[value=claude]").wait_for(state="attached")  # facets refresh on their own
    page.select_option("#f-agent", "claude")
    rows.filter(has_text="task 't1' created").wait_for(state="detached")
    assert rows.count() == 1 and notice.count() == 1

    page.select_option("#f-type", "task_phase_changed")
    page.locator("#events-empty").wait_for(state="visible")
    assert rows.count() == 0

    page.select_option("#f-agent", "")
    page.select_option("#f-type", "")
    notice.wait_for()
    # The last audit's findings, one row each.
    report = json.loads((project / ".handrail" / "runtime" / "audit.json").read_text())
    findings = sum(len(s["findings"]) for s in report["sessions"])
    assert findings and page.locator("#audit-body tr").count() == findings
    assert page.locator("#audit-body", has_text="git push").count() == 1
    assert page.locator("#audit-summary", has_text="run by a human").count() == 1
    # What waits for a human: each task's publish gate with the command that decides it.
    assert page.locator("#gates-body code", has_text="handrail gate approve t1 publish").count() == 1

    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != light, "no dark mode"


# A page any program on the machine can serve (an agent's dev server, say): same site as the
# dashboard (127.0.0.1, another port), so the browser sends the SameSite=Strict cookie with
# its requests. What keeps the data from it is that the dashboard never allows another origin
# to read an answer (no CORS header) and never lets one load an answer as a script or an image
# (Cross-Origin-Resource-Policy, nosniff).
PROBE = """<!doctype html><meta charset=utf-8><title>probe</title><body><script>
const target = new URLSearchParams(location.search).get("target");
const tries = [];
async function attempt(name, run) {
  try { tries.push(name + ": read " + String(await run()).slice(0, 40)); }
  catch (e) { tries.push(name + ": refused"); }
}
(async () => {
  await attempt("fetch", async () => (await fetch(target + "/api/events", {credentials: "include"})).text());
  await attempt("no-cors", async () => {
    const r = await fetch(target + "/api/events", {credentials: "include", mode: "no-cors"});
    if (r.type === "opaque") throw new Error("opaque");
    return r.text();
  });
  await attempt("script", () => new Promise((ok, no) => {
    const s = document.createElement("script");
    s.src = target + "/app.js"; s.onload = () => ok("loaded"); s.onerror = () => no(new Error("x"));
    document.body.append(s);
  }));
  document.title = "done";
  document.body.dataset.tries = JSON.stringify(tries);
})();
</script>"""


def test_another_page_on_this_machine_reads_nothing_of_the_dashboard(project: Path) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Probe(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = PROBE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    probe = ThreadingHTTPServer(("127.0.0.1", 0), Probe)
    thread = threading.Thread(target=probe.serve_forever, daemon=True)
    thread.start()
    proc, address = start(project)
    origin = address.split("/?", 1)[0]
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=BROWSER)
            page = browser.new_page()
            page.goto(address)  # the person opens the dashboard: the cookie is set
            page.locator("#events-body tr").first.wait_for()
            page.goto(f"http://127.0.0.1:{probe.server_address[1]}/?target={origin}")
            page.wait_for_function("document.title === 'done'", timeout=15000)
            tries = json.loads(page.evaluate("document.body.dataset.tries"))
            page.goto(origin + "/")  # and the dashboard itself still reads, with its cookie
            page.locator("#events-body tr").first.wait_for()
            browser.close()
    finally:
        stop(proc)
        probe.shutdown()
        probe.server_close()
    assert tries == ["fetch: refused", "no-cors: refused", "script: refused"]

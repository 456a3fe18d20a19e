"""`handrail dashboard` as a person runs it: the address it prints answers, Ctrl-C ends
it cleanly, anything but loopback is warned about, a taken port is one line."""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from dashkit import Site
from helpers import HANDRAIL


def start(project: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    assert HANDRAIL
    proc = subprocess.Popen([HANDRAIL, "dashboard", "--no-open", *args], cwd=project, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert "http://" in first, first + (proc.stderr.read() if proc.poll() is not None else "")
    return proc, first.split()[-1]


def stop(proc: subprocess.Popen[str]) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    return proc.returncode, err


def site_of(address: str, project: Path) -> Site:
    parts = urlsplit(address)
    assert parts.port is not None
    return Site(port=parts.port, token=parts.query.removeprefix("token="), project=project)


def test_prints_an_address_that_answers_and_stops_on_ctrl_c(project: Path) -> None:
    proc, address = start(project, "--port", "0")
    try:
        assert address.startswith("http://127.0.0.1:") and "/?token=" in address
        site = site_of(address, project)
        assert site.request("/").status == 303
        assert [e["event_type"] for e in site.api("events")["events"]] == ["task_phase_changed"]
        assert site.request("/api/events", token=False).status == 401
    finally:
        code, err = stop(proc)
    assert code == 0 and "Traceback" not in err


def test_another_address_than_loopback_is_warned_about(project: Path) -> None:
    proc, address = start(project, "--port", "0", "--host", "0.0.0.0")
    try:
        site = site_of(address, project)
        # The loopback names still answer; a name the server was not started for does not.
        assert site.request("/api/events").status == 200
        assert site.request("/api/events", host=f"attacker.example:{site.port}").status == 403
    finally:
        code, err = stop(proc)
    assert code == 0
    assert "warning: listening on 0.0.0.0, not loopback" in err


def test_a_taken_port_is_one_line_and_exit_2(project: Path, handrail) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = handrail("dashboard", "--no-open", "--port", str(port), cwd=project)
    assert r.returncode == 2
    assert r.stderr.startswith(f"handrail: error: cannot listen on 127.0.0.1:{port}: ")
    assert len(r.stderr.splitlines()) == 1 and r.stdout == ""

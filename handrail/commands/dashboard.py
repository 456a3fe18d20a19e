"""`handrail dashboard`: serve the read-only page of the project's records until Ctrl-C."""

from __future__ import annotations

from handrail.commands.render import echo
from handrail.errors import EXIT_OK, HandrailError


def dashboard(*, port: int, host: str, no_open: bool, project: str) -> int:
    from handrail.dashboard import access, server

    try:
        site = server.make(project, host, port)
    except OSError as e:
        raise HandrailError(f"cannot listen on {access.url_host(host)}:{port}: {e.strerror or e}",
                            reason="address_unavailable") from None
    address = server.url(site, host)
    if not access.is_loopback(host):
        echo(f"handrail dashboard: warning: listening on {host}, not loopback: anyone who can reach it and has "
             "the address below can read this project's records", err=True)
    echo(f"handrail dashboard for {project}: {address}")
    echo("read-only; Ctrl-C stops it")
    if not no_open:
        import webbrowser

        if not webbrowser.open(address):
            echo("no browser could be opened here: open the address above yourself", err=True)
    try:
        site.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass  # Ctrl-C is how serving ends: not an error
    finally:
        site.server_close()
    return EXIT_OK

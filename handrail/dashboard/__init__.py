"""`handrail dashboard`: a local, read-only page of what the agents did and what waits
for a human.

`access` decides who is answered (Host, token, method, path), `data` reads the
records through the same readers the CLI prints from, `server` ties them to the
standard library's threaded HTTP server, and `static/` is the page itself.
"""

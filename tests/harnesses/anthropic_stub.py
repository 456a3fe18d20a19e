"""A local server that speaks just enough of the Anthropic Messages API to drive the
real Claude Code offline: each request that offers tools gets the next scripted
`tool_use` block (chosen by how many tool results the conversation holds so far),
then a final text answer. Streaming (SSE) and plain JSON answers are both served.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Stub:
    """`with Stub(script) as stub:` serves at `stub.url`; `stub.results` collects the
    tool_result blocks Claude Code sent back, in order."""

    def __init__(self, script: list[dict]) -> None:
        self.script = script
        self.results: list[dict] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def step(self, body: dict) -> dict | None:
        """The scripted tool call for this point of the conversation, or None to finish."""
        done = [c for m in body.get("messages", []) if m.get("role") == "user" and isinstance(m.get("content"), list)
                for c in m["content"] if isinstance(c, dict) and c.get("type") == "tool_result"]
        if len(done) > len(self.results):
            self.results[:] = done
        if not body.get("tools") or len(done) >= len(self.script):
            return None
        return self.script[len(done)]


def _handler(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _json(self, obj: object) -> None:
            data = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            self._json({})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if "count_tokens" in self.path:
                self._json({"input_tokens": 10})
                return
            step = stub.step(body)
            n = len(stub.results)
            if step is not None:
                block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step["name"], "input": step["input"]}
                stop = "tool_use"
            else:
                block = {"type": "text", "text": "done"}
                stop = "end_turn"
            message = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant", "model": body.get("model", "x"),
                       "content": [], "stop_reason": None, "stop_sequence": None,
                       "usage": {"input_tokens": 10, "output_tokens": 1}}
            if not body.get("stream"):
                self._json({**message, "content": [block], "stop_reason": stop})
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self._sse("message_start", {"type": "message_start", "message": message})
            if block["type"] == "tool_use":
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            self._sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start})
            self._sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
            self._sse("content_block_stop", {"type": "content_block_stop", "index": 0})
            self._sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": {"output_tokens": 5}})
            self._sse("message_stop", {"type": "message_stop"})
            self.wfile.flush()
            self.close_connection = True

        def _sse(self, event: str, data: dict) -> None:
            self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())

    return Handler

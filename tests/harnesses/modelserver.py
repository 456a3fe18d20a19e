"""A scripted model server for driving the real agent clients offline.

It speaks what each client needs: the Anthropic Messages API (`/v1/messages`), OpenAI
Chat Completions (`/chat/completions`), OpenAI Responses (`/responses`, with free-form
custom tool calls such as Codex's `apply_patch`) and Gemini (`:generateContent`,
`:streamGenerateContent`), streaming or not. It plays a list of tool calls, one per turn,
and logs every request, so that a test can read exactly what the agent was told.

The n-th call is answered once the conversation holds n tool results; a request that
offers no tools (a title, a summary), or one past the script, gets the plain text
"done". With `text_mode`, for clients that edit through text (aider), the n-th call is
answered once the conversation holds n assistant turns.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

FINAL = "done"


class Call(NamedTuple):
    """One scripted turn: a tool call `name(args)`; with `custom`, a Responses free-form
    tool call whose input is `args["input"]`; with no name, the text `args["text"]`."""

    name: str
    args: dict[str, Any]
    custom: bool = False

    @property
    def text(self) -> str | None:
        return None if self.name else str(self.args.get("text", ""))


class Turn(NamedTuple):
    """What one request gets: a call or a text, with an id unique in the run."""

    call: Call | None
    text: str
    n: int


class ModelServer:
    """`with ModelServer(calls) as srv:` serves at `srv.url`. `srv.requests` logs every
    request ({"path", "body"}); `srv.results` holds the text of each tool result the
    client sent back, in order. `aside(body)` marks requests that are no step of the
    agent's conversation (a commit message, a title): they get "done" and count for
    nothing. `step(body)`, with `text_mode`, says which call a request is at, for a client
    whose requests open with assistant turns of its own (aider's examples and "Ok."s)."""

    def __init__(self, calls: list[Call], *, text_mode: bool = False,
                 aside: Callable[[dict[str, Any]], bool] | None = None,
                 step: Callable[[dict[str, Any]], int] | None = None) -> None:
        self.calls = calls
        self.text_mode = text_mode
        self.aside = aside
        self.step = step
        self.requests: list[dict[str, Any]] = []
        self.results: list[str] = []
        self.lock = threading.Lock()
        self.counter = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> ModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def told(self) -> str:
        """Everything the client sent the model, as one text (to look for a leaked secret)."""
        with self.lock:
            return "\n".join(json.dumps(r["body"]) for r in self.requests)

    def turn(self, path: str, body: dict[str, Any], results: list[str], assistant_turns: int,
             offers_tools: bool) -> Turn:
        """Log the request and choose its answer."""
        with self.lock:
            self.requests.append({"path": path, "body": body})
            self.counter += 1
            n = self.counter
            if self.aside is not None and self.aside(body):
                return Turn(None, FINAL, n)
            if len(results) > len(self.results):
                self.results[:] = results
            if self.text_mode:
                step = self.step(body) if self.step is not None else assistant_turns
            else:
                step = len(results)
                if not offers_tools:
                    return Turn(None, FINAL, n)
            if step >= len(self.calls):
                return Turn(None, FINAL, n)
            call = self.calls[step]
            return Turn(None, call.text or "", n) if call.text is not None else Turn(call, "", n)


# --------------------------------------------------------------------------- dialects
# Each reads (tool results, assistant turns, offers tools) from a request body and
# writes a Turn as a reply, whole or as server-sent events.


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(c.get("text", c.get("content", c.get("output", ""))) if isinstance(c, dict) else c)
                         for c in content)
    if isinstance(content, dict):
        return json.dumps(content)
    return "" if content is None else str(content)


def anthropic_reads(body: dict[str, Any]) -> tuple[list[str], int, bool]:
    messages = body.get("messages") or []
    results = [_text_of(c.get("content")) for m in messages if m.get("role") == "user"
               and isinstance(m.get("content"), list) for c in m["content"]
               if isinstance(c, dict) and c.get("type") == "tool_result"]
    return results, sum(1 for m in messages if m.get("role") == "assistant"), bool(body.get("tools"))


def anthropic_reply(turn: Turn, body: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    if turn.call is not None:
        block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{turn.n:04d}", "name": turn.call.name,
                                 "input": turn.call.args}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": turn.text}
        stop = "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {"id": f"msg_{turn.n:04d}", "type": "message", "role": "assistant", "model": body.get("model", "m"),
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    if block["type"] == "tool_use":
        start = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    events = [
        ("message_start", {"type": "message_start", "message": message}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return {**message, "content": [block], "stop_reason": stop}, events


def chat_reads(body: dict[str, Any]) -> tuple[list[str], int, bool]:
    messages = body.get("messages") or []
    results = [_text_of(m.get("content")) for m in messages if m.get("role") == "tool"]
    return results, sum(1 for m in messages if m.get("role") == "assistant"), bool(body.get("tools"))


def chat_reply(turn: Turn, body: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    model = body.get("model", "m")
    head = {"id": f"chatcmpl-{turn.n}", "created": 0, "model": model}
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if turn.call is not None:
        # A custom call is OpenAI Chat's free-form tool call (Copilot's apply_patch for gpt-5-codex).
        calls = [{"id": f"call_{turn.n:04d}", "type": "custom",
                  "custom": {"name": turn.call.name, "input": str(turn.call.args.get("input", ""))}}
                 if turn.call.custom else
                 {"id": f"call_{turn.n:04d}", "type": "function",
                  "function": {"name": turn.call.name, "arguments": json.dumps(turn.call.args)}}]
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
        finish = "tool_calls"
        delta: dict[str, Any] = {"role": "assistant", "content": None,
                                 "tool_calls": [{"index": 0, **calls[0]}]}
    else:
        message = {"role": "assistant", "content": turn.text}
        finish = "stop"
        delta = {"role": "assistant", "content": turn.text}
    whole = {**head, "object": "chat.completion", "usage": usage,
             "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    chunk = {**head, "object": "chat.completion.chunk"}
    events = [("", {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
              ("", {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
              ("", {**chunk, "choices": [], "usage": usage})]
    return whole, events


def responses_reads(body: dict[str, Any]) -> tuple[list[str], int, bool]:
    items = body.get("input")
    items = items if isinstance(items, list) else []
    results = [_text_of(i.get("output")) for i in items if isinstance(i, dict)
               and i.get("type") in ("function_call_output", "custom_tool_call_output")]
    turns = sum(1 for i in items if isinstance(i, dict) and i.get("role") == "assistant")
    return results, turns, bool(body.get("tools"))


def responses_reply(turn: Turn, body: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    rid = f"resp_{turn.n:04d}"
    if turn.call is not None and turn.call.custom:
        item: dict[str, Any] = {"type": "custom_tool_call", "id": f"ctc_{turn.n:04d}",
                                "call_id": f"call_{turn.n:04d}", "name": turn.call.name,
                                "input": str(turn.call.args.get("input", "")), "status": "completed"}
    elif turn.call is not None:
        item = {"type": "function_call", "id": f"fc_{turn.n:04d}", "call_id": f"call_{turn.n:04d}",
                "name": turn.call.name, "arguments": json.dumps(turn.call.args), "status": "completed"}
    else:
        item = {"type": "message", "id": f"msg_{turn.n:04d}", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    response = {"id": rid, "object": "response", "status": "completed", "model": body.get("model", "m"),
                "output": [item], "usage": usage}
    events = [("response.created", {"type": "response.created", "response": {**response, "status": "in_progress",
                                                                              "output": []}}),
              ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                              "item": item}),
              ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
              ("response.completed", {"type": "response.completed", "response": response})]
    return response, events


def gemini_reads(body: dict[str, Any]) -> tuple[list[str], int, bool]:
    contents = body.get("contents") or []
    parts = [p for c in contents if isinstance(c, dict) for p in (c.get("parts") or []) if isinstance(p, dict)]
    results = [_text_of(p["functionResponse"].get("response")) for p in parts if "functionResponse" in p]
    turns = sum(1 for c in contents if isinstance(c, dict) and c.get("role") == "model")
    return results, turns, bool(body.get("tools"))


def gemini_reply(turn: Turn, body: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    part = ({"functionCall": {"name": turn.call.name, "args": turn.call.args}} if turn.call is not None
            else {"text": turn.text})
    whole = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
             "modelVersion": "m"}
    return whole, [("", whole)]


Reads = Callable[[dict[str, Any]], tuple[list[str], int, bool]]
Reply = Callable[[Turn, dict[str, Any]], tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]]


def dialect(path: str) -> tuple[Reads, Reply] | None:
    """The dialect a POST to `path` speaks, or None."""
    bare = path.split("?", 1)[0]
    if bare.endswith("/messages"):
        return anthropic_reads, anthropic_reply
    if bare.endswith("/chat/completions"):
        return chat_reads, chat_reply
    if bare.endswith("/responses"):
        return responses_reads, responses_reply
    if bare.endswith((":generateContent", ":streamGenerateContent")):
        return gemini_reads, gemini_reply
    return None


def streamed(path: str, body: dict[str, Any]) -> bool:
    return bool(body.get("stream")) or ":streamGenerateContent" in path


# --------------------------------------------------------------------------- HTTP


def _handler(srv: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _json(self, obj: object, status: int = 200) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            if self.path.split("?", 1)[0].endswith("/models"):
                self._json({"object": "list", "data": [{"id": "m", "object": "model", "owned_by": "handrail"}],
                            "models": [{"name": "models/m"}]})
                return
            self._json({})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            path = self.path
            if "count_tokens" in path or ":countTokens" in path:
                self._json({"input_tokens": 10, "totalTokens": 10})
                return
            speaks = dialect(path)
            if speaks is None or not isinstance(body, dict):
                with srv.lock:
                    srv.requests.append({"path": path, "body": body})
                self._json({"error": {"message": f"no such endpoint: {path}"}}, 404)
                return
            reads, reply = speaks
            results, turns, tools = reads(body)
            turn = srv.turn(path, body, results, turns, tools)
            whole, events = reply(turn, body)
            if not streamed(path, body):
                self._json(whole)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for line in _sse(events, chat=path.split("?", 1)[0].endswith("/chat/completions")):
                self.wfile.write(line.encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler


def _sse(events: list[tuple[str, dict[str, Any]]], *, chat: bool) -> Iterator[str]:
    for name, data in events:
        yield (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
    if chat:
        yield "data: [DONE]\n\n"

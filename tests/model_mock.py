"""A loopback mock of the two model APIs the agent CLIs call.

The only stand-in in the end-to-end tests: the real Codex CLI and Claude Code run against it. It
serves
* `POST /v1/responses` (OpenAI Responses API, SSE: `response.created`, `response.output_item.done`,
  `response.completed`) for Codex, and
* `POST /v1/messages` (Anthropic Messages API, SSE: `message_start` ... `message_stop`) for Claude
  Code,
and answers every other request (GETs, token counting, WebSocket upgrades) with a small JSON error.
A request whose body says `"stream": false` gets the whole answer as one JSON object instead.

A `Script` decides each reply from the conversation so far: it looks at which tool results the
request already carries and asks for the next tool call, then ends the turn with a text message. The
mock records every request (path, tool names, tool results) so tests can assert what the agent saw.
A `Hold` step keeps its reply back until the test releases it: the agent's turn stays in flight.

Every request's body is kept as it came (`bodies`: what the CLI sent, whole). For the model proxy's
tests: every request's headers are kept (`heard`); `fail` queues error answers (status, JSON body,
headers) served before anything else; `trickle` sends an SSE answer chunked, its first event at once
and the rest only once the test releases it (`holding` is set in between).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call the model makes: a tool (by its bare name) and its arguments."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Seen:
    """What one request carried."""

    path: str
    tools: tuple[str, ...]
    results: tuple[tuple[str, str], ...]  # (tool name as the CLI named it, result text), in order
    text: str  # every user/system text, for asserting on instructions


@dataclass(frozen=True, slots=True)
class Say:
    """A step that ends the turn with a text message (the CLI then fires its Stop hook)."""

    text: str


@dataclass(frozen=True, slots=True)
class Hold:
    """A step whose reply is held back, the first time it is taken, until the test releases it
    (`ModelMock.release`): the agent's turn runs, waiting on the model, for as long as the test
    needs."""

    step: Call | Say


# A step: the next tool call or a message that ends the turn, or a function of the tool results so
# far.
Step = Call | Say | Hold | Callable[[list[tuple[str, str]]], Call | Say]


@dataclass
class Script:
    """The model's behaviour: step i is taken when the conversation holds i assistant outputs (or,
    `by_results`, i tool results: a resumed CLI may add a message of its own to the conversation,
    e.g. Claude Code's "No response requested."); after the last step every request gets
    `final_text` (a function of the request's text, e.g. for a verdict)."""

    steps: list[Step]
    final_text: Callable[[str], str] = lambda _text: "Done: the dispatch has its result."
    by_results: bool = (
        False  # step i is taken when the conversation holds i tool results (only calls)
    )

    def next(self, outputs: int, results: list[tuple[str, str]], text: str) -> Call | Say | Hold:
        at = len(results) if self.by_results else outputs
        if at < len(self.steps):
            step = self.steps[at]
            return step if isinstance(step, Call | Say | Hold) else step(results)
        return Say(self.final_text(text))


@dataclass
class ModelMock:
    """The server; `start()` binds 127.0.0.1 on a free port."""

    script: Script
    seen: list[Seen] = field(default_factory=list)
    holding: threading.Event = field(
        default_factory=threading.Event
    )  # a `Hold` step's reply is held back
    release: threading.Event = field(default_factory=threading.Event)  # set by the test: send it
    heard: list[tuple[str, dict[str, str]]] = field(
        default_factory=list
    )  # (path, headers lowercased)
    bodies: list[bytes] = field(default_factory=list)  # every request's body, as it came
    hold_s: float = 120.0  # how long a `Hold` step waits for the test at most
    fail: list[tuple[int, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    trickle: bool = False
    arrivals: list[tuple[float, str, int]] = field(
        default_factory=list
    )  # (time.time(), messages, status)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _held: bool = False

    def _decide(self, outputs: int, results: list[tuple[str, str]], text: str) -> Call | Say:
        """The script's step; a `Hold` waits (the first time) until the test releases it."""
        step = self.script.next(outputs, results, text)
        if not isinstance(step, Hold):
            return step
        with self._lock:
            first, self._held = not self._held, True
        if first:
            self.holding.set()
            self.release.wait(self.hold_s)
        return step.step

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ModelMock:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                return

            def do_GET(self) -> None:
                self._json(
                    404, {"error": {"type": "not_found", "message": "mock: no such endpoint"}}
                )

            def do_HEAD(self) -> None:
                self._json(404, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"{}")
                path = self.path.split("?", 1)[0]
                with mock._lock:
                    mock.heard.append((path, {k.lower(): v for k, v in self.headers.items()}))
                    mock.bodies.append(raw)
                    failure = mock.fail.pop(0) if mock.fail else None
                    said = json.dumps(body.get("messages") or body.get("input") or [])[:2000]
                    mock.arrivals.append((time.time(), said, failure[0] if failure else 200))
                if failure is not None:
                    self._json(failure[0], failure[1], failure[2])
                elif path.endswith("/responses"):
                    self._answer(mock.responses(body), body)
                elif path.endswith("/messages/count_tokens"):
                    self._json(200, {"input_tokens": 100})
                elif path.endswith("/messages"):
                    self._answer(mock.messages(body), body)
                else:
                    self._json(
                        404, {"error": {"type": "not_found", "message": "mock: no such endpoint"}}
                    )

            def _json(self, code: int, doc: object, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _answer(
                self, events: list[tuple[str, dict[str, Any]]], body: dict[str, Any]
            ) -> None:
                if body.get("stream") is False:  # the whole answer: the event that carries it
                    last = (
                        events[-1][1]
                        if events[-1][0] == "response.completed"
                        else events[0][1]["message"]
                    )
                    self._json(200, last.get("response", last))
                elif mock.trickle:
                    self._trickle(events)
                else:
                    self._sse(events)

            def _trickle(self, events: list[tuple[str, dict[str, Any]]]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i, (name, doc) in enumerate(events):
                    data = f"event: {name}\ndata: {json.dumps(doc)}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                    if i == 0:
                        mock.holding.set()
                        mock.release.wait(120)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
                data = b"".join(
                    f"event: {name}\ndata: {json.dumps(doc)}\n\n".encode() for name, doc in events
                )
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()  # a held reply goes (into a closed connection, if its agent is gone)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # ------------------------------------------------------------------ OpenAI Responses (Codex)
    def responses(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        items = body.get("input") or []
        results: list[tuple[str, str]] = []
        names: dict[str, str] = {}
        texts: list[str] = [str(body.get("instructions") or "")]
        outputs = 0
        for entry in items:
            kind = entry.get("type")
            if kind == "function_call" or (kind == "message" and entry.get("role") == "assistant"):
                outputs += 1
            if kind == "function_call":
                names[entry.get("call_id", "")] = str(entry.get("name"))
            elif kind == "function_call_output":
                output = entry.get("output")
                text = output if isinstance(output, str) else json.dumps(output)
                results.append((names.get(entry.get("call_id", ""), "?"), text))
            elif kind == "message":
                texts.extend(
                    part["text"]
                    for part in entry.get("content") or []
                    if isinstance(part, dict) and isinstance(part.get("text"), str)
                )
        tools = tuple(_tool_names(body.get("tools") or []))
        with self._lock:
            self.seen.append(Seen("/v1/responses", tools, tuple(results), "\n".join(texts)))
            n = len(self.seen)
        call = self._decide(outputs, results, "\n".join(texts))
        rid = f"resp_{n}"
        if isinstance(call, Say):
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{n}",
                "content": [{"type": "output_text", "text": call.text, "annotations": []}],
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": call.tool,
                "arguments": json.dumps(call.arguments),
            }
            namespace = _codex_namespace(call.tool, body.get("tools") or [])
            if namespace:
                item["namespace"] = namespace
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        return [
            ("response.created", {"type": "response.created", "response": {"id": rid}}),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": rid, "usage": usage}},
            ),
        ]

    # ------------------------------------------------------------- Anthropic Messages (Claude Code)
    def messages(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        results: list[tuple[str, str]] = []
        names: dict[str, str] = {}
        texts: list[str] = []
        system = body.get("system")
        if isinstance(system, str):
            texts.append(system)
        elif isinstance(system, list):
            texts += [str(p.get("text", "")) for p in system if isinstance(p, dict)]
        outputs = 0
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                texts.append(content)
                outputs += message.get("role") == "assistant"
                continue
            if message.get("role") == "assistant":
                outputs += sum(1 for p in content or [] if p.get("type") in ("tool_use", "text"))
            for part in content or []:
                if part.get("type") == "tool_use":
                    names[part.get("id", "")] = str(part.get("name"))
                elif part.get("type") == "tool_result":
                    inner = part.get("content")
                    if isinstance(inner, list):
                        text = "".join(str(p.get("text", "")) for p in inner if isinstance(p, dict))
                    else:
                        text = str(inner)
                    results.append((names.get(part.get("tool_use_id", ""), "?"), text))
                elif part.get("type") == "text":
                    texts.append(str(part.get("text", "")))
        tools = tuple(str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict))
        with self._lock:
            self.seen.append(Seen("/v1/messages", tools, tuple(results), "\n".join(texts)))
            n = len(self.seen)
        model = str(body.get("model") or "claude-test")
        # side requests (titles, summaries) have no tools: they get text
        call = (
            self._decide(outputs, results, "\n".join(texts)) if tools else Say("oms worker session")
        )
        start = {
            "type": "message_start",
            "message": {
                "id": f"msg_{n}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
        if isinstance(call, Say):
            block: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": call.text}
            stop = "end_turn"
        else:
            block = {
                "type": "tool_use",
                "id": f"toolu_{n}",
                "name": _claude_name(call.tool, tools),
                "input": {},
            }
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call.arguments)}
            stop = "tool_use"
        return [
            ("message_start", start),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]


def _tool_names(tools: list[Any]) -> list[str]:
    out: list[str] = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("name"), str):
            out.append(tool["name"])
        out.extend(
            f"{tool.get('name')}/{child['name']}"
            for child in tool.get("tools") or []
            if isinstance(child, dict) and isinstance(child.get("name"), str)
        )
    return out


def _codex_namespace(tool: str, tools: list[Any]) -> str | None:
    for entry in tools:
        if (
            isinstance(entry, dict)
            and entry.get("type") == "namespace"
            and any(isinstance(c, dict) and c.get("name") == tool for c in entry.get("tools") or [])
        ):
            return str(entry.get("name"))
    return None


def _claude_name(tool: str, names: tuple[str, ...]) -> str:
    bridged = f"mcp__oms_worker__{tool}"
    return bridged if bridged in names else tool

"""The MCP stdio protocol of `oms worker bridge`, as a pure message handler (ADR 0011 "MCP bridge").

Rules:
- protocol versions 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25: a requested supported version is
  echoed, anything else is answered with the latest (never an error);
- `server/discover` (the 2026-07-28 probe) is answered at once with -32601, so dual-era clients fall
  back;
- `ping` answers `{}`; notifications are never answered; unknown methods with an id get -32601;
- `tools/*` before `initialize` get -32600; batches only under 2025-03-26;
- an unknown tool is -32602; a tool's own failure is a result with `isError` (the model can retry);
- `title`, `outputSchema` and `structuredContent` are dropped for versions older than 2025-06-18;
- every result's text block is the JSON of its `structuredContent`.
The tool implementations live in `services/doors/bridge.py`; this module never touches a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from oms.canonical.strict_json import loads_message
from oms.errors import CanonicalJsonError
from oms.limits import LIMITS

SUPPORTED = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST = SUPPORTED[0]
STRUCTURED_SINCE = "2025-06-18"
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)

ToolFn = Callable[
    [dict[str, Any]], tuple[dict[str, Any], bool]
]  # arguments -> (structured result, is_error)


class Tool(NamedTuple):
    """One tool the bridge offers."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: dict[str, Any]

    def describe(self, version: str) -> dict[str, Any]:
        """The tools/list entry for `version`."""
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }
        if version >= STRUCTURED_SINCE:
            out["title"] = self.title
            out["outputSchema"] = self.output_schema
        return out


class Session:
    """Protocol state of one client connection."""

    __slots__ = (
        "call",
        "instructions",
        "listed",
        "log",
        "server_name",
        "server_version",
        "tools",
        "version",
    )

    def __init__(
        self,
        server_name: str,
        server_version: str,
        instructions: str,
        tools: dict[str, Tool],
        call: Callable[[str, dict[str, Any]], tuple[dict[str, Any], bool]],
    ) -> None:
        self.server_name = server_name
        self.server_version = server_version
        self.instructions = instructions
        self.tools = tools
        self.call = call
        self.version: str | None = None
        self.listed = False
        # the last `Limits.bridge_log_methods` methods, each cut to 100 characters (bounded: it
        # lives on as long as the connection, in the broker outside the sandbox)
        self.log: list[str] = []


def _error(msg_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": msg_id, "error": err}


def _result(msg_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def encode(message: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    """One line of protocol output (ASCII-escaped: no raw newline or U+2028 can reach the
    client)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"


def decode(line: bytes) -> Any:
    """Parse one line; duplicate keys and NaN/Infinity are refused (`CanonicalJsonError`)."""
    return loads_message(line)


def handle_line(session: Session, line: bytes) -> list[dict[str, Any] | list[dict[str, Any]]]:
    """Everything to send back for one received line, one element per line to write (possibly none);
    a batch is answered with one array (or nothing when it held only notifications)."""
    try:
        message = decode(line)
    except CanonicalJsonError:
        return [_error(None, PARSE_ERROR, "Parse error")]
    if isinstance(message, list):
        if session.version != "2025-03-26" or not message:
            return [
                _error(None, INVALID_REQUEST, "Batches are not supported in this protocol version")
            ]
        out: list[dict[str, Any]] = []
        for item in message:
            out += handle_message(session, item)
        return [out] if out else []
    return list(handle_message(session, message))


def handle_message(session: Session, message: Any) -> list[dict[str, Any]]:
    """Handle one decoded JSON-RPC message."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        msg_id = message.get("id") if isinstance(message, dict) else None
        return [
            _error(
                msg_id if isinstance(msg_id, str | int) else None,
                INVALID_REQUEST,
                "Invalid Request",
            )
        ]
    method = message.get("method")
    has_id = "id" in message
    msg_id = message.get("id")
    if has_id and (msg_id is None or isinstance(msg_id, bool) or not isinstance(msg_id, str | int)):
        return [_error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")]
    if method is None:
        return []  # a response to something we never sent: ignore
    if not isinstance(method, str):
        return (
            [_error(msg_id, INVALID_REQUEST, "Invalid Request: method must be a string")]
            if has_id
            else []
        )
    if not has_id:
        return []  # notifications (initialized, cancelled, progress, ...) are never answered
    params = message.get("params", {})
    if not isinstance(params, dict):
        return [_error(msg_id, INVALID_PARAMS, "params must be an object")]
    session.log.append(method[:100])
    del session.log[: -LIMITS.bridge_log_methods]
    if method == "initialize":
        requested = params.get("protocolVersion")
        session.version = requested if requested in SUPPORTED else LATEST
        return [
            _result(
                msg_id,
                {
                    "protocolVersion": session.version,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": session.server_name, "version": session.server_version},
                    "instructions": session.instructions,
                },
            )
        ]
    if method == "ping":
        return [_result(msg_id, {})]
    if method == "server/discover":
        return [_error(msg_id, METHOD_NOT_FOUND, "Method not found", "server/discover")]
    if method in ("tools/list", "tools/call") and session.version is None:
        return [_error(msg_id, INVALID_REQUEST, "Server not initialized")]
    if method == "tools/list":
        session.listed = True
        return [
            _result(
                msg_id,
                {"tools": [t.describe(str(session.version)) for t in session.tools.values()]},
            )
        ]
    if method == "tools/call":
        return [_call(session, msg_id, params)]
    return [_error(msg_id, METHOD_NOT_FOUND, "Method not found", method[:100])]


def _call(session: Session, msg_id: Any, params: dict[str, Any]) -> dict[str, Any]:
    name = params.get("name")
    if not isinstance(name, str) or name not in session.tools:
        return _error(msg_id, INVALID_PARAMS, f"Unknown tool: {str(name)[:100]}")
    arguments = params.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return _result(
            msg_id, tool_result({"error": "arguments must be an object"}, True, session.version)
        )
    structured, is_error = session.call(name, arguments)
    return _result(msg_id, tool_result(structured, is_error, session.version))


def tool_result(structured: dict[str, Any], is_error: bool, version: str | None) -> dict[str, Any]:
    """A CallToolResult: the text block is exactly the JSON of the structured content."""
    text = json.dumps(structured, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if not is_error and (version or LATEST) >= STRUCTURED_SINCE:
        result["structuredContent"] = structured
    return result

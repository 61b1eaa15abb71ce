"""`oms worker bridge`: the MCP stdio server an agent is configured with (DESIGN.md §1, §8).

Exactly three tools, bound to one dispatch and its session (`--dispatch-id`, `--session-id`):
- `read_dispatch`: the bound dispatch only — the ticket, instructions, worktree, branch, base and start
  commits, and what a result must contain;
- `acknowledge_dispatch`: `accepted -> acknowledged`, idempotent; with the delivery's nonce from the
  environment it is the bridge half of the liveness proof;
- `record_dispatch_result`: verifies in the worktree (running no repository code) that the commit
  descends from the start commit, is HEAD, and the tree is clean; stores signed `dispatch-result`
  evidence; `-> result-received`; the worker ends `done` or `blocked` (end reason `result-recorded`).

Start-up has no side effects (a client may spawn a throwaway probe): the state root is opened on the
first tool call. Nothing but protocol reaches stdout: fd 1 is kept for the protocol and replaced by
stderr. Lines over the cap are refused; the bridge exits 0 on stdin EOF.
"""

from __future__ import annotations

import os
import sys
from typing import Any, BinaryIO, NamedTuple

from oms.domain import mcp
from oms.version import __version__

LINE_CAP = 1024 * 1024
BODY_CAP = 64 * 1024
INSTRUCTIONS = (
    "oms worker bridge: read_dispatch tells you what to do; acknowledge_dispatch before you start; "
    "record_dispatch_result when you are done, with the commit you made."
)
RESULT_CONTRACT = (
    "Commit your work in the worktree (the tree must be clean and HEAD must be your commit, "
    "descending from start_commit), then call record_dispatch_result with status completed, "
    "blocked or failed, a summary, and result_commit. If your sandbox cannot commit, leave the "
    "changes in the worktree and omit result_commit: for a completed result oms commits them."
)
TOOL_META = {
    "read_dispatch": (
        "Read dispatch",
        "The ticket and instructions of the dispatch this session works on.",
        {"readOnlyHint": True, "openWorldHint": False},
    ),
    "acknowledge_dispatch": (
        "Acknowledge dispatch",
        "Tell oms you have read the dispatch and are starting.",
        {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    ),
    "record_dispatch_result": (
        "Record dispatch result",
        "Record the outcome (completed, blocked or failed) and the commit you made.",
        {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    ),
}


class ToolRefusedError(Exception):
    """A tool refused the call; the message goes back to the model as an `isError` result."""


class BridgeArgs(NamedTuple):
    """The binding a bridge is started with."""

    dispatch_id: str
    session_id: str
    state_root: str
    workspace_root: str
    config_root: str
    nonce: str | None = None


def parse_args(argv: list[str]) -> BridgeArgs:
    """`--dispatch-id D --session-id S --state-root … --workspace-root … --config-root …` (all required)."""
    names = ("--dispatch-id", "--session-id", "--state-root", "--workspace-root", "--config-root")
    if len(argv) % 2 or len(argv) != 2 * len(names):
        raise ValueError("expected " + " ".join(f"{n} VALUE" for n in names))
    values = dict(zip(argv[::2], argv[1::2], strict=True))
    if sorted(values) != sorted(names):
        raise ValueError("expected " + " ".join(f"{n} VALUE" for n in names))
    dispatch_id, session_id, state_root, workspace_root, config_root = (values[n] for n in names)
    return BridgeArgs(
        dispatch_id, session_id, state_root, workspace_root, config_root, os.environ.get("OMS_DELIVERY_NONCE")
    )


def tools() -> dict[str, mcp.Tool]:
    """The three tools with their schemas (from `schemas/bridge-tools.schema.json`)."""
    from oms.schemas import load_schema

    defs = load_schema("bridge-tools")["$defs"]
    return {
        name: mcp.Tool(name, title, description, defs[f"{name}_input"], defs[f"{name}_output"], annotations)
        for name, (title, description, annotations) in TOOL_META.items()
    }


class Tools:
    """The tool implementations, opening the workspace lazily (no side effects at start-up)."""

    def __init__(self, args: BridgeArgs) -> None:
        self.args = args
        self._ws: Any = None

    def workspace(self) -> Any:
        if self._ws is None:
            from oms.services.workspace import Workspace

            self._ws = Workspace.open(self.args.state_root, self.args.config_root)
        return self._ws

    def close(self) -> None:
        if self._ws is not None:
            self._ws.close()

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        from oms.errors import OmsError, SchemaValidationError

        try:
            try:
                _validate_args(name, arguments)
            except SchemaValidationError as exc:
                raise ToolRefusedError(exc.message) from exc
            result: dict[str, Any] = getattr(self, name)(arguments)
            return result, False
        except ToolRefusedError as exc:
            return {"error": str(exc)}, True
        except OmsError as exc:
            return {"error": exc.message}, True
        except Exception as exc:  # noqa: BLE001 - a bug must not kill the session: one line, an error result
            sys.stderr.write(f"oms bridge: internal error in {name}: {type(exc).__name__}: {str(exc)[:200]}\n")
            return {"error": f"internal error in oms ({type(exc).__name__})"}, True

    # ------------------------------------------------------------------ binding
    def _dispatch(self) -> Any:
        from oms.errors import RecordNotFoundError

        ws = self.workspace()
        try:
            dispatch = ws.store.records("dispatch").read(self.args.dispatch_id)
        except RecordNotFoundError as exc:
            raise ToolRefusedError(f"dispatch {self.args.dispatch_id} does not exist") from exc
        if dispatch.payload.get("session_id") != self.args.session_id:
            raise ToolRefusedError("this bridge is not bound to the dispatch's session")
        if dispatch.state in ("proposed", "rejected", "cancelled"):
            raise ToolRefusedError(f"dispatch is {dispatch.state}; there is nothing to work on")
        return dispatch

    # ------------------------------------------------------------------ tools
    def read_dispatch(self, _arguments: dict[str, Any]) -> dict[str, Any]:
        dispatch = self._dispatch()
        ws = self.workspace()
        p = dispatch.payload
        content = ws.store.ticket_content.get(p["ticket_id"], p["ticket_content_sha256"])
        body = str(content["body"])
        truncated = len(body.encode()) > BODY_CAP
        if truncated:
            body = body.encode()[:BODY_CAP].decode("utf-8", "ignore") + "\n[... truncated by oms ...]"
        from oms.services.instructions import executor_instructions

        return {
            "dispatch_id": dispatch.record_id,
            "state": dispatch.state,
            "ticket": {
                "id": p["ticket_id"],
                "title": content["title"],
                "body": body,
                "body_truncated": truncated,
                "source": content["source"],
                "url": content["url"],
            },
            "instructions": executor_instructions(ws),
            "worktree_path": p["worktree_path"],
            "branch": p["worktree_branch"],
            "base_commit": p["worktree_base_commit"],
            "start_commit": p["worktree_start_commit"],
            "result_contract": RESULT_CONTRACT,
        }

    def acknowledge_dispatch(self, _arguments: dict[str, Any]) -> dict[str, Any]:
        from oms.canonical import next_after, stable_id
        from oms.domain import dispatches as machine
        from oms.domain.machine import Next, step
        from oms.services import liveness

        dispatch = self._dispatch()
        ws = self.workspace()
        liveness.record_bridge(ws, dispatch, self.args.nonce)
        if dispatch.state != "accepted":
            return {"dispatch_id": dispatch.record_id, "state": dispatch.state, "already": True}
        nxt = Next(step("dispatch", machine.TABLE, dispatch.state, "acknowledge"), dispatch.payload)
        rec = (
            ws.store.records("dispatch")
            .transition(
                dispatch.record_id,
                expected_version=dispatch.version,
                state=nxt.state,
                payload=nxt.payload,
                operation_id=stable_id("dsp-ack", dispatch.record_id),
                actor="oms-bridge",
                observed_at=next_after(dispatch.observed_at, ws.now()),
            )
            .record
        )
        return {"dispatch_id": rec.record_id, "state": rec.state, "already": False}

    def record_dispatch_result(self, arguments: dict[str, Any]) -> dict[str, Any]:
        from oms.canonical import access
        from oms.services.results import record_result

        dispatch = self._dispatch()
        rec, ref, already = record_result(
            self.workspace(),
            dispatch,
            status=str(arguments["status"]),
            summary=str(arguments["summary"]),
            commit=arguments.get("result_commit"),
        )
        commit = access.obj(self.workspace().store.evidence.get(ref).body, "payload").get("result_commit")
        return {
            "dispatch_id": rec.record_id,
            "state": rec.state,
            "evidence": ref,
            "already": already,
            "result_commit": commit if isinstance(commit, str) else None,
        }


def _validate_args(name: str, arguments: dict[str, Any]) -> None:
    from oms.schemas.loader import explain, is_valid

    schema = f"bridge-tools#/$defs/{name}_input"
    if not is_valid(schema, arguments):
        raise explain(schema, arguments, "arguments")


def serve(argv: list[str], stdin: BinaryIO | None = None, out_fd: int | None = None) -> int:
    """Run the bridge until stdin closes. Returns the process exit code."""
    try:
        args = parse_args(argv)
    except ValueError as exc:
        sys.stderr.write(f"oms: usage: oms worker bridge: {exc}\n")
        return 2
    if out_fd is None:  # guard fd 1: keep it for the protocol, point fd 1 at stderr for everything else
        out_fd = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    source = stdin if stdin is not None else sys.stdin.buffer
    host = Tools(args)
    session = mcp.Session("oms-worker-bridge", __version__, INSTRUCTIONS, tools(), host.call)
    try:
        while True:
            line = source.readline(LINE_CAP + 1)
            if not line:
                return 0
            replies: list[dict[str, Any] | list[dict[str, Any]]]
            if len(line) > LINE_CAP and not line.endswith(b"\n"):
                while (rest := source.readline(LINE_CAP)) and not rest.endswith(b"\n"):
                    pass
                replies = [
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": mcp.INVALID_REQUEST, "message": f"message longer than {LINE_CAP} bytes"},
                    }
                ]
            elif not line.strip():
                continue
            else:
                try:
                    replies = mcp.handle_line(session, line)
                except Exception as exc:  # noqa: BLE001 - the protocol boundary: answer, never a traceback
                    sys.stderr.write(f"oms bridge: internal error: {type(exc).__name__}: {str(exc)[:200]}\n")
                    replies = [
                        {
                            "jsonrpc": "2.0",
                            "id": None,
                            "error": {"code": mcp.INTERNAL_ERROR, "message": "Internal error"},
                        }
                    ]
            for reply in replies:
                _write_all(out_fd, mcp.encode(reply))
    except BrokenPipeError:
        return 0
    finally:
        host.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]

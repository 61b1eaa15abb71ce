"""The MCP bridge's tools, served by the broker to `oms worker bridge` relays (ADR 0011 "MCP
bridge", ADR 0012).

Inside a sandbox `oms worker bridge --dispatch-id D --session-id S` is a relay (`cli/relay.py`);
each relay connection is one MCP session here (`domain/mcp.py` speaks the protocol). The relay's
binding must equal the broker's own. Exactly three tools, bound to one dispatch and its session:
- `read_dispatch`: the bound dispatch only — the ticket, instructions, worktree, branch, base and
  start commits, what a result must contain, and for a follow-up the changes a person requested
  (docs/adr/0035);
- `acknowledge_dispatch`: `accepted -> acknowledged`, idempotent; with the broker's delivery nonce
  it is the bridge half of the liveness proof;
- `record_dispatch_result`: verifies in the worktree (running no repository code) that the commit
  descends from the start commit, is HEAD, and the tree is clean; stores signed `dispatch-result`
  evidence; `-> result-received`; the worker ends `done` or `blocked` (end reason
  `result-recorded`).

Every tool of a fenced attempt (its lease or live authorisation lapsed: `services/chain/fence.py`)
is refused with the reason, and its worker parked.

A session has no side effects until its first `tools/list`: the broker notes the first of each
connection for the deliverer, which types the agent's instruction only once its bridge has listed
oms's tools in this pane (`chain/liveness.record_listing`; ADR 0011 amendment `toolsready`). A
throwaway probe that lists the tools proves the bridge starts all the same; a note that cannot be
written is one broker log line, and the listing is answered regardless.
Lines over the cap are refused (the broker bounds them); internal errors are one broker log line
each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from oms.domain import mcp
from oms.domain.relay import BRIDGE_TOOLS
from oms.limits import LIMITS
from oms.version import __version__

if TYPE_CHECKING:
    from oms.domain.own_pane import PaneProcess
    from oms.errors import OmsError
    from oms.schemas.payloads import DispatchPayload
    from oms.services.workspace import Workspace
    from oms.store import Record

INSTRUCTIONS = (
    "oms worker bridge: read_dispatch tells you what to do; acknowledge_dispatch before you start; "
    "record_dispatch_result when you are done, with the commit you made."
)
RESULT_CONTRACT = (
    "Leave your changes in the worktree (its git metadata is read-only in your sandbox: you "
    "cannot commit), then call record_dispatch_result with status completed, blocked or failed "
    "and a summary. For a completed result oms commits what you left, on your branch, and "
    "returns result_commit."
)
READ, ACKNOWLEDGE, RECORD = BRIDGE_TOOLS
TOOL_META = {
    READ: (
        "Read dispatch",
        "The ticket and instructions of the dispatch this session works on.",
        {"readOnlyHint": True, "openWorldHint": False},
    ),
    ACKNOWLEDGE: (
        "Acknowledge dispatch",
        "Tell oms you have read the dispatch and are starting.",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    ),
    RECORD: (
        "Record dispatch result",
        "Record the outcome (completed, blocked or failed) and the commit you made.",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    ),
}


def _changes(payload: DispatchPayload) -> dict[str, Any]:
    """A follow-up's requested changes (docs/adr/0035): the comments, the summary of the result it
    follows; the work goes on from that result, on the same branch."""
    found = payload.get("changes_requested")
    return {} if found is None else {"changes_requested": found}


class ToolRefusedError(Exception):
    """A tool refused the call; the message goes back to the model as an `isError` result."""


class BridgeArgs(NamedTuple):
    """The binding a bridge serves (the broker's own)."""

    dispatch_id: str
    session_id: str
    nonce: str | None = None
    own: tuple[PaneProcess, ...] = ()  # the broker's pane: its first process (`own_pane`)


def parse_args(argv: tuple[str, ...] | list[str]) -> tuple[str, str]:
    """`--dispatch-id D --session-id S` (both required, nothing else): (dispatch id, session id)."""
    from oms.domain.relay import BRIDGE_OPTIONS, RelayError, options

    try:
        values = options(tuple(argv), BRIDGE_OPTIONS)
    except RelayError as exc:
        raise ValueError(str(exc)) from exc
    return values["--dispatch-id"], values["--session-id"]


def tools() -> dict[str, mcp.Tool]:
    """The three tools with their schemas (from `schemas/bridge-tools.schema.json`)."""
    from oms.schemas import load_schema

    defs = load_schema("bridge-tools")["$defs"]
    return {
        name: mcp.Tool(
            name, title, description, defs[f"{name}_input"], defs[f"{name}_output"], annotations
        )
        for name, (title, description, annotations) in TOOL_META.items()
    }


class Tools:
    """The tool implementations, over the broker's workspace (opened on first use)."""

    def __init__(
        self,
        args: BridgeArgs,
        workspace: Callable[[], Workspace],
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.args = args
        self.workspace = workspace
        self.log = log or (lambda _line: None)

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
            said = for_agent(exc, self._worktree())
            if said != exc.message or exc.remedy:  # the whole reason, for a person: the broker log
                self.log(f"bridge {name} refused: {exc.message} (hint: {exc.remedy or '-'})")
            return {"error": said}, True
        # a bug must not kill the session: one line, an error result
        except Exception as exc:  # noqa: BLE001
            self.log(f"bridge internal error in {name}: {type(exc).__name__}: {str(exc)[:200]}")
            return {"error": f"internal error in oms ({type(exc).__name__})"}, True

    # ------------------------------------------------------------------ binding
    def _worktree(self) -> str | None:
        """The bound dispatch's worktree (the agent's own folder: the one host path it may see)."""
        from oms.errors import OmsError
        from oms.store.payloads import dispatch_payload

        try:
            dispatch = self.workspace().store.records("dispatch").read(self.args.dispatch_id)
        except OmsError:
            return None
        return dispatch_payload(dispatch)["worktree_path"]

    def _dispatch(self) -> Record:
        from oms.errors import RecordNotFoundError
        from oms.schemas.payloads import DispatchState
        from oms.store.payloads import dispatch_payload

        ws = self.workspace()
        try:
            dispatch = ws.store.records("dispatch").read(self.args.dispatch_id)
        except RecordNotFoundError as exc:
            raise ToolRefusedError(f"dispatch {self.args.dispatch_id} does not exist") from exc
        if dispatch_payload(dispatch)["session_id"] != self.args.session_id:
            raise ToolRefusedError("this bridge is not bound to the dispatch's session")
        nothing = (DispatchState.PROPOSED, DispatchState.REJECTED, DispatchState.CANCELLED)
        if dispatch.state in nothing:
            raise ToolRefusedError(f"dispatch is {dispatch.state}; there is nothing to work on")
        from oms.services.chain import fence

        fence.require(
            ws, dispatch, "oms-bridge"
        )  # a lapsed lease or authorisation: refused with the reason
        return dispatch

    def note_listing(self) -> None:
        """The connection's first `tools/list` was answered: noted for the deliverer
        (`chain/liveness.record_listing`), or one log line saying why not."""
        from oms.errors import OmsError
        from oms.services.chain import liveness

        try:
            ws = self.workspace()
            dispatch = ws.store.records("dispatch").read(self.args.dispatch_id)
            liveness.record_listing(
                ws, dispatch, self.args.session_id, self.args.nonce, self.args.own
            )
        except OmsError as exc:
            self.log(f"bridge tools/list not noted: {exc.message}")
        # the door boundary: a bug leaves the listing answered, never kills the session
        except Exception as exc:  # noqa: BLE001
            self.log(
                f"bridge internal error noting tools/list: {type(exc).__name__}: {str(exc)[:200]}"
            )

    # ------------------------------------------------------------------ tools
    def read_dispatch(self, _arguments: dict[str, Any]) -> dict[str, Any]:
        from oms.store.payloads import dispatch_payload

        dispatch = self._dispatch()
        ws = self.workspace()
        p = dispatch_payload(dispatch)
        content = ws.store.ticket_content.get(p["ticket_id"], p["ticket_content_sha256"])
        body = str(content["body"])
        truncated = len(body.encode()) > LIMITS.bridge_body_bytes
        if truncated:
            body = (
                body.encode()[: LIMITS.bridge_body_bytes].decode("utf-8", "ignore")
                + "\n[... truncated by oms ...]"
            )
        from oms.services.workspace.instructions import approved_instructions

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
            "instructions": approved_instructions(ws, p),
            "worktree_path": p["worktree_path"],
            "branch": p["worktree_branch"],
            "base_commit": p["worktree_base_commit"],
            "start_commit": p["worktree_start_commit"],
            "result_contract": RESULT_CONTRACT,
            **_changes(p),
        }

    def acknowledge_dispatch(self, _arguments: dict[str, Any]) -> dict[str, Any]:
        from oms.canonical import next_after, stable_id
        from oms.domain import dispatches as machine
        from oms.domain.machine import Next, step
        from oms.services.chain import liveness
        from oms.store import Change

        dispatch = self._dispatch()
        ws = self.workspace()
        liveness.record_bridge(ws, dispatch, self.args.nonce)
        if dispatch.state != machine.DispatchState.ACCEPTED:
            return {"dispatch_id": dispatch.record_id, "state": dispatch.state, "already": True}
        nxt = Next(step("dispatch", machine.TABLE, dispatch.state, "acknowledge"), dispatch.payload)
        op = stable_id("dsp-ack", dispatch.record_id)
        after = next_after(dispatch.observed_at, ws.now())
        change = Change(nxt.state, nxt.payload, op, "oms-bridge", after)
        written = ws.store.records("dispatch").write_next(dispatch, change)
        rec = written.record
        return {"dispatch_id": rec.record_id, "state": rec.state, "already": written.replayed}

    def record_dispatch_result(self, arguments: dict[str, Any]) -> dict[str, Any]:
        from oms.canonical import access
        from oms.services.chain.results import record_result

        dispatch = self._dispatch()
        rec, ref, already = record_result(
            self.workspace(),
            dispatch,
            status=str(arguments["status"]),
            summary=str(arguments["summary"]),
            commit=arguments.get("result_commit"),
        )
        commit = access.obj(self.workspace().store.evidence.get(ref).body, "payload").get(
            "result_commit"
        )
        return {
            "dispatch_id": rec.record_id,
            "state": rec.state,
            "evidence": ref,
            "already": already,
            "result_commit": commit if isinstance(commit, str) else None,
        }


HOST_SIDE = (
    "oms could not check your worktree from the host; nothing was recorded. Leave your work "
    "where it is: a person sees the reason in this worker's log"
)
_PATH = re.compile(r"(?<![\w./~-])/[^\s'\"(),;:]+")  # an absolute path, not `a/b` or `refs/x`


def for_agent(exc: OmsError, worktree: str | None) -> str:
    """What an agent is told of an error (ADR 0029): never a host path but its own worktree's, never
    what git or another process said. An error of a process oms ran on the host (git, a tree job,
    bubblewrap) or of the repository's own config is `HOST_SIDE`; any other keeps its message,
    each path outside the worktree shown as `<host path>`."""
    from oms.errors import AgentTreeError, ProcessError, UnsafeRepositoryError

    if isinstance(exc, ProcessError | UnsafeRepositoryError | AgentTreeError):
        return HOST_SIDE

    def path(match: re.Match[str]) -> str:
        found = match.group()
        inside = worktree is not None and (found == worktree or found.startswith(worktree + "/"))
        return found if inside else "<host path>"

    return _PATH.sub(path, exc.message)


def _validate_args(name: str, arguments: dict[str, Any]) -> None:
    from oms.schemas.loader import explain, is_valid

    schema = f"bridge-tools#/$defs/{name}_input"
    if not is_valid(schema, arguments):
        raise explain(schema, arguments, "arguments")


class Session:
    """One bridge relay's MCP session (what the broker feeds line by line)."""

    def __init__(self, tools_impl: Tools, log: Callable[[str], None]) -> None:
        self.log = log
        self.tools = tools_impl
        self.mcp = mcp.Session(
            "oms-worker-bridge", __version__, INSTRUCTIONS, tools(), tools_impl.call
        )

    def line(self, data: bytes) -> list[bytes]:
        """The encoded replies to one received line. The connection's first `tools/list` is noted
        as its answer is queued: the broker writes it in this turn of its loop, long before the
        deliverer, which polls, could type and (`Limits.enter_pause_s` later) press Enter."""
        listed = self.mcp.listed
        try:
            replies = mcp.handle_line(self.mcp, data)
        except Exception as exc:  # noqa: BLE001 - the protocol boundary: answer, never a traceback
            self.log(f"bridge internal error: {type(exc).__name__}: {str(exc)[:200]}")
            replies = [
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": mcp.INTERNAL_ERROR, "message": "Internal error"},
                }
            ]
        if self.mcp.listed and not listed:
            self.tools.note_listing()
        return [mcp.encode(reply) for reply in replies]

    def oversized(self) -> list[bytes]:
        """The reply to a line over the cap."""
        error = {
            "code": mcp.INVALID_REQUEST,
            "message": f"message longer than {LIMITS.bridge_line_bytes} bytes",
        }
        return [mcp.encode({"jsonrpc": "2.0", "id": None, "error": error})]

"""`oms demo`: the whole chain on a scratch repository, with a worker that really uses both doors.

1. a scratch directory holds a new git repository, a state root, and two small shell scripts: the
   advisor (command transport: approves the exact intent digest it is shown) and the worker (command
   transport: reaches oms only through `oms hook provider` and `oms worker bridge`);
2. a ticket is added, leased, given its worktree, proposed, reviewed by the advisor and accepted;
3. `deliver` launches the worker in a pane of oms's own tmux server, inside its sandbox; the worker
   fires SessionStart, reads and acknowledges its dispatch over MCP, changes a file (it cannot
   commit: its git metadata is read-only), is held back by the Stop gate, records its result (oms
   commits the change, verifies and signs it), and is let go by the Stop gate;
4. the timeline of every record version, event, evidence and worker step is returned in time order.

The worker then waits in its pane (press Enter there, or `oms worker stop`) so it can be inspected.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from oms.adapters import git
from oms.adapters.providers import command
from oms.canonical import JsonObject, access
from oms.errors import InvalidInputError, OmsError
from oms.fsio import Root, scratch_directory
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchState
from oms.services.admin.setup import init
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload, session_payload, worker_payload

TICKET_TITLE = "Add a changelog entry"
TICKET_BODY = "Add one line to CHANGELOG.md saying what changed, and commit it."
WORKER_LOG = "worker.log"
RECORD_KINDS = ("ticket", "dispatch", "worker", "session")
TERMINAL = ("result-received", "resolved", "rejected", "cancelled")

ADVISOR_SCRIPT = r"""#!/bin/sh
# The oms demo advisor (command transport): the review request arrives as JSON on stdin, the verdict
# leaves as JSON on stdout, and it must name the exact intent digest it approves.
set -eu
request=$(cat)
digest=$(printf '%s' "$request" | sed -n 's/.*"dispatch_intent_sha256":"\([0-9a-f]\{64\}\)".*/\1/p')
if [ -z "$digest" ]; then
  echo "demo advisor: no intent digest in the request" >&2
  exit 1
fi
printf '{"verdict":"approve","rationale":"%s","dispatch_intent_sha256":"%s"}\n' \
  "demo advisor: a one-line change in its own worktree" "$digest"
"""

WORKER_SCRIPT = r"""#!/bin/sh
# The oms demo worker (command transport). Like a real agent it runs in a sandbox (its worktree,
# its private $HOME) and reaches oms only through two doors: its hooks (`oms hook provider`, JSON on
# stdin) and its MCP bridge (`oms worker bridge`, JSON-RPC lines on stdin), both relays to its
# broker. oms hands it its dispatch and session in its environment (OMS_*). It logs to
# $HOME/worker.log.
#   worker.sh [full|prove|hooks-only|bridge-only|silent] [wait|exit]
set -u
log="$HOME/worker.log"
mode="${1:-full}"
after="${2:-wait}"

say() {
  printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$*" >> "$log"
  printf 'worker: %s\n' "$*"
}
hook() {  # EVENT [MORE_JSON_FIELDS] -> the hook's answer
  printf '{"hook_event_name":"%s","session_id":"%s"%s}' "$1" "$OMS_SESSION_ID" "${2:-}" |
    "$OMS_EXECUTABLE" hook provider --event "$1" --provider command --provider-version command-1 \
      --dispatch-id "$OMS_DISPATCH_ID" --session-id "$OMS_SESSION_ID" --allowed-tools ""
}
initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
initialize="$initialize"'"capabilities":{},"clientInfo":{"name":"oms-demo-worker","version":"1"}}}'
tool() {  # NAME ARGUMENTS_JSON -> the tools/call response (one JSON-RPC line)
  tools_call="{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
  tools_call="$tools_call\"params\":{\"name\":\"$1\",\"arguments\":$2}}"
  printf '%s\n' "$initialize" '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    "$tools_call" |
    "$OMS_EXECUTABLE" worker bridge --dispatch-id "$OMS_DISPATCH_ID" \
      --session-id "$OMS_SESSION_ID" |
    tail -n 1
}
field() {  # NAME: a string field of the structured result on stdin
  sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"
}
finish() {
  if [ "$after" = wait ]; then
    say "waiting in the pane (press Enter to end this worker)"
    read -r _ || true
  fi
  exit "$1"
}

if [ "$mode" != silent ] && [ "$mode" != bridge-only ]; then
  answer=$(hook SessionStart ',"source":"startup"')
  case "$answer" in
    *read_dispatch*) say "hook SessionStart: oms answers 'call read_dispatch'" ;;
    *) say "hook SessionStart: unexpected answer $answer"; finish 1 ;;
  esac
fi
if [ "$mode" != silent ] && [ "$mode" != hooks-only ]; then
  reply=$(tool read_dispatch '{}')
  title=$(printf '%s' "$reply" | field title)
  [ -n "$title" ] || { say "read_dispatch failed: $reply"; finish 1; }
  say "read_dispatch: ticket '$title'"
  state=$(tool acknowledge_dispatch '{}' | field state)
  say "acknowledge_dispatch: dispatch $state"
fi
[ "$mode" = full ] || finish 0

hook UserPromptSubmit ',"prompt":"work the dispatch"' > /dev/null
say "hook UserPromptSubmit: heartbeat"
printf -- '- %s (by the oms demo worker)\n' "$title" >> CHANGELOG.md
say "changed CHANGELOG.md (left in the worktree: oms commits it)"
if git -c user.name=w -c user.email=w@oms.invalid commit --quiet -am "$title" > /dev/null 2>&1; then
  say "git commit worked inside the sandbox (it must not)"; finish 1
fi
say "git commit refused inside the sandbox (git metadata is read-only)"
case "$(hook Stop ',"stop_hook_active":false')" in
  *'"block"'*) say "hook Stop: blocked (the dispatch has no result yet)" ;;
  *) say "hook Stop: not blocked before the result"; finish 1 ;;
esac
reply=$(tool record_dispatch_result '{"status":"completed","summary":"Added a CHANGELOG line."}')
state=$(printf '%s' "$reply" | field state)
[ "$state" = result-received ] || { say "record_dispatch_result failed: $reply"; finish 1; }
commit=$(printf '%s' "$reply" | field result_commit)
say "record_dispatch_result: dispatch $state, committed by oms as $commit"
case "$(hook Stop ',"stop_hook_active":false')" in
  '{}') say "hook Stop: released (the dispatch has its result)" ;;
  *) say "hook Stop: still blocked after the result"; finish 1 ;;
esac
finish 0
"""


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the timeline."""

    at: str
    source: str
    subject: str
    text: str

    def to_json(self) -> JsonObject:
        """Machine form."""
        return {"at": self.at, "source": self.source, "subject": self.subject, "text": self.text}


@dataclass
class DemoRun:
    """Where the demo ran and how it ended."""

    base: str
    repo: str
    state_root: str
    ticket_id: str = ""
    dispatch_id: str = ""
    session_id: str = ""
    pane_id: str = ""
    dispatch_state: str = ""
    result_commit: str | None = None
    ok: bool = False
    reason: str = ""
    timeline: list[Step] = field(default_factory=list)
    kept: bool = False  # the worker and the demo's tmux server left running (--keep)

    @property
    def socket(self) -> str:
        """oms's own tmux server."""
        return os.path.join(self.state_root, "tmux.sock")

    def to_json(self) -> JsonObject:
        """Machine form."""
        return {
            "ok": self.ok,
            "reason": self.reason,
            "base": self.base,
            "repo": self.repo,
            "state_root": self.state_root,
            "ticket_id": self.ticket_id,
            "dispatch_id": self.dispatch_id,
            "session_id": self.session_id,
            "pane_id": self.pane_id,
            "dispatch_state": self.dispatch_state,
            "result_commit": self.result_commit,
            "tmux_socket": self.socket,
            "kept": self.kept,
            "timeline": [s.to_json() for s in self.timeline],
        }


def _config(base: str, max_workers: int = 2, worker_args: tuple[str, ...] = ()) -> str:
    worker = json.dumps(["/bin/sh", os.path.join(base, "worker.sh"), *worker_args])
    advisor = json.dumps(["/bin/sh", os.path.join(base, "advisor.sh")])
    return f"""\
# oms configuration for `oms demo`: both roles run the shell scripts next to this repository.
format = 1

[advisor]
role = "oms.exec-advisor"

[worker]
role = "oms.command-executor"

[pool]
max_workers = {max_workers}

[lease]
duration_minutes = 60

[worktrees]
directory = "../worktrees"

[roles."oms.command-executor"]
model = "demo-script"
transport = "command"
sandbox = "ticket-worktree-write"
argv = {worker}

[roles."oms.exec-advisor"]
model = "demo-script"
transport = "command"
sandbox = "read-only"
argv = {advisor}
"""


def _prepare(base: str, max_workers: int = 2, worker_args: tuple[str, ...] = ()) -> DemoRun:
    """The scratch directory: repository (committed config and policy), state root, scripts."""
    if any(not 0x20 <= ord(c) <= 0x7E for c in base):
        raise InvalidInputError(f"demo directory {base!r}: use a path of printable ASCII")
    run = DemoRun(base, os.path.join(base, "repo"), os.path.join(base, "state"))
    with Root.open(
        base, create=True, private=False
    ) as root:  # the state root inside it is private (0700)
        if root.listdir():
            raise InvalidInputError(
                f"demo directory {base} is not empty", hint="name a new or empty directory"
            )
        root.publish("advisor.sh", ADVISOR_SCRIPT.encode(), mode=0o700)
        root.publish("worker.sh", WORKER_SCRIPT.encode(), mode=0o700)
        root.mkdirs("repo")
    with Root.open(run.repo, private=False) as repo:
        repo.publish(
            "README.md", b"# demo project\n\nA scratch repository made by `oms demo`.\n", mode=0o644
        )
        repo.publish("CHANGELOG.md", b"# Changelog\n\n", mode=0o644)
        repo.mkdirs(".oms")
        repo.publish(
            ".oms/config.toml", _config(base, max_workers, worker_args).encode(), mode=0o644
        )
    git.init_repository(run.repo)
    init(run.state_root, run.repo)  # the state root and key; the committed default role policy
    git.commit_all(run.repo, "demo project with its oms config and role policy")
    return run


def worker_log(ws: Workspace, session_id: str) -> bytes:
    """What the demo worker logged in its private home (empty before it starts)."""
    if not session_id:
        return b""
    rel = f"{command.home(session_id)}/{WORKER_LOG}"
    return ws.store.sandboxes().read_optional(rel, 256 * 1024, any_mode=True) or b""


def timeline(ws: Workspace, session_id: str) -> list[Step]:
    """Every record version, event, evidence and worker log line, in time order."""
    steps: list[Step] = []
    for kind in RECORD_KINDS:
        records = ws.store.records(kind)
        for record_id in records.ids():
            previous: str | None = None
            before: JsonObject = {}
            for rec in records.history(record_id):
                if previous is None:
                    text = f"created: {rec.state}"
                elif previous != rec.state:
                    text = f"{previous} -> {rec.state}"
                else:
                    text = _same_state(rec, before)
                before = rec.payload
                if kind == "worker" and (worker := worker_payload(rec))["health"] != "healthy":
                    why = worker["health_reason"] or "-"
                    text += f" (health {worker['health']}: {why})"
                steps.append(Step(rec.observed_at, kind, record_id, f"{text}  [{rec.actor}]"))
                previous = rec.state
    for event_id in ws.store.events.ids():
        event = ws.store.events.read(event_id)
        steps.append(Step(event.created_at, "event", event.event_type, _event_text(event.payload)))
    for ref in ws.store.evidence.refs():
        ev = ws.store.evidence.get(ref)
        steps.append(
            Step(
                str(ev.body["created_at"]), "evidence", ev.kind, f"signed by oms, sha256 {ref[:12]}"
            )
        )
    for line in worker_log(ws, session_id).decode("utf-8", "replace").splitlines():
        at, _, text = line.partition(" ")
        if text:
            steps.append(Step(at, "agent", "worker.sh", text))
    return sorted(steps, key=lambda s: s.at)


def _same_state(rec: Record, before: JsonObject) -> str:
    if rec.kind == "session":
        session = session_payload(rec)
        blocks = session["stop_blocks"]
        if session.get("agent_stopped_at") and not before.get("agent_stopped_at"):
            return "heartbeat (the agent ended its turn: the stop gate let it through)"
        return "heartbeat" + (f" (stop gate blocks: {blocks})" if blocks else "")
    if rec.kind == "worker":
        return f"health {worker_payload(rec)['health']}"
    payload = rec.payload
    changed = sorted(k for k in payload if payload.get(k) != before.get(k) and k != "updated_at")
    return "updated: " + (", ".join(changed) or "-")


def _event_text(payload: JsonObject) -> str:
    keys = ("dispatch_id", "session_id", "hook_event", "provider")
    return " ".join(f"{k}={payload[k]}" for k in keys if isinstance(payload.get(k), str))


def run(
    base: str | None,
    *,
    timeout_s: float = LIMITS.demo_timeout_s,
    keep: bool = False,
    progress: Callable[[str], None] = lambda _m: None,
) -> DemoRun:
    """Run the demo in `base` (default: a new scratch directory). Unless `keep`, the worker is
    stopped and the demo's tmux server ended before it returns (nothing of it lingers)."""
    where = os.path.abspath(base) if base else scratch_directory("oms-demo-")
    progress(f"scratch directory {where}")
    demo = _prepare(where)
    progress("repository, state root and role policy ready")
    with Workspace.open(demo.state_root, demo.repo) as ws:
        demo.kept = keep
        try:
            _chain(ws, demo, timeout_s, progress)
        finally:  # an error or Ctrl-C too: nothing of the demo lingers unless it was asked to
            if not keep:
                _end(ws, demo, progress)
    return demo


def _chain(ws: Workspace, demo: DemoRun, timeout_s: float, progress: Callable[[str], None]) -> None:
    ticket = tickets.add(ws, TICKET_TITLE, TICKET_BODY)
    demo.ticket_id = ticket.record_id
    tickets.lease(ws, ticket.record_id, "demo-worker")
    worktrees.create(ws, ticket.record_id)
    dispatch, _ = dispatches.propose(ws, ticket.record_id)
    demo.dispatch_id = dispatch.record_id
    progress(
        f"ticket {ticket.record_id} leased, worktree made, dispatch {dispatch.record_id} proposed"
    )
    dispatches.review(ws, dispatch.record_id)
    _, event_id = dispatches.accept(ws, dispatch.record_id)
    progress("advisor approved the exact intent; dispatch accepted")
    outcome = access.obj(Delivery.open(ws).deliver(event_id), "outcome")
    demo.session_id = str(outcome.get("session_id") or "")
    demo.pane_id = str(outcome.get("pane_id") or "")
    if outcome.get("status") != "created":
        demo.reason = f"delivery {outcome.get('status')}: {outcome.get('reason') or '-'}"
    else:
        progress(f"delivered into tmux pane {demo.pane_id}; waiting for the worker")
        _wait(ws, demo, timeout_s)
    demo.timeline = timeline(ws, demo.session_id)


def _end(ws: Workspace, demo: DemoRun, progress: Callable[[str], None]) -> None:
    """Stop the demo's worker (its end recorded as any stop's) and end the demo's own tmux
    server."""
    delivery = Delivery.open(ws)
    if demo.dispatch_id:
        try:
            delivery.stop(demo.dispatch_id, "demo over")
        except OmsError as exc:  # nothing to stop (it never launched): the server goes all the same
            progress(f"stopping the worker: {exc.message}")
    delivery.panes.kill_server()
    progress("worker stopped and the demo's tmux server ended (--keep keeps them)")


def _wait(ws: Workspace, demo: DemoRun, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    delivery = Delivery.open(ws)
    while True:
        dispatch = ws.store.records("dispatch").read(demo.dispatch_id)
        demo.dispatch_state = dispatch.state
        view = delivery.observe(demo.dispatch_id)
        if dispatch.state in TERMINAL:
            break
        if view["worker_health"] != "healthy" or not view["pane_live"]:
            demo.reason = (
                f"the worker ended early ("
                f"{view['end_reason'] or view['health_reason'] or 'no reason'})"
            )
            return
        if time.monotonic() > deadline:
            demo.reason = f"no result after {timeout_s:g}s (dispatch {dispatch.state})"
            return
        time.sleep(0.1)
    while (
        time.monotonic() < deadline
    ):  # let the worker finish its last steps (the Stop gate's release)
        if (
            b"waiting in the pane" in worker_log(ws, demo.session_id)
            or not delivery.observe(demo.dispatch_id)["pane_live"]
        ):
            break
        time.sleep(0.1)
    result = _result_commit(ws, demo.dispatch_id)
    demo.result_commit = result
    demo.ok = demo.dispatch_state == DispatchState.RESULT_RECEIVED and result is not None
    if not demo.ok:
        demo.reason = f"dispatch ended {demo.dispatch_state} without a result commit"


def _result_commit(ws: Workspace, dispatch_id: str) -> str | None:
    dispatch = ws.store.records("dispatch").read(dispatch_id)
    ref = dispatch_payload(dispatch).get("result_evidence")
    if not isinstance(ref, str):
        return None
    commit = access.obj(ws.store.evidence.get(ref).body, "payload").get("result_commit")
    return commit if isinstance(commit, str) else None

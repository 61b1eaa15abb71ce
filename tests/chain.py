"""A real repository + state root wired for the authority chain, with command advisors and a test
clock."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from oms.canonical import JsonObject, access, add_ms, now
from oms.demo.scratch import WORKER_SCRIPT
from oms.services.admin.setup import init
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.workspace import Workspace
from oms.store import Record
from tests.helpers import eventually, git

ADVISOR = r"""
import json, sys
mode = sys.argv[1]
req = json.load(sys.stdin)
digest = req["dispatch_intent_sha256"]
if mode == "approve":
    rationale = "ok: " + req["ticket"]["title"]
    verdict = {"verdict": "approve", "rationale": rationale, "dispatch_intent_sha256": digest}
    print(json.dumps(verdict))
elif mode == "reject":
    verdict = {"verdict": "reject", "rationale": "too risky", "dispatch_intent_sha256": digest}
    print(json.dumps(verdict))
elif mode == "wrong-digest":
    print(json.dumps({"verdict": "approve", "rationale": "ok", "dispatch_intent_sha256": "0" * 64}))
elif mode == "garbage":
    print("I approve, probably")
elif mode == "extra-field":
    verdict = {"verdict": "approve", "rationale": "ok", "dispatch_intent_sha256": digest}
    print(json.dumps({**verdict, "admin": True}))
elif mode == "fail":
    sys.exit(3)
elif mode == "unreachable":
    sys.stderr.write("starting\nERROR: stream disconnected: failed to lookup address information: ")
    sys.stderr.write("Name does not resolve\n\n")
    sys.exit(1)
"""


@dataclass
class Clock:
    """A clock tests can move, anchored at the real time it was made (so CLI processes agree with
    it)."""

    ms: int = 0
    base: str = field(default_factory=now)

    def __call__(self) -> str:
        return add_ms(self.base, self.ms)

    def advance(self, minutes: float) -> None:
        self.ms += int(minutes * 60_000)


@dataclass
class Chain:
    """The places and knobs of one chain fixture."""

    base: Path
    repo: Path
    state: Path
    advisor: Path
    clock: Clock = field(default_factory=Clock)

    def workspace(self) -> Workspace:
        return Workspace.open(str(self.state), str(self.repo), clock=self.clock)

    def set_advisor(self, mode: str, commit: bool = True) -> None:
        self.edit_config(
            lambda s: _replace_advisor_argv(s, [sys.executable, str(self.advisor), mode]), commit
        )

    def edit_config(self, change: object, commit: bool = False) -> None:
        path = self.repo / ".oms" / "config.toml"
        path.write_text(change(path.read_text()))  # type: ignore[operator]
        if commit:
            self.commit("config")

    def edit_policy(self, change: object, *, stage: bool = False, commit: bool = False) -> None:
        path = self.repo / ".oms" / "role-policy.json"
        doc = json.loads(path.read_text())
        change(doc)  # type: ignore[operator]
        path.write_text(json.dumps(doc, indent=2) + "\n")
        if stage or commit:
            git("add", ".oms/role-policy.json", cwd=self.repo)
        if commit:
            git("commit", "-q", "-m", "policy", cwd=self.repo)

    def commit(self, message: str) -> None:
        git("add", "-A", cwd=self.repo)
        git("commit", "-q", "--allow-empty", "-m", message, cwd=self.repo)

    def leased_ticket(self, title: str = "Fix the flaky test") -> tuple[str, str]:
        """A ticket, leased, with its worktree: (ticket id, lease token)."""
        with self.workspace() as ws:
            rec = tickets.add(ws, title, "It fails one run in ten.")
            grant = tickets.lease(ws, rec.record_id, "w1")
            worktrees.create(ws, rec.record_id)
            return rec.record_id, grant.token

    def proposed(self, title: str = "Fix the flaky test") -> tuple[str, str, str]:
        """(ticket id, token, dispatch id) for a freshly proposed dispatch."""
        ticket_id, token = self.leased_ticket(title)
        with self.workspace() as ws:
            rec, _ = dispatches.propose(ws, ticket_id)
        return ticket_id, token, rec.record_id


def next_attempt(chain: Chain, ticket: str, dispatch: Record) -> Record:
    """`dispatch`'s attempt lapses (a failure the conductor retries, as `decide_ticket` does), the
    ticket is leased again, its worktree asked for (`worktrees.create`: made again if gone) and
    the next attempt's dispatch proposed; that dispatch."""
    with chain.workspace() as ws:
        current = ws.store.records("ticket").read(ticket)
        failure: JsonObject = {
            "attempt": access.integer(current.payload, "attempt"),
            "dispatch_id": dispatch.record_id,
            "failed_at": ws.now(),
            "reason": "lapsed",
        }
        session = access.text(current.payload, "session_id")
        tickets.retry(ws, current, session_id=session, failure=failure, retry_after=ws.now())
        tickets.lease(ws, ticket, "w1")
        worktrees.create(ws, ticket)
        return dispatches.propose(ws, ticket)[0]


def _replace_advisor_argv(text: str, argv: list[str]) -> str:
    head, marker, tail = text.partition('[roles."oms.exec-advisor"]')
    section_end = tail.find("\n[")
    section = tail if section_end < 0 else tail[:section_end]
    rest = "" if section_end < 0 else tail[section_end:]
    lines = [line for line in section.splitlines() if not line.startswith(("argv", "transport"))]
    lines += ['transport = "command"', f"argv = {json.dumps(argv)}"]
    return head + marker + "\n".join(lines) + "\n" + rest


def make_chain(tmp_path: Path) -> Iterator[Chain]:
    """Build the fixture (used by `chain` fixtures in conftest)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README.md").write_text("# project\n")
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "initial", cwd=repo)
    advisor = tmp_path / "advisor.py"
    advisor.write_text(ADVISOR)
    chain = Chain(tmp_path, repo, tmp_path / "state", advisor)
    init(str(chain.state), str(repo))
    chain.edit_config(
        lambda s: (
            s.replace(
                'role = "oms.ticket-executor"       # the role new dispatches use',
                'role = "oms.command-executor"',
            ).replace("[worktrees]\n", '[worktrees]\ndirectory = "../oms-worktrees"\n', 1)
            + (
                '\n[roles."oms.command-executor"]\nmodel = "script"\ntransport = "command"\n'
                'sandbox = "ticket-worktree-write"\nargv = ["true"]\n'
            )
        )
    )
    chain.set_advisor("approve")
    chain.commit("oms config and policy")
    yield chain
    # whatever a test launched (a one-shot tick fills the pool) ends with it: its own socket only
    subprocess.run(
        ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"],
        capture_output=True,
        check=False,
    )


WORKER = r"""#!/bin/sh
# A command worker for tests, run in its sandbox: in mode `wait` it first proves both channels (the
# demo worker's `prove`: a SessionStart hook, read_dispatch and acknowledge_dispatch over the
# bridge), in `hooks-only` and `bridge-only` one of them; then it records where it runs and what it
# was given in its private home ($HOME/worker.out: the test reads it from the state root), and waits
# (`silent`: the same without any proof; `stubborn`: waits ignoring SIGHUP and SIGTERM; `edit`:
# edits its worktree until killed; `listen`: keeps every byte its terminal receives).
out="$HOME/worker.out"
case "$1" in
  wait) /bin/sh "$2" prove exit > /dev/null 2>&1 ;;
  hooks-only|bridge-only) /bin/sh "$2" "$1" exit > /dev/null 2>&1 ;;
esac
{
  echo "cwd=$(pwd)"
  echo "dispatch=$OMS_DISPATCH_ID"
  echo "session=$OMS_SESSION_ID"
  echo "executable=$OMS_EXECUTABLE"
  echo "home=$HOME"
  echo "secret=${OMS_TEST_SECRET:-absent}"
} > "$out.tmp" && mv "$out.tmp" "$out"
case "$1" in
  exit0) exit 0 ;;
  exit3) exit 3 ;;
  exit3-when-told)  # exits 3 once the test writes $HOME/go: a pane that ends after its launch
    while [ ! -e "$HOME/go" ]; do sleep 0.05; done; exit 3 ;;
  stubborn) trap '' HUP TERM; exec sleep 600 ;;
  listen)  # every byte its terminal receives, raw (no line discipline), into $HOME/heard
    stty raw -echo && exec cat > "$HOME/heard" ;;
  edit)  # edits its worktree without end: appends, rewrites, deletes, new folders (salvage tests)
    i=0
    while :; do
      i=$((i + 1))
      echo "edit $i" >> edits.log
      mkdir -p "made/d$((i % 3))" && echo "$i" > "made/d$((i % 3))/f$((i % 5)).txt"
      [ $((i % 4)) = 0 ] && rm -f "made/d$(((i + 1) % 3))/f$(((i + 2) % 5)).txt"
      echo "rewritten by $i" > README.md
      [ $((i % 50)) = 0 ] && sleep 0.01
    done ;;
  *) exec sleep 600 ;;
esac
"""


def sandbox_dir(state: Path) -> Path:
    """The state root's sandbox directory (agent homes, broker sockets, model doors; ADR 0026)."""
    return Path(json.loads((state / "sandboxes.json").read_text())["path"])


def broker_socket(state: Path, dispatch_id: str) -> Path:
    """Where a worker's broker listens."""
    return sandbox_dir(state) / "brokers" / f"{dispatch_id}.sock"


class WorkerOut:
    """What the test worker wrote in its private home (`<sandbox
    dir>/homes/command-<session>/worker.out`), found once it exists; path-like enough for
    `wait_for`. A test with one command worker has exactly one."""

    def __init__(self, state: Path) -> None:
        self.state = state

    def _found(self) -> list[Path]:
        return sorted((sandbox_dir(self.state) / "homes").glob("command-*/worker.out"))

    def exists(self) -> bool:
        found = self._found()
        assert len(found) <= 1, f"more than one worker wrote its output: {found}"
        return bool(found)

    def read_text(self) -> str:
        (found,) = self._found()
        return found.read_text()

    def tell(self) -> None:
        """Write `go` in the worker's home (`exit3-when-told` exits then)."""
        (found,) = self._found()
        (found.parent / "go").write_text("go\n")

    def __str__(self) -> str:
        return f"{sandbox_dir(self.state)}/homes/command-*/worker.out"


def use_worker(chain: Chain, mode: str = "wait") -> WorkerOut:
    """Configure the command worker role to run the test worker script; returns where it reports."""
    script = chain.base / "worker.sh"
    script.write_text(WORKER)
    script.chmod(0o755)
    agent = chain.base / "agent.sh"
    agent.write_text(WORKER_SCRIPT)
    chain.edit_config(
        lambda s: s.replace('argv = ["true"]', f'argv = ["{script}", "{mode}", "{agent}"]'),
        commit=True,
    )
    return WorkerOut(chain.state)


def use_demo_worker(chain: Chain) -> None:
    """Configure the command worker role to run the demo's worker script whole (its change, its
    result) and exit."""
    agent = chain.base / "agent.sh"
    agent.write_text(WORKER_SCRIPT)
    agent.chmod(0o755)
    chain.edit_config(
        lambda s: s.replace('argv = ["true"]', f'argv = ["/bin/sh", "{agent}", "full", "exit"]'),
        commit=True,
    )


def accepted(chain: Chain, title: str = "Fix the flaky test") -> tuple[str, str]:
    """(dispatch id, delivery event id) of a reviewed and accepted dispatch."""
    _, _, dispatch_id = chain.proposed(title)
    with chain.workspace() as ws:
        dispatches.review(ws, dispatch_id)
        _, event_id = dispatches.accept(ws, dispatch_id)
    return dispatch_id, event_id


def wait_for(path: Path | WorkerOut, timeout: float = 30.0) -> str:
    """The text of `path` once it exists (the test worker writes it atomically)."""
    eventually(path.exists, timeout=timeout, what=f"{path} appears")
    return path.read_text()


def wait_served(chain: Chain, dispatch_id: str, timeout: float = 30.0) -> None:
    """Wait until the pane's supervisor has taken its launch spec and serves its broker (the sandbox
    runs)."""
    spec = chain.state / "panes" / f"{dispatch_id}.launch.json"
    sock = broker_socket(chain.state, dispatch_id)
    eventually(
        lambda: not spec.exists() and sock.exists(),
        timeout=timeout,
        what=f"the supervisor of {dispatch_id} serves its broker",
    )

"""No byte of work lost (issue 14): a real sandboxed worker editing its worktree without end —
appending, rewriting a tracked file, making folders, deleting what it made — is ended at a random
point in one of five ways (`oms worker stop`, a deadline stop, its tmux session killed, the whole
tmux server killed, its agent SIGKILLed inside the sandbox), 50 times. Each time the end record
names a salvage ref, and the salvage commit holds exactly what the worktree holds once the agent is
gone: every file, every byte."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from oms.canonical import access
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, use_worker
from tests.helpers import eventually

ROUNDS = 50
SEED = int(os.environ.get("OMS_SALVAGE_SEED", "1414"))
WAYS = ("stop", "deadline", "kill-session", "kill-server", "kill-agent")


def _agent_pids(dispatch_id: str) -> list[int]:
    """The test worker's shell in `edit` mode, found by its dispatch in its environment (only
    read)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if f"OMS_DISPATCH_ID={dispatch_id}".encode() in environ.split(
            b"\0"
        ) and b"edit" in cmdline.split(b"\0"):
            found.append(int(entry))
    return found


def _edits(worktree: Path) -> int:
    try:
        return (worktree / "edits.log").read_bytes().count(b"\n")
    except OSError:
        return 0


def _wait(what: str, check: Callable[[], object], timeout: float = 30.0) -> None:
    eventually(check, timeout=timeout, what=what)


def _edited(worktree: Path, wanted: int) -> bool:
    return _edits(worktree) >= wanted


def _disk(worktree: Path) -> dict[str, bytes]:
    files = {}
    for dirpath, dirnames, filenames in os.walk(worktree):
        dirnames[:] = [d for d in dirnames if not (dirpath == str(worktree) and d == ".git")]
        for name in filenames:
            if dirpath == str(worktree) and name == ".git":  # a worktree's link to its repository
                continue
            path = Path(dirpath, name)
            files[str(path.relative_to(worktree))] = path.read_bytes()
    return files


def _committed(worktree: Path, commit: str) -> dict[str, bytes]:
    """Every file of `commit` and its bytes (two git processes, not one a file)."""
    git = ["git", "-C", str(worktree)]
    listed = subprocess.run([*git, "ls-tree", "-r", "-z", commit], capture_output=True, check=True)
    entries = [line.partition(b"\t") for line in filter(None, listed.stdout.split(b"\0"))]
    for meta, _, name in entries:
        assert meta.split()[1] == b"blob", (meta, name)
    batch = b"".join(meta.split()[2] + b"\n" for meta, _, _ in entries)
    cat = [*git, "cat-file", "--batch"]
    rest = subprocess.run(cat, input=batch, capture_output=True, check=True).stdout
    out = {}
    for _, _, name in entries:  # `<sha> blob <size>`, the bytes, a newline; in the order asked
        header, _, rest = rest.partition(b"\n")
        size = int(header.split()[2])
        out[name.decode()], rest = rest[:size], rest[size + 1 :]
    assert rest == b""
    return out


def _end(deliverable: Chain, dispatch_id: str, way: str) -> None:
    sock = str(deliverable.state / "tmux.sock")
    with deliverable.workspace() as ws:
        d = Delivery.open(ws)
        if way == "stop":
            d.stop(dispatch_id, "salvage test")
        elif way == "deadline":
            d.stop(
                dispatch_id, "ran past its role's limit", end_reason="deadline", by="oms-conductor"
            )
        elif way == "kill-session":
            subprocess.run(
                ["tmux", "-S", sock, "kill-session", "-t", f"={dispatch_id}"], check=False
            )
        elif way == "kill-server":
            subprocess.run(["tmux", "-S", sock, "kill-server"], check=False)
        else:
            for pid in _agent_pids(dispatch_id):  # the shell, and any fork of it not yet exec'd
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def ended() -> bool:
        with deliverable.workspace() as ws:
            return Delivery.open(ws).observe(dispatch_id)["worker_health"] == "stopped"

    _wait(f"the end of {dispatch_id} ({way})", ended)
    _wait(f"no agent of {dispatch_id} left", lambda: not _agent_pids(dispatch_id))


@pytest.mark.slow
def test_every_edit_of_a_killed_worker_is_recoverable(deliverable: Chain) -> None:
    use_worker(deliverable, mode="edit")
    rng = random.Random(SEED)
    seen: dict[str, int] = {}
    for n in range(ROUNDS):
        way = WAYS[n % len(WAYS)] if n < len(WAYS) else rng.choice(WAYS)
        dispatch_id, event_id = accepted(deliverable, title=f"salvage round {n}")
        with deliverable.workspace() as ws:
            payload = ws.store.records("dispatch").read(dispatch_id).payload
            outcome = Delivery.open(ws).deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "created", outcome
        worktree = Path(access.text(payload, "worktree_path"))
        wanted = rng.randint(1, 300)
        _wait(f"{wanted} edits", partial(_edited, worktree, wanted))
        _end(deliverable, dispatch_id, way)
        with deliverable.workspace() as ws:
            worker = ws.store.records("worker").read(dispatch_id).payload
        ref, commit = worker.get("salvage_ref"), worker.get("salvage_commit")
        assert ref == f"refs/oms/salvage/{payload['ticket_id']}/{payload['attempt']}", (
            n,
            way,
            worker,
        )
        assert isinstance(commit, str)
        disk, kept = _disk(worktree), _committed(worktree, commit)
        assert disk == kept, f"round {n} ({way}): {sorted(set(disk) ^ set(kept))[:5]}"
        assert _edits(worktree) >= wanted
        seen[way] = seen.get(way, 0) + 1
    assert set(seen) == set(WAYS), seen

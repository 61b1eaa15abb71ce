"""The tree race's rig: the host secrets an attacker aims at, the hands that run the attacker where
an agent runs, the round handshake, and the search for host bytes wherever oms writes (see
`__init__.py`).

A hand is how the attacker gets into an agent's place. `CommandHand` delivers a command worker whose
argv runs it (the real pipeline: `oms worker deliver`, its pane, its supervisor, its sandbox).
`SandboxHand` starts it in the worker sandbox's plan (`adapters/sandbox.py`) around a worktree that
lives for one round (a removal). A real agent CLI is a hand too: its shell tool, driven by the
loopback model mock (`tests/model_mock.py`, as `tests/security/test_escapes.py` drives Claude Code's
Bash tool and Codex's `exec_command`), starts the same program in the background (`nohup
/usr/bin/python3 <program> rounds &`, the program committed into the repository so the worktree
holds it) and returns; it then answers rounds through its home, like the command worker (see
`Hand`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import secrets as random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from oms.adapters import bwrap
from oms.adapters.sandbox import GIT_SHOWN, HOME_VIEW, Layout, bwrap_args
from oms.canonical import access
from oms.services import dispatches
from oms.services.delivery import Delivery
from tests.chain import Chain, sandbox_dir
from tests.helpers import git
from tests.security.tree_race.attacker import program

FILLER = 120  # filler files per depth: what oms reads before it reaches `zzz/`
# Rounds per operation (the default suite: 200).
ROUNDS = int(os.environ.get("OMS_TREE_RACE_ROUNDS", "200"))
WAIT_S = 60.0


# ----------------------------------------------------------------------------------------------
# secrets
@dataclass
class Secrets:
    """The host files an attacker aims at: the state key, a planted `~/.ssh/id_rsa` of the fake
    home, and a file only the user can read; what to look for (their bytes and distinctive parts of
    them, raw, hex and base64) and what they held."""

    files: dict[str, Path]
    needles: dict[str, bytes] = field(default_factory=dict)
    held: dict[Path, bytes] = field(default_factory=dict)

    @classmethod
    def plant(cls, state: Path, home: Path, base: Path) -> Secrets:
        ssh = home / ".ssh"
        ssh.mkdir(parents=True, exist_ok=True)
        ssh.chmod(0o700)
        token = random.token_hex(12)
        begin, end = "-----BEGIN OPENSSH PRIVATE KEY-----", "-----END OPENSSH PRIVATE KEY-----"
        (ssh / "id_rsa").write_text(f"{begin}\ntree-race-ssh-{token}\n{end}\n")
        (ssh / "id_rsa").chmod(0o600)
        private = base / "private"
        private.mkdir(exist_ok=True)
        private.chmod(0o700)
        mine = random.token_hex(12)
        (private / "secret.txt").write_text(f"tree-race-private-{mine}\n")
        (private / "secret.txt").chmod(0o600)
        files = {
            "the state key": state / "keys" / "state.ed25519",
            "the planted ssh key": ssh / "id_rsa",
            "the user-only file": private / "secret.txt",
        }
        key = files["the state key"].read_bytes()
        needles = {
            "the state key's bytes": key,
            "half of the state key": key[: len(key) // 2],
            "the state key in hex": key.hex().encode(),
            "the state key in base64": base64.b64encode(key).rstrip(b"="),
            "the state key in url-safe base64": base64.urlsafe_b64encode(key).rstrip(b"="),
            "the ssh key's token": f"tree-race-ssh-{token}".encode(),
            "the user-only file's token": f"tree-race-private-{mine}".encode(),
        }
        return cls(files, needles, {path: path.read_bytes() for path in files.values()})

    def targets(self, filler: int = FILLER) -> dict[str, Any]:
        """What the attacker aims at: the folders and files, as host paths (and how much filler it
        makes)."""
        folders = [str(path.parent) for path in self.files.values()]
        files = [[str(p.parent), p.name] for p in self.files.values()]
        return {"dirs": folders, "files": files, "filler": filler}

    def found_in(self, data: bytes) -> list[str]:
        return [name for name, needle in self.needles.items() if needle in data]

    def harmed(self) -> list[str]:
        """Host files changed or gone (a removal or a reset through a link), and their folders'
        listings."""
        out = []
        for path, data in self.held.items():
            if not path.is_file() or path.read_bytes() != data:
                out.append(f"{path} was changed or removed")
        return out


def leaks(repo: Path, state: Path, found: Secrets, messages: list[str]) -> list[str]:
    """Where host bytes ended up: any object of the repository (all of them, reachable or not), any
    other file of its `.git` (refs, logs, indexes, worktree admin dirs), any file of the state root
    but the key itself and the agents' own homes (records, evidence, logs, the ledger), any message
    oms gave."""
    out: list[str] = []
    every = ["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"]
    objects = subprocess.run(every, capture_output=True, check=True).stdout
    out += [f"the repository's objects hold {name}" for name in found.found_in(objects)]
    for top, skip in ((repo / ".git", ("objects",)), (state, ("keys", "tmp"))):
        for dirpath, dirnames, filenames in os.walk(top):
            if Path(dirpath) == top:
                dirnames[:] = [d for d in dirnames if d not in skip]
            for name in filenames:
                path = Path(dirpath, name)
                with contextlib.suppress(OSError):
                    if not path.is_symlink() and path.is_file():
                        held = found.found_in(path.read_bytes())
                        out += [f"{path} holds {what}" for what in held]
    for text in messages:
        out += [f"a message holds {what}: {text[:200]}" for what in found.found_in(text.encode())]
    return out


# ----------------------------------------------------------------------------------------------
# rounds
class Rounds:
    """The handshake with a long-lived attacker through its home (`attacker.py`, mode `rounds`)."""

    def __init__(self, home: Path, why: Any = str, first: int = 0) -> None:
        self.home, self.why, self.n = home, why, first

    def _wait(self, name: str) -> dict[str, Any]:
        path = self.home / name
        deadline = time.monotonic() + WAIT_S
        while not path.exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"the attacker never wrote {name}\n{self.why()}")
            time.sleep(0.001)
        doc = json.loads(path.read_text())
        assert isinstance(doc, dict)
        return doc

    def _write(self, name: str, doc: dict[str, Any] | None = None) -> None:
        tmp = self.home / f"{name}.tmp"
        tmp.write_text(json.dumps(doc or {}))
        tmp.rename(self.home / name)

    @contextlib.contextmanager
    def round(self, trigger: str = "named", *, committed: bool = False) -> Iterator[dict[str, Any]]:
        """Arm round n, let the caller run oms's operation, then have the attacker undo its swap;
        the dict yielded is filled with what the attacker did (`swapped`, `depth`, `kind`,
        `target`). `trigger`: `named` (a file of the bait opened, read or deleted), `delete` (one
        deleted) or `any` (its folder opened too); `committed`: the bait is tracked, the attacker
        changes nothing before its swap."""
        n = self.n
        self._write(f"go-{n}", {"trigger": trigger, "committed": committed})
        self._wait(f"armed-{n}")
        outcome: dict[str, Any] = {}
        try:
            yield outcome
        finally:
            self._write(f"done-{n}")
            outcome.update(self._wait(f"result-{n}"))
            for name in (f"go-{n}", f"armed-{n}", f"done-{n}", f"result-{n}"):
                with contextlib.suppress(FileNotFoundError):
                    (self.home / name).unlink()
            self.n += 1

    def stop(self) -> None:
        self._write("stop")


# ----------------------------------------------------------------------------------------------
# hands
@dataclass
class Running:
    """An attacker running where an agent runs: on `worktree`, answering rounds through `home`."""

    worktree: Path
    home: Path
    rounds: Rounds
    dispatch_id: str = ""
    stop: Any = None  # ends it (and everything it started)


class Hand(Protocol):
    """Starts the attacker (the file `program`) in an agent's place on a dispatch of `chain`. A real
    agent CLI's hand scripts its shell tool through the model mock to start `<program> rounds` in
    the background and returns the same `Running`: its worktree, and its home as the host sees it
    (`homes/<cli>-<id>` of the state root's sandbox directory, ADR 0026)."""

    def start(self, chain: Chain, program_path: Path) -> Running: ...


def set_worker_argv(chain: Chain, argv: list[str]) -> None:
    """Point the command worker role at `argv` and commit."""

    def change(text: str) -> str:
        head, marker, tail = text.partition('[roles."oms.command-executor"]')
        end = tail.find("\n[")
        section, rest = (tail, "") if end < 0 else (tail[:end], tail[end:])
        section = re.sub(r"(?m)^argv = .*$", f"argv = {json.dumps(argv)}", section)
        return head + marker + section + rest

    chain.edit_config(change, commit=True)


class CommandHand:
    """A command worker whose argv is the attacker, delivered as oms delivers any worker."""

    def start(self, chain: Chain, program_path: Path) -> Running:
        set_worker_argv(chain, ["/usr/bin/python3", str(program_path), "rounds"])
        ticket_id, _ = chain.leased_ticket("Race the tree")
        with chain.workspace() as ws:
            proposed, _ = dispatches.propose(ws, ticket_id)
            dispatches.review(ws, proposed.record_id)
            _, event_id = dispatches.accept(ws, proposed.record_id)
            outcome = access.obj(Delivery.open(ws).deliver(event_id), "outcome")
            dispatch = ws.store.records("dispatch").read(proposed.record_id)
        assert outcome["status"] == "created", outcome
        home = sandbox_dir(chain.state) / "homes" / f"command-{outcome['session_id']}"
        worktree = Path(access.text(dispatch.payload, "worktree_path"))
        pane = chain.state / "panes" / f"{proposed.record_id}.log"

        def why() -> str:
            return pane.read_text()[-3000:] if pane.exists() else "(no pane log)"

        def stop() -> None:
            with chain.workspace() as ws:
                Delivery.open(ws).stop(proposed.record_id, "the race is over")

        return Running(worktree, home, Rounds(home, why), proposed.record_id, stop)


class SandboxHand:
    """The attacker in the worker sandbox's plan (`adapters/sandbox.py`: what an agent sees of its
    worktree, the git common dir and its home) around a worktree that exists for one round, started
    directly (a removal happens when no worker runs: this is a stronger attacker than any delivered
    one could be)."""

    def start_on(
        self,
        repo: Path,
        worktree: Path,
        home: Path,
        program_path: Path,
        first: int = 0,
    ) -> Running:
        common = repo / ".git"
        gitdir = Path(git("rev-parse", "--absolute-git-dir", cwd=worktree).strip())
        home.mkdir(parents=True, exist_ok=True)
        layout = Layout(
            worktree=str(worktree),
            common_dir=str(common),
            gitdir=str(gitdir),
            home=str(home),
            files=((str(program_path), str(program_path)),),
            git_shown=tuple(n for n in GIT_SHOWN if (common / n).exists()),
        )
        argv = [bwrap.locate(), *bwrap_args(layout, bwrap.host()), "--setenv", "HOME", HOME_VIEW]
        child = subprocess.Popen(
            [*argv, "--", "/usr/bin/python3", str(program_path), "rounds", str(first)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )

        def why() -> str:
            return f"attacker exited {child.poll()}"

        def stop() -> None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait(10)
            if child.stderr is not None:
                child.stderr.close()

        return Running(worktree, home, Rounds(home, why, first), "", stop)


def write_program(base: Path, found: Secrets, filler: int = FILLER) -> Path:
    path = base / "tree_race_attacker.py"
    path.write_text(program(found.targets(filler)))
    path.chmod(0o755)
    return path


def environment(mp: Any, base: Path) -> Path:
    """A fake user home with an oms executable to run, as `tests/security/test_escapes.py` sets it
    up: the host's HOME (which the sandbox never shows) is where the planted ssh key lies."""
    home = base / "user-home"
    home.mkdir(exist_ok=True)
    mp.setenv("HOME", str(home))
    binary = os.environ.get("OMS_TEST_BINARY")
    executable = os.path.abspath(binary) if binary else str(Path(sys.executable).parent / "oms")
    mp.setenv("OMS_EXECUTABLE", executable)
    return home


def summary(outcomes: list[dict[str, Any]]) -> str:
    """How the rounds went: swaps made, by kind; what oms answered."""
    swapped = [o for o in outcomes if o.get("swapped")]
    kinds: dict[str, int] = {}
    for o in swapped:
        kinds[str(o["kind"])] = kinds.get(str(o["kind"]), 0) + 1
    answers: dict[str, int] = {}
    for o in outcomes:
        key = str(o.get("answer", ""))[:60]
        answers[key] = answers.get(key, 0) + 1
    raced = f"{len(swapped)} swapped mid-operation {kinds}"
    return f"{len(outcomes)} rounds, {raced}; oms answered {answers}"

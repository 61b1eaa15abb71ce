"""The tree race's rig: the host secrets an attacker aims at, the hands that run the attacker where
an agent runs, the round handshake, and the search for host bytes wherever oms writes (see
`__init__.py`).

A hand is how the attacker gets into an agent's place. `CommandHand` delivers a command worker whose
argv runs it (the real pipeline: `oms worker deliver`, its pane, its supervisor, its sandbox).
`CliHand` delivers the real Claude Code or Codex against the loopback model mock
(`tests/model_mock.py`, as `tests/security/containment/test_escapes_from_a_worker_sandbox.py` drives
them): the scripted model reads and acknowledges the dispatch, then has the CLI's own shell tool
start the program, committed into the repository so the worktree holds it — Claude Code's Bash tool
in the background (`nohup ... &`), Codex's `exec_command` as a session of its own that runs on — and
then holds its next answer: the agent's turn stays in flight, the CLI idle and its sandbox alive,
while the host runs its rounds.
Released, the model asks the same shell tool to read back what the repository holds (the
attacker's `readback`), so whatever oms let in travels through the CLI to the model, whose every
request the mock keeps. `SandboxHand` starts the program in the worker sandbox's plan
(`adapters/sandbox.py`) around a worktree that lives for one round (a removal).

A hand lives as long as its tests' module (one session for every operation); the rounds of an
operation are split between the hands (`ROUNDS` in all: `SHARES`).
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from oms.adapters import bwrap
from oms.adapters.sandbox import GIT_SHOWN, HOME_VIEW, Layout, bwrap_args
from oms.canonical import access
from oms.services.chain import dispatches
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, sandbox_dir
from tests.helpers import eventually, git, stray_proxies
from tests.model_mock import Call, Hold, ModelMock, Script
from tests.security.tree_race.attacker import program

FILLER = 120  # filler files per depth: what oms reads before it reaches `zzz/`
# Rounds per operation (the default suite: 200), split between the hands where an agent runs.
ROUNDS = int(os.environ.get("OMS_TREE_RACE_ROUNDS", "200"))
SHARES = {"command": 140, "claude": 30, "codex": 30}  # of every 200 rounds of a live worker's tree
WAIT_S = 60.0
START_S = 120.0  # a real CLI's start, until its shell tool has started the attacker
HOLD_S = 1800.0  # the model's held answer: longer than a hand's rounds take
PROGRAM = "tree_race_attacker.py"  # where a real CLI finds the program: committed, in its worktree
CHANNEL = ".race"  # Codex's channel: a folder of its worktree that git ignores (its home is r/o)


def rounds_of(hand: str) -> int:
    """The rounds of each live-worker operation this hand runs (at least one)."""
    return max(1, ROUNDS * SHARES[hand] // sum(SHARES.values()))


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


def leaks(
    repo: Path,
    state: Path,
    found: Secrets,
    messages: list[str],
    agent: tuple[Path, ...] = (),
    heard: list[bytes] | None = None,
) -> list[str]:
    """Where host bytes ended up: any object of the repository (all of them, reachable or not), any
    other file of its `.git` (refs, logs, indexes, worktree admin dirs), any file of the state root
    but the key itself (records, evidence, logs, the ledger), any message oms gave; any file of the
    `agent`'s own folders (its worktree and home: what it can read, its CLI's transcripts) and
    anything its CLI sent the model (`heard`, each request's body as it came)."""
    out: list[str] = []
    every = ["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"]
    objects = subprocess.run(every, capture_output=True, check=True).stdout
    out += [f"the repository's objects hold {name}" for name in found.found_in(objects)]
    places = [(repo / ".git", ("objects",)), (state, ("keys", "tmp"))]
    places += [(folder, ()) for folder in agent]
    for top, skip in places:
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
    for n, body in enumerate(heard or []):
        out += [f"request {n} to the model holds {what}" for what in found.found_in(body)]
    return out


# ----------------------------------------------------------------------------------------------
# rounds
class Rounds:
    """The handshake with a long-lived attacker through its home (`attacker.py`, mode `rounds`)."""

    def __init__(self, home: Path, why: Any = str, first: int = 0) -> None:
        self.home, self.why, self.n = home, why, first

    def _wait(self, name: str) -> dict[str, Any]:
        path = self.home / name
        self._until(path.exists, f"the attacker writes {name}", poll=0.001)
        doc = json.loads(path.read_text())
        assert isinstance(doc, dict)
        return doc

    def _until(self, done: Callable[[], bool], what: str, poll: float = 0.01) -> None:
        """Until `done()` holds (polling every `poll` s: a round's timing is the attacker's), or
        fail with what the rig shows (`why`)."""

        def holds() -> bool:
            if done():
                return True
            raise AssertionError(self.why())

        eventually(holds, timeout=WAIT_S, what=what, first_poll=poll, max_poll=poll)

    def _write(self, name: str, doc: dict[str, Any] | None = None) -> None:
        # a channel in the worktree: the attacker makes it first
        self._until(self.home.is_dir, f"the attacker makes its channel {self.home}")
        tmp = self.home / f"{name}.tmp"
        tmp.write_text(json.dumps(doc or {}))
        tmp.rename(self.home / name)

    def read_back(self, base: str) -> str:
        """What the attacker reads back of the repository (its `readback`, from commit `base`),
        asked through the channel."""
        self._write("readback", {"base": base})
        path = self.home / "readback-out"
        self._until(path.exists, "the attacker reads back")
        return path.read_text()

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
    """An attacker running where an agent runs: on `worktree`, answering rounds through `home` (its
    channel); `agent`: the agent's own folders (its worktree and home) as the host sees them."""

    worktree: Path
    home: Path
    rounds: Rounds
    dispatch_id: str = ""
    stop: Any = None  # ends it (and everything it started)
    agent: tuple[Path, ...] = ()
    heard: Callable[[], list[bytes]] = list  # everything the agent's CLI sent its model
    read_back: Callable[[str], str] | None = None  # (base commit) -> what the agent reads back


class Hand(Protocol):
    """Starts the attacker (the file `program`) in an agent's place on a dispatch of `chain`, and
    returns it `Running`: its worktree, its channel and home as the host sees them
    (`homes/<cli>-<id>` of the state root's sandbox directory, ADR 0026)."""

    name: str

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


def _pane(chain: Chain, dispatch_id: str) -> Callable[[], str]:
    """What the pane showed and logged (for a failure message)."""

    def why() -> str:
        sock, target = str(chain.state / "tmux.sock"), f"={dispatch_id}:"
        shown = ["tmux", "-S", sock, "capture-pane", "-p", "-t", target]
        parts = [subprocess.run(shown, capture_output=True, text=True, check=False).stdout.strip()]
        for suffix in ("log", "exit.json"):
            path = chain.state / "panes" / f"{dispatch_id}.{suffix}"
            if path.exists():
                parts.append(f"{path.name}:\n{path.read_text()[-3000:]}")
        return "\n".join(parts)

    return why


class CommandHand:
    """A command worker whose argv is the attacker, delivered as oms delivers any worker."""

    name = "command"

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
        rounds = Rounds(home, _pane(chain, proposed.record_id))

        def stop() -> None:
            with chain.workspace() as ws:
                Delivery.open(ws).stop(proposed.record_id, "the race is over")

        return Running(
            worktree,
            home,
            rounds,
            proposed.record_id,
            stop,
            agent=(worktree, home),
            read_back=rounds.read_back,
        )


@dataclass(frozen=True)
class Cli:
    """A real agent CLI as the attacker's hand: its role and model in the scaffold's config, the
    mock's endpoint path, how its shell tool starts a program that runs on and runs one that ends,
    and the channel (None: its home)."""

    name: str
    role: str
    model: str
    transport: str
    path: str
    start: Callable[[str], Call]
    run: Callable[[str], Call]
    channel: str | None


def _bash(command: str) -> Call:
    return Call("Bash", {"command": command, "description": "race the tree"})


CLIS = {
    "claude": Cli(
        "claude",
        "oms.ticket-executor",
        "sonnet",
        "claude_interactive",
        "",
        lambda argv: _bash(f"nohup {argv} > /dev/null 2>&1 & echo started"),
        _bash,
        None,
    ),
    "codex": Cli(  # a session of its own: what a command leaves behind dies with the command
        "codex",
        "oms.goal-long-executor",
        "gpt-6.2-sol",
        "codex_goal",
        "/v1",
        lambda argv: Call("exec_command", {"cmd": f"exec {argv} {CHANNEL}", "yield_time_ms": 500}),
        lambda argv: Call("exec_command", {"cmd": argv, "yield_time_ms": 30_000}),
        CHANNEL,
    ),
}


PROMPT_UNSENT_S = 15.0  # delivery said the agent took its prompt; past this, look whether it did


def _started(chain: Chain, dispatch_id: str, session_id: str, mock: ModelMock) -> bool:
    """Wait until the scripted model holds its answer (the CLI's shell tool has started the
    attacker). Delivery can report an agent activated while its prompt still sits unsent in the
    composer: on a loaded machine Claude Code's SessionStart hook, which it fires once started, came
    after the prompt was typed and its Enter went before the CLI took keys, and that hook counts as
    the agent having taken the prompt (`services/launcher.HookWitness`). Then, once, this presses
    the Enter a person would (and says so): the race is about the tree, not the activation."""
    deadline = time.monotonic() + START_S
    nudged = False
    while not mock.holding.wait(PROMPT_UNSENT_S):
        if time.monotonic() > deadline:
            return False
        with chain.workspace() as ws:
            session = ws.store.records("session").read(session_id)
        turned = any(seen.tools for seen in mock.seen)  # a request of a turn (not a title's)
        if nudged or session.payload.get("agent_prompted_at") is not None or turned:
            continue
        print(f"the agent of {dispatch_id} never took its prompt: pressing its Enter")
        sock = str(chain.state / "tmux.sock")
        enter = ["tmux", "-S", sock, "send-keys", "-t", f"={dispatch_id}:", "Enter"]
        subprocess.run(enter, capture_output=True, check=False)
        nudged = True
    return True


class CliHand:
    """The real Claude Code or Codex, its shell tool starting the attacker (see the module
    docstring)."""

    def __init__(self, cli: Cli) -> None:
        self.cli, self.name = cli, cli.name

    def _on_the_mock(self, chain: Chain, mock: ModelMock) -> None:
        cli = self.cli
        line = rf'^model = "{re.escape(cli.model)}"[^\n]*\n(?=transport = "{cli.transport}")'
        endpoint = f'model = "test-model"\nendpoint = "{mock.base}{cli.path}"\n'

        def change(text: str) -> str:
            role = f'role = "{cli.role}"'
            text = text.replace('role = "oms.command-executor"', role)
            changed, n = re.subn(line, endpoint, text, flags=re.MULTILINE)
            assert n == 1, f"the scaffold's {cli.role} model is not {cli.model}"
            return changed

        chain.edit_config(change)

    def start(self, chain: Chain, program_path: Path) -> Running:
        cli = self.cli
        mock = ModelMock(Script([]), hold_s=HOLD_S).start()
        self._on_the_mock(chain, mock)
        (chain.repo / PROGRAM).write_text(program_path.read_text())
        with (chain.repo / ".gitignore").open("a") as ignored:
            ignored.write(f"/{CHANNEL}/\n")
        chain.commit("the worker role on the mock; the attacker, in the worktree the agent gets")
        base = git("rev-parse", "HEAD", cwd=chain.repo).strip()
        argv = f"/usr/bin/python3 {PROGRAM}"
        mock.script = Script(
            [
                Call("read_dispatch", {}),
                Call("acknowledge_dispatch", {}),
                cli.start(f"{argv} rounds 0"),
                Hold(cli.run(f"{argv} readback {base}")),
            ]
        )
        dispatch_id, event_id = accepted(chain, "Race the tree")
        with chain.workspace() as ws:
            outcome = access.obj(Delivery.open(ws).deliver(event_id), "outcome")
            dispatch = ws.store.records("dispatch").read(dispatch_id)
        home = sandbox_dir(chain.state) / "homes" / f"{cli.name}-{outcome.get('session_id')}"
        worktree = Path(access.text(dispatch.payload, "worktree_path"))
        pane = _pane(chain, dispatch_id)

        def why() -> str:
            said = [text[:400] for seen in mock.seen for _, text in seen.results]
            return f"the model heard {said[-3:]}\n{pane()}"

        def stop() -> None:
            try:
                with chain.workspace() as ws:
                    Delivery.open(ws).stop(dispatch_id, "the race is over")
            finally:
                mock.stop()
                for pid in stray_proxies(str(chain.state).encode()):
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGTERM)

        try:
            assert outcome["status"] == "created", outcome
            session_id = access.text(outcome, "session_id")
            started = _started(chain, dispatch_id, session_id, mock)
            assert started, f"{cli.name} never started the attacker\n{why()}"
        except BaseException:
            stop()
            raise
        channel = home if cli.channel is None else worktree / cli.channel

        def read_back(_base: str) -> str:  # (the script names the base: it was written first)
            mock.release.set()  # the held answer: the shell tool reads the repository back

            def said() -> list[str]:
                found = [t for s in mock.seen for _, t in s.results if "READBACK" in t]
                if found:
                    return found
                raise AssertionError(why())

            return eventually(said, timeout=WAIT_S, what=f"{cli.name} reads the repository back")[0]

        return Running(
            worktree,
            channel,
            Rounds(channel, why),
            dispatch_id,
            stop,
            agent=(worktree, home),
            heard=lambda: list(mock.bodies),
            read_back=read_back,
        )


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


ANTHROPIC_KEY = "sk-ant-api03-tree-race-" + "c3d4e5f6" * 4  # the proxy's, never an agent's
OPENAI_KEY = "sk-proj-tree-race-" + "a7b8c9d0" * 4


def environment(mp: Any, base: Path) -> Path:
    """A fake user home with an oms executable to run, as
    `tests/security/containment/test_escapes_from_a_worker_sandbox.py` sets it up: the host's HOME
    (which the sandbox never shows) is where the planted ssh key lies; API keys for the model proxy
    a real CLI's requests go through (ADR 0026)."""
    home = base / "user-home"
    home.mkdir(exist_ok=True)
    mp.setenv("HOME", str(home))
    binary = os.environ.get("OMS_TEST_BINARY")
    executable = os.path.abspath(binary) if binary else str(Path(sys.executable).parent / "oms")
    mp.setenv("OMS_EXECUTABLE", executable)
    mp.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    mp.setenv("OPENAI_API_KEY", OPENAI_KEY)
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

"""A worker under attack, and its neighbour: what a fork bomb and a 4 GiB allocation in one
sandbox do to another worker's hooks and to `oms status` (issue 23, ADR 0025).

    .venv/bin/python bench/limits_bench.py [--samples 30] [--small] [--executable dist/oms/oms]

A real repository, real worktrees, a real tmux server, real bubblewrap sandboxes and this host's
cgroups, in a fresh HOME. Two command workers run the same script: the neighbour waits; the attacker
waits for a word in its private home, then either forks without end, every child forking too (a
fork bomb: its pids limit stops it, and its supervisor ends it with `limit: pids`), or touches
4 GiB page by page (its memory limit stops it: `limit: memory`; a second attacker is delivered for
that). Timed, the cases taking turns with nothing else:
* the neighbour's hook round trip: a PreToolUse relayed by `oms hook provider` (from `--executable`,
  by default the frozen binary when dist/ has one), and the same request sent to its broker by this
  process;
* `oms status --json` answering.
Idle (the attacker waiting), then from the word until the attacker's end is recorded and at least
`--samples` round trips were made (the attack and its aftermath: teardown, reclaim). The report
gives each p50, the ratio to idle (the target: a hook p50 within 2 x its idle value), and how each
attacker ended. `--small` (CI): 5 samples per case and phase, the same phases, the memory bound
lowered to 512 MiB (the 4 GiB allocation is then ended sooner, and lighter on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, p90_ms, print_ratio, scratch_anchors, table
from tests.chain import Chain, broker_socket, make_chain, sandbox_dir
from tests.integration.test_delivery_concurrency import make_events

REPO = Path(__file__).resolve().parent.parent
READY_S = 20.0
END_S = 60.0
ATTACK = r"""
import os, sys, time
home = os.environ["HOME"]
while not os.path.exists(home + "/go"):
    time.sleep(0.05)
word = open(home + "/go").read().strip()
if word == "bomb":  # every process forks again, and again: the classic one, spinning once it cannot
    while True:
        try:
            os.fork()
        except OSError:
            pass
elif word == "memory":
    b = bytearray(4 << 30)  # zeroed: every page touched
    print(len(b))
time.sleep(600)
"""
ALLOWED_TOOL = "mcp__oms_worker__read_dispatch"


def fresh_home(scratch: Path) -> dict[str, str]:
    """A HOME of its own, with a git identity only in the environment (none in any file)."""
    home = scratch / "home"
    home.mkdir()
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    for who in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{who}_NAME"] = "oms bench"
        env[f"GIT_{who}_EMAIL"] = "bench@oms.invalid"
    return env


def default_executable() -> str:
    frozen = REPO / "dist" / "oms" / "oms"
    return str(frozen) if frozen.is_file() else str(Path(sys.executable).parent / "oms")


class Worker:
    """One delivered worker: its ids, its broker's socket, its private home."""

    def __init__(self, state: Path, dispatch_id: str, session_id: str) -> None:
        self.state = state
        self.dispatch_id = dispatch_id
        self.session_id = session_id
        self.socket = broker_socket(state, dispatch_id)  # in the sandbox directory (ADR 0026)
        self.home = sandbox_dir(state) / "homes" / f"command-{session_id}"
        self.exit = state / "panes" / f"{dispatch_id}.exit.json"

    def hook_argv(self) -> list[str]:
        from oms.provider_names import HOOK_CONTRACT

        argv = ["--event", "PreToolUse", "--provider", "command"]
        argv += ["--provider-version", HOOK_CONTRACT["command"], "--dispatch-id", self.dispatch_id]
        return [*argv, "--session-id", self.session_id, "--allowed-tools", ""]

    def payload(self) -> bytes:
        doc = {"session_id": self.session_id, "hook_event_name": "PreToolUse"}
        doc["tool_name"] = ALLOWED_TOOL
        return json.dumps(doc).encode()


def deliver(chain: Chain, event_id: str) -> Worker:
    from oms.canonical import access
    from oms.services.delivery.service import Delivery

    with chain.workspace() as ws:
        outcome = access.obj(Delivery.open(ws).deliver(event_id), "outcome")
    assert outcome["status"] == "created", outcome
    worker = Worker(chain.state, str(outcome["dispatch_id"]), str(outcome["session_id"]))
    deadline = time.monotonic() + READY_S
    while not (worker.socket.exists() and worker.home.is_dir()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"worker {worker.dispatch_id} does not serve after {READY_S} s")
        time.sleep(0.01)
    return worker


def direct_hook(worker: Worker) -> Callable[[], None]:
    """The hook request sent to the broker by this process (no relay process)."""
    from oms.domain.relay import encode_header, parse_answer

    frame = encode_header("hook", worker.hook_argv()) + worker.payload()

    def once() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)
            sock.connect(str(worker.socket))
            sock.sendall(frame)
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        out, err = parse_answer(b"".join(chunks))
        if err or out != b"{}\n":
            raise RuntimeError(f"the broker answered {out!r} {err!r}")

    return once


def relay_hook(worker: Worker, executable: str, env: dict[str, str]) -> Callable[[], None]:
    """`oms hook provider`, as the agent CLI runs it, relaying to the neighbour's broker."""
    argv = [executable, "hook", "provider", *worker.hook_argv()]
    relay_env = {**env, "OMS_BROKER_SOCKET": str(worker.socket)}

    def once() -> None:
        data = worker.payload()
        done = subprocess.run(argv, input=data, capture_output=True, env=relay_env, check=True)
        if done.stderr or done.stdout != b"{}\n":
            raise RuntimeError(f"the relay answered {done.stdout!r} {done.stderr!r}")

    return once


def status(executable: str, chain: Chain, env: dict[str, str]) -> Callable[[], None]:
    argv = [executable, "status", "--json", "--state-root", str(chain.state)]
    argv += ["--config-root", str(chain.repo)]

    def once() -> None:
        subprocess.run(argv, capture_output=True, env=env, check=True, timeout=60)

    return once


CASES = ("hook relay PreToolUse", "broker alone: PreToolUse", "`oms status --json`")


Runners = dict[str, Callable[[], None]]
Samples = dict[str, list[float]]


def sample(runners: Runners, until: Callable[[], bool], least: int) -> tuple[Samples, Samples]:
    """Each case in turn, timed, until `until()` holds and each has `least` samples: (the samples
    started before `until()` held, those started after)."""
    before: Samples = {name: [] for name in runners}
    after: Samples = {name: [] for name in runners}
    done = False
    while not done or min(len(before[n]) + len(after[n]) for n in runners) < least:
        for name, run in runners.items():
            done = done or until()
            started = time.perf_counter()
            run()
            (after if done else before)[name].append(time.perf_counter() - started)
    return before, after


def idle(runners: Runners, least: int) -> Samples:
    return sample(runners, lambda: True, least)[1]


def attack(
    attacker: Worker,
    word: str,
    runners: Runners,
    least: int,
) -> tuple[Samples, Samples, float]:
    """Say `word` to the attacker and time the neighbour until the attacker's end is recorded, and
    after (at least `least` samples in all): (during, after, how long the attack lasted)."""
    (attacker.home / "go.tmp").write_text(word + "\n")
    os.replace(attacker.home / "go.tmp", attacker.home / "go")
    started = time.monotonic()
    lasted = [0.0]

    def ended() -> bool:
        if time.monotonic() > started + END_S:
            raise RuntimeError(f"the attacker ({word}) was not ended within {END_S:g} s")
        if not lasted[0] and attacker.exit.exists():
            lasted[0] = time.monotonic() - started
        return bool(lasted[0])

    during, after = sample(runners, ended, least)
    return during, after, lasted[0]


def end_of(chain: Chain, worker: Worker) -> str:
    """The worker's end as oms records it (its pane may outlive the recorded end by a moment)."""
    from oms.services.delivery.service import Delivery

    deadline = time.monotonic() + READY_S
    while True:
        with chain.workspace() as ws:
            Delivery.open(ws).observe(worker.dispatch_id)
            payload = ws.store.records("worker").read(worker.dispatch_id).payload
        reason, detail = payload.get("end_reason"), str(payload.get("end_detail"))
        if reason or time.monotonic() > deadline:
            return detail if detail.startswith(f"{reason}: ") else f"{reason} ({detail})"
        time.sleep(0.05)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", type=int, default=30, help="round trips per case and phase")
    parser.add_argument("--small", action="store_true", help="CI: 5 samples per case and phase")
    binary = default_executable()
    parser.add_argument("--executable", default=binary, help="the oms binary (panes, relays)")
    args = parser.parse_args()
    least = 5 if args.small else args.samples
    executable = os.path.abspath(args.executable)
    os.environ["OMS_EXECUTABLE"] = executable
    scratch = Path(tempfile.mkdtemp(prefix="omsl", dir="/tmp"))  # short: a socket path fits AF_UNIX
    os.environ.update(fresh_home(scratch))
    scratch_anchors()
    env = dict(os.environ)
    (scratch / "c").mkdir()
    chain = next(make_chain(scratch / "c"))
    script = scratch / "attack.py"
    script.write_text(ATTACK)
    command = json.dumps(["/usr/bin/python3", str(script)])
    small = "\n[limits]\nmemory_bytes = 536870912\n" if args.small else ""
    role = f"argv = {command}"
    chain.edit_config(lambda s: s.replace('argv = ["true"]', role) + small, commit=True)
    results: dict[str, Samples] = {}
    ends: dict[str, str] = {}
    lasted: dict[str, float] = {}
    try:
        neighbour_event, bomb_event, memory_event = make_events(chain, 3)
        neighbour = deliver(chain, neighbour_event)
        runners = {
            CASES[0]: relay_hook(neighbour, executable, env),
            CASES[1]: direct_hook(neighbour),
            CASES[2]: status(executable, chain, env),
        }
        bomber = deliver(chain, bomb_event)
        results["idle"] = idle(runners, least)
        during, after, lasted[BOMB] = attack(bomber, "bomb", runners, least)
        results[BOMB], results[f"{BOMB}, aftermath"] = during, after
        ends[BOMB] = end_of(chain, bomber)
        grabber = deliver(chain, memory_event)
        results["idle, again"] = idle(runners, least)
        during, after, lasted[GRAB] = attack(grabber, "memory", runners, least)
        results[GRAB], results[f"{GRAB}, aftermath"] = during, after
        ends[GRAB] = end_of(chain, grabber)
    finally:
        tmux = ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"]
        subprocess.run(tmux, capture_output=True, check=False)
        deadline = time.monotonic() + 15
        made = (chain.state / "sandboxes.json").exists()  # (the sandbox directory, ADR 0026)
        brokers = sandbox_dir(chain.state) / "brokers" if made else None
        while brokers is not None and any(brokers.glob("*.sock")) and time.monotonic() < deadline:
            time.sleep(0.1)  # each supervisor removes its socket once its sandbox has ended
        shutil.rmtree(scratch, ignore_errors=True)
    report(results, ends, lasted)
    return 0


BOMB, GRAB = "fork bomb", "4 GiB allocation"
IDLE = {BOMB: "idle", GRAB: "idle, again"}  # each attack against the idle phase before it


def _idle_of(phase: str) -> str:
    return next((idle for attack, idle in IDLE.items() if phase.startswith(attack)), phase)


def report(results: dict[str, Samples], ends: dict[str, str], lasted: dict[str, float]) -> None:
    rows = []
    for phase, cases in results.items():
        before = results[_idle_of(phase)]
        for name, samples in cases.items():
            if not samples:
                rows.append([phase, name, "0", "-", "-", "-"])
                continue
            p50, p90 = median_ms(samples), p90_ms(samples)
            ratio = p50 / median_ms(before[name])
            row = [phase, name, str(len(samples)), f"{p50:.1f}", f"{p90:.1f}", f"{ratio:.2f}"]
            rows.append(row)
    print(table(["phase", "case", "n", "p50 ms", "p90 ms", "x idle"], rows))
    print()
    for phase, end in ends.items():
        print(f"the attacker ({phase}) lasted {lasted[phase]:.1f} s and ended: {end}")
    ratios = []
    for phase, idle_phase in IDLE.items():
        for name in CASES:
            late = not results[phase][name]  # none started before the attacker's end
            samples = results[f"{phase}, aftermath" if late else phase][name]
            value, base = median_ms(samples), median_ms(results[idle_phase][name])
            ratio = value / base
            verdict = "met" if ratio <= 2 else "MISSED"
            print(f"target, {phase}: {name} p50 <= 2 x idle ({ratio:.2f}: {verdict})")
            stat = "median of the aftermath" if late else "median"
            ratios.append((f"{name}, {phase}", value, f"{name}, {idle_phase}", base, stat))
    print()
    for case, value, baseline, base, stat in ratios:
        print_ratio(case, value, baseline, base, stat=stat)


if __name__ == "__main__":
    raise SystemExit(main())

"""The agent's two doors — thin relays to a live worker's broker — timed from the frozen binary.

    .venv/bin/python bench/agent_doors_bench.py [--runs 40] [--events 5000]

Needs dist/ from `python build/freeze.py`. It runs the frozen `oms demo --json --keep` in a short
scratch directory under /tmp: the demo's worker records its result and then waits in its pane
(`--keep`: the demo does not end it), so its supervisor — the broker, outside the sandbox — keeps
serving `brokers/<dispatch>.sock` in the state root's sandbox directory (docs/adr/0026). The bench
points `OMS_BROKER_SOCKET` at that socket (inside a sandbox the relay finds it at
`/oms/broker.sock`) and runs the relays from the host with the worker's binding (provider
`command`, its hook contract version, the command role's empty tool allow-list), timing
* `oms hook provider` for the events an agent fires most: PreToolUse of an allowed tool (every tool
  call; for the command provider only the bridge's own tools are allowed), UserPromptSubmit, Stop
  (after the result: the gate lets the agent stop); a PreToolUse of a denied tool for comparison;
* the bridge relay: spawn -> `initialize` -> first `tools/call` (`read_dispatch`) answered, by a raw
  client;
* the same hook and bridge requests sent to the broker by this process (no relay process): what the
  broker itself takes;
* the baselines: `node -e 0`, a frozen empty script (PyInstaller's defaults: onedir, --strip) and
  the lean floor (the empty script frozen with oms's own spec choices, see bench/startup_bench.py).
The cases take turns run by run, so a slow spell of the machine does not skew one ratio. Then it
adds `--events` other workers' liveness events to the state root and times UserPromptSubmit again,
by the relay and by this process (a hook's cost must not grow with the state root). The demo's
worker is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    brokers_dir,
    command_runner,
    median_ms,
    p90_ms,
    print_ratio,
    scratch_anchors,
    table,
    time_interleaved,
)
from bench.startup_bench import build_empty, build_lean_empty

try:
    from oms.services.doors.worker_doors import HOOK_RATE
except ModuleNotFoundError:  # a tree from before issue 25's package moves (ef568cd: bench/_common)
    from oms.services.doors import HOOK_RATE  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parent.parent
SOCKET_PATH_MAX = 107  # sun_path is 108 bytes with its NUL
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}
BRIDGE_LINES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "read_dispatch", "arguments": {}},
    },
]
# the command role allows no CLI tool: a bridge tool is allowed
ALLOWED_TOOL = "mcp__oms_worker__read_dispatch"

NODE = "`node -e 0`"
EMPTY = "frozen empty script (onedir, PyInstaller defaults)"
LEAN = "frozen empty script, oms's spec choices (lean floor)"
PRE = "hook relay PreToolUse (allowed tool)"
PROMPT = "hook relay UserPromptSubmit"
STOP = "hook relay Stop (result recorded)"
BRIDGE = "bridge relay spawn -> initialize -> first tools/call"
DIRECT_PROMPT = "broker alone: UserPromptSubmit (in-process client)"
DIRECT_PRE = "broker alone: PreToolUse, allowed tool (in-process client; reads the fence)"
MORE = "more events in the state root"
HOOKS = (PRE, PROMPT, STOP)

Runner = Callable[[], None]


def _check_hook_answer(out: bytes, err: bytes, expected: bytes) -> None:
    if err:
        raise RuntimeError(f"hook complained: {err.decode(errors='replace')!r}")
    if out != expected:
        raise RuntimeError(f"hook answered {out!r}, expected {expected!r}")


def hook_runner(
    binary: Path, args: list[str], env: dict[str, str], payload: dict[str, object], expect: bytes
) -> Runner:
    """One `oms hook provider` relay process: payload on stdin, the answer checked."""
    data = json.dumps(payload).encode()

    def once() -> None:
        done = subprocess.run(
            [str(binary), *args], input=data, capture_output=True, env=env, check=True
        )
        _check_hook_answer(done.stdout, done.stderr, expect)

    return once


def _check_read_dispatch(reply: dict[str, object]) -> None:
    result = reply.get("result")
    if not isinstance(result, dict) or result.get("isError") is not False:
        raise RuntimeError(f"read_dispatch failed: {reply}")


def bridge_runner(binary: Path, args: list[str], env: dict[str, str]) -> Runner:
    """One `oms worker bridge` relay process: spawn, initialize, first tools/call answered (the
    clock's end), then stdin closed and the process reaped."""

    def once() -> None:
        proc = subprocess.Popen(
            [str(binary), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(json.dumps(BRIDGE_LINES[0]).encode() + b"\n")
        proc.stdin.flush()
        json.loads(proc.stdout.readline())  # initialize answered
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in BRIDGE_LINES[1:]))
        proc.stdin.flush()
        _check_read_dispatch(json.loads(proc.stdout.readline()))  # first tools/call answered
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()

    return once


def direct_hook_runner(
    sock_path: str, argv: list[str], payload: dict[str, object], expect: bytes
) -> Runner:
    """The same hook request sent by this process (what the broker takes, without a relay
    process)."""
    import socket

    from oms.domain.relay import encode_header, parse_answer

    frame = encode_header("hook", argv) + json.dumps(payload).encode()

    def once() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(sock_path)
            sock.sendall(frame)
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        out, err = parse_answer(b"".join(chunks))
        _check_hook_answer(out, err.encode(), expect)

    return once


def direct_bridge_runner(sock_path: str, argv: list[str]) -> Runner:
    """The bridge session sent by this process: connect, initialize, first tools/call answered."""
    import socket

    from oms.domain.relay import encode_header

    header = encode_header("bridge", argv)

    def once() -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(sock_path)
            reader = sock.makefile("rb")
            sock.sendall(header + json.dumps(BRIDGE_LINES[0]).encode() + b"\n")
            json.loads(reader.readline())
            sock.sendall(b"".join(json.dumps(m).encode() + b"\n" for m in BRIDGE_LINES[1:]))
            _check_read_dispatch(json.loads(reader.readline()))
            sock.shutdown(socket.SHUT_WR)
            reader.read()  # the broker closes once our EOF is answered
            reader.close()

    return once


def run_demo(binary: Path, where: Path) -> dict[str, str] | None:
    started = time.perf_counter()
    argv = [str(binary), "demo", "--json", "--keep", "--dir", str(where)]  # --keep: it waits
    demo = subprocess.run(argv, capture_output=True, text=True, check=False)
    if demo.returncode != 0:
        print(f"oms demo failed: {demo.stdout[-2000:]}{demo.stderr[-2000:]}", file=sys.stderr)
        return None
    data: dict[str, str] = json.loads(demo.stdout)
    print(
        f"oms demo (frozen): {time.perf_counter() - started:.2f} s to a recorded result",
        file=sys.stderr,
    )
    return data


def end_demo(state: Path, timeout_s: float = 10.0) -> None:
    """Make sure nothing of the demo outlives the bench: kill its own tmux server (our socket only;
    a no-op once `oms worker stop` ended it) and wait until its supervisors have removed their
    sockets (in the state root's sandbox directory, docs/adr/0026: bench/_common.brokers_dir)."""
    subprocess.run(
        ["tmux", "-S", str(state / "tmux.sock"), "kill-server"], capture_output=True, check=False
    )
    brokers = brokers_dir(state)
    deadline = time.monotonic() + timeout_s
    while brokers is not None and any(brokers.glob("*.sock")) and time.monotonic() < deadline:
        time.sleep(0.05)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument(
        "--events",
        type=int,
        default=5000,
        help="then time UserPromptSubmit again with this many more events",
    )
    args = parser.parse_args()
    binary = REPO / "dist" / "oms" / "oms"
    if not binary.is_file():
        print("dist/oms/oms is missing: run `python build/freeze.py` first", file=sys.stderr)
        return 1
    node = shutil.which("node")
    scratch_anchors()  # (the demo's state root: its children inherit the folder)
    scratch = Path(
        tempfile.mkdtemp(prefix="omsb", dir="/tmp")
    )  # short: the broker's socket path must fit
    data: dict[str, str] | None = None
    try:
        empty = build_empty(scratch)
        lean = build_lean_empty(scratch)
        data = run_demo(binary, scratch / "d")
        if data is None:
            return 1
        results = bench(binary, node, empty, lean, data, args.runs, args.events)
    finally:
        if data is not None:
            stop = [str(binary), "worker", "stop", data["dispatch_id"], "--reason", "bench"]
            stop += ["--state-root", data["state_root"], "--config-root", data["repo"]]
            subprocess.run(stop, capture_output=True, check=False)
        end_demo(scratch / "d" / "state")
        shutil.rmtree(scratch, ignore_errors=True)
    report(results)
    return 0


def bench(
    binary: Path,
    node: str | None,
    empty: Path,
    lean: Path,
    data: dict[str, str],
    runs: int,
    events: int,
) -> dict[str, list[float]]:
    try:
        from oms.provider_names import HOOK_CONTRACT
    except ModuleNotFoundError:  # a tree from before it moved (ef568cd: oms/version.py)
        from oms.version import HOOK_CONTRACT  # type: ignore[no-redef]

    brokers = brokers_dir(Path(data["state_root"]))
    assert brokers is not None, "the demo made no sandbox directory"
    sock = str(brokers / f"{data['dispatch_id']}.sock")
    if len(sock.encode()) > SOCKET_PATH_MAX:
        raise SystemExit(f"the broker's socket path is too long for AF_UNIX: {sock}")
    bound = ["--dispatch-id", data["dispatch_id"], "--session-id", data["session_id"]]
    hook = [
        "--provider",
        "command",
        "--provider-version",
        HOOK_CONTRACT["command"],
        *bound,
        "--allowed-tools",
        "",
    ]
    bridge = list(bound)
    env = {**os.environ, "OMS_BROKER_SOCKET": sock}
    common: dict[str, object] = {"session_id": data["session_id"]}
    pre: dict[str, object] = {
        **common,
        "hook_event_name": "PreToolUse",
        "tool_name": ALLOWED_TOOL,
        "tool_input": {},
    }
    denied: dict[str, object] = {**common, "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    prompt: dict[str, object] = {**common, "hook_event_name": "UserPromptSubmit", "prompt": "go"}
    stop: dict[str, object] = {**common, "hook_event_name": "Stop", "stop_hook_active": False}
    nothing = b"{}\n"
    deny = b'"permissionDecision":"deny"'

    def relay_hook(event: str) -> list[str]:  # oms registers one command per event
        return ["hook", "provider", "--event", event, *hook]

    runners: dict[str, Runner] = {}
    if node:
        runners[NODE] = command_runner([node, "-e", "0"])
    runners[EMPTY] = command_runner([str(empty)])
    runners[LEAN] = command_runner([str(lean)])
    runners["frozen `oms --version`"] = command_runner([str(binary), "--version"])
    runners[PRE] = hook_runner(binary, relay_hook("PreToolUse"), env, pre, nothing)
    runners["hook relay PreToolUse (denied tool)"] = denied_runner(
        binary, relay_hook("PreToolUse"), env, denied, deny
    )
    runners[PROMPT] = hook_runner(binary, relay_hook("UserPromptSubmit"), env, prompt, nothing)
    runners[STOP] = hook_runner(binary, relay_hook("Stop"), env, stop, nothing)
    runners[BRIDGE] = bridge_runner(binary, ["worker", "bridge", *bridge], env)
    runners[DIRECT_PRE] = direct_hook_runner(sock, ["--event", "PreToolUse", *hook], pre, nothing)
    runners[DIRECT_PROMPT] = direct_hook_runner(
        sock, ["--event", "UserPromptSubmit", *hook], prompt, nothing
    )
    runners["broker alone: bridge initialize + tools/call (in-process client)"] = (
        direct_bridge_runner(sock, bridge)
    )
    paced = frozenset(
        {PROMPT, STOP, DIRECT_PROMPT, f"{PROMPT}, {MORE}", f"{DIRECT_PROMPT}, {MORE}"}
    )
    gap = 1.0 / HOOK_RATE * 1.25
    results = time_interleaved(runners, runs, paced=paced, gap_s=gap)
    if events:
        started = time.perf_counter()
        add_filler_events(data["state_root"], events)
        print(f"added {events} events in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        again = {
            f"{PROMPT}, {MORE}": runners[PROMPT],
            f"{DIRECT_PROMPT}, {MORE}": runners[DIRECT_PROMPT],
        }
        results.update(time_interleaved(again, runs, paced=paced, gap_s=gap))
    return results


def denied_runner(
    binary: Path, args: list[str], env: dict[str, str], payload: dict[str, object], needle: bytes
) -> Runner:
    """A PreToolUse the broker denies (its answer must be a denial)."""
    data = json.dumps(payload).encode()

    def once() -> None:
        done = subprocess.run(
            [str(binary), *args], input=data, capture_output=True, env=env, check=True
        )
        if done.stderr or needle not in done.stdout:
            raise RuntimeError(f"expected a denial, got {done.stdout!r} {done.stderr!r}")

    return once


def report(results: dict[str, list[float]]) -> None:
    base_node = median_ms(results[NODE]) if NODE in results else None
    base_empty = median_ms(results[EMPTY])
    base_lean = median_ms(results[LEAN])
    rows = []
    for name, samples in results.items():
        med = median_ms(samples)
        rows.append(
            [
                name,
                f"{med:.1f}",
                f"{p90_ms(samples):.1f}",
                f"{med / base_node:.2f}" if base_node else "-",
                f"{med / base_empty:.2f}",
                f"{med / base_lean:.2f}",
            ]
        )
    heads = ["p50 ms", "p90 ms", "\u00d7 `node -e 0`", "\u00d7 frozen empty", "\u00d7 lean floor"]
    print(table(["case", *heads], rows))
    print()
    for name in (*HOOKS, BRIDGE):
        med = median_ms(results[name])
        if base_node is not None:
            print_ratio(name, med, NODE, base_node)
        print_ratio(name, med, LEAN, base_lean)
    for base in (PROMPT, DIRECT_PROMPT):
        for name, samples in results.items():
            if name.startswith(base + ", "):
                print_ratio(name, median_ms(samples), base, median_ms(results[base]))
    print()
    for name in HOOKS:
        med = median_ms(results[name])
        node_ok = "-" if base_node is None else ("met" if med <= 0.5 * base_node else "MISSED")
        lean_ok = "met" if med <= 2 * base_lean else "MISSED"
        print(f"target {name}: <= 0.5 x node: {node_ok}; <= 2 x lean floor: {lean_ok}")
    med = median_ms(results[BRIDGE])
    print(f"target {BRIDGE}: <= 3 x lean floor: {'met' if med <= 3 * base_lean else 'MISSED'}")


def add_filler_events(state_root: str, count: int) -> None:
    """Other workers' liveness events, as a busy state root accumulates them."""
    from oms.canonical import JsonObject, new_uuid, now, sha256_hex, stable_id
    from oms.store import Store

    try:
        from oms.services.chain.liveness import hook_event_id
    except ModuleNotFoundError:  # before issue 25's package moves (ef568cd: bench/_common)
        from oms.services.liveness import hook_event_id  # type: ignore[no-redef]

    with Store.open(state_root) as store:
        for i in range(count):
            session = new_uuid()
            payload: JsonObject = {
                "session_id": session,
                "dispatch_id": stable_id("dsp-bench", i),
                "nonce": sha256_hex(str(i).encode()),
                "provider": "claude",
                "hook_event": "SessionStart",
                "native_session_ref": session,
            }
            store.events.create(hook_event_id(session), "hook-observed", now(), payload)


if __name__ == "__main__":
    raise SystemExit(main())

"""The agent's two doors, timed from the frozen onedir binary, against baselines measured in the same run.

    .venv/bin/python bench/agent_doors_bench.py [--runs 40] [--events 5000]

Needs dist/ from `python build/freeze.py`. It runs `oms demo` (frozen) in a scratch directory, so every
hook and bridge call below works on a real state root with a delivered dispatch, a live session and a
recorded result; then it times
* `oms hook provider` for the events an agent fires most: PreToolUse of an allowed tool (every tool
  call), UserPromptSubmit, Stop (after the result: the gate lets the agent stop);
* the bridge: spawn -> `initialize` -> first `tools/call` (`read_dispatch`) answered, by a raw client;
* the baselines: `node -e 0` and a frozen empty script (same PyInstaller, onedir, --strip).
The cases take turns run by run, so a slow spell of the machine does not skew one ratio. Then it adds
`--events` other workers' liveness events and times UserPromptSubmit again (a hook's cost must not grow
with the state root). The demo's worker is stopped at the end.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import command_runner, median_ms, p90_ms, table, time_interleaved
from bench.startup_bench import build_empty, build_lean_empty

REPO = Path(__file__).resolve().parent.parent
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def hook_runner(binary: Path, args: list[str], env: dict[str, str], payload: dict[str, object]) -> object:
    data = json.dumps(payload).encode()

    def once() -> None:
        done = subprocess.run([str(binary), *args], input=data, capture_output=True, env=env, check=True)
        if done.stderr:
            raise RuntimeError(f"hook complained: {done.stderr.decode()!r}")

    return once


def bridge_runner(binary: Path, args: list[str], env: dict[str, str]) -> object:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_dispatch", "arguments": {}}},
    ]

    def once() -> None:
        proc = subprocess.Popen(
            [str(binary), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        assert proc.stdin is not None
        assert proc.stdout is not None
        proc.stdin.write(json.dumps(lines[0]).encode() + b"\n")
        proc.stdin.flush()
        json.loads(proc.stdout.readline())  # initialize answered
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines[1:]))
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())  # the first tools/call answered: the clock stops here
        if reply.get("result", {}).get("isError") is not False:
            raise RuntimeError(f"read_dispatch failed: {reply}")
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()

    return once


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument(
        "--events", type=int, default=5000, help="then time UserPromptSubmit again with this many more events"
    )
    args = parser.parse_args()
    binary = REPO / "dist" / "oms" / "oms"
    if not binary.is_file():
        print("dist/oms/oms is missing: run `python build/freeze.py` first", file=sys.stderr)
        return 1
    node = shutil.which("node")
    with tempfile.TemporaryDirectory(prefix="oms-doors-") as scratch:
        base = Path(scratch)
        empty = build_empty(base)
        lean = build_lean_empty(base)
        started = time.perf_counter()
        demo = subprocess.run(
            [str(binary), "demo", "--dir", str(base / "demo"), "--json"], capture_output=True, text=True, check=False
        )
        if demo.returncode != 0:
            print(f"oms demo failed: {demo.stdout}{demo.stderr}", file=sys.stderr)
            return 1
        data = json.loads(demo.stdout)
        print(f"oms demo (frozen): {time.perf_counter() - started:.2f} s to a recorded result", file=sys.stderr)
        roots = ["--state-root", data["state_root"], "--workspace-root", data["repo"], "--config-root", data["repo"]]
        bound = ["--dispatch-id", data["dispatch_id"], "--session-id", data["session_id"], *roots]
        hook = ["hook", "provider", "--provider", "claude", "--provider-version", "claude-2.1", *bound]
        hook += ["--allowed-tools", "Bash,Read"]
        env = dict(os.environ)
        with_nonce = {**env, "OMS_DELIVERY_NONCE": nonce_of(data)}
        common = {"session_id": data["session_id"], "cwd": data["repo"], "transcript_path": "/dev/null"}
        cases: list[tuple[str, object]] = []
        if node:
            cases.append(("`node -e 0`", [node, "-e", "0"]))
        cases += [
            ("frozen empty script (onedir)", [str(empty)]),
            ("frozen empty script, oms's spec choices", [str(lean)]),
            ("frozen `oms --version`", [str(binary), "--version"]),
            (
                "hook PreToolUse (allowed tool)",
                hook_runner(
                    binary,
                    hook,
                    with_nonce,
                    {**common, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}},
                ),
            ),
            (
                "hook PreToolUse (denied tool)",
                hook_runner(binary, hook, with_nonce, {**common, "hook_event_name": "PreToolUse", "tool_name": "Task"}),
            ),
            (
                "hook UserPromptSubmit",
                hook_runner(
                    binary, hook, with_nonce, {**common, "hook_event_name": "UserPromptSubmit", "prompt": "go"}
                ),
            ),
            (
                "hook Stop (result recorded)",
                hook_runner(binary, hook, with_nonce, {**common, "hook_event_name": "Stop", "stop_hook_active": False}),
            ),
            (
                "bridge spawn -> initialize -> first tools/call",
                bridge_runner(binary, ["worker", "bridge", *bound], with_nonce),
            ),
        ]
        runners = {name: command_runner(case) if isinstance(case, list) else case for name, case in cases}
        results = time_interleaved(runners, args.runs)  # type: ignore[arg-type]
        if args.events:
            started = time.perf_counter()
            add_filler_events(data["state_root"], args.events)
            print(f"added {args.events} events in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            scaled = f"hook UserPromptSubmit, {args.events:,} more events in the state root"
            results[scaled] = time_interleaved({scaled: runners["hook UserPromptSubmit"]}, args.runs)[scaled]  # type: ignore[dict-item]
        subprocess.run(
            [str(binary), "worker", "stop", data["dispatch_id"], "--reason", "bench over", *roots[:2], *roots[4:]],
            capture_output=True,
            check=False,
        )
    base_node = median_ms(results["`node -e 0`"]) if node else None
    base_empty = median_ms(results["frozen empty script (onedir)"])
    base_lean = median_ms(results["frozen empty script, oms's spec choices"])
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
    heads = ["p50 ms", "p90 ms", "\u00d7 `node -e 0`", "\u00d7 frozen empty", "\u00d7 empty, oms's choices"]
    print(table(["case", *heads], rows))
    return 0


def add_filler_events(state_root: str, count: int) -> None:
    """Other workers' liveness events, as a busy state root accumulates them."""
    from oms.canonical import new_uuid, now, sha256_hex, stable_id
    from oms.store import Store

    with Store.open(state_root) as store:
        for i in range(count):
            session = new_uuid()
            payload = {
                "session_id": session,
                "dispatch_id": stable_id("dsp-bench", i),
                "nonce": sha256_hex(str(i).encode()),
                "provider": "claude",
                "hook_event": "SessionStart",
                "native_session_ref": session,
            }
            store.events.create(stable_id("live-hook", session), "hook-observed", now(), payload)


def nonce_of(data: dict[str, str]) -> str:
    """The delivery nonce of the demo's dispatch (what oms hands its hooks and bridge)."""
    from oms.canonical import operation_nonce
    from oms.services.delivery import CONSUMER
    from oms.services.dispatches import delivery_event_id

    return operation_nonce(delivery_event_id(data["dispatch_id"]), CONSUMER)


if __name__ == "__main__":
    raise SystemExit(main())

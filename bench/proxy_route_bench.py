"""What going through the model proxy adds to a model worker's launch (ADR 0026).

`proxy_launch.route` is the part of `oms worker deliver` that issues the dispatch's token, makes
sure a proxy runs and waits for the dispatch's door in the sandbox directory.

    .venv/bin/python bench/proxy_route_bench.py [--samples 20] [--cold 5]

A real repository and state root, a Claude Code worker role with an endpoint (nothing is sent to
it), a real proxy process. `--cold` routes start the proxy on demand (`oms proxy serve`, its
handshake, its record; the proxy is stopped, untimed, before each); `--samples` routes find it
running. The two kinds take turns (each cold route followed by its share of the warm ones), so a
slow spell of the machine lands on both. Each token is revoked after its sample, so every warm
sample sees the same proxy with no other door open. At the end it is stopped.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, p90_ms, pin_scratch_git, print_ratio, scratch_anchors, table
from oms.services.chain import dispatches
from oms.services.delivery import proxy_route
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from tests.chain import make_chain


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", "--runs", type=int, default=20, help="routes, proxy running")
    parser.add_argument("--cold", type=int, default=5, help="routes that start the proxy")
    args = parser.parse_args()
    cold = max(1, min(args.cold, args.samples))
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-bench-key-never-sent-0123456789")
    pin_scratch_git()
    scratch_anchors()
    kinds: list[str] = []  # each cold route, then its share of the warm ones
    for c in range(cold):
        kinds += ["cold"] + ["warm"] * len(range(c, args.samples, cold))
    with tempfile.TemporaryDirectory(prefix="omsp", dir="/tmp") as scratch:
        chain = next(make_chain(Path(scratch)))
        worker = ('role = "oms.command-executor"', 'role = "oms.ticket-executor"')
        model = ('model = "sonnet"', 'model = "test-model"\nendpoint = "http://127.0.0.1:9/never"')
        chain.edit_config(lambda s: s.replace(*worker).replace(*model), commit=True)
        ids = []
        for i in range(len(kinds)):
            _, _, dispatch_id = chain.proposed(f"ticket {i}")
            with chain.workspace() as ws:
                dispatches.review(ws, dispatch_id)
                dispatches.accept(ws, dispatch_id)
            ids.append(dispatch_id)
        took: dict[str, list[float]] = {"cold": [], "warm": []}
        try:
            with chain.workspace() as ws:
                for kind, dispatch_id in zip(kinds, ids, strict=True):
                    dispatch = ws.store.records("dispatch").read(dispatch_id)
                    if kind == "cold":
                        proxy_control.stop(ws)  # (a no-op before the first)
                    start = time.perf_counter()
                    proxy_route.route(ws, dispatch)
                    took[kind].append(time.perf_counter() - start)
                    proxy_tokens.revoke_token(ws, dispatch_id)
        finally:
            with chain.workspace() as ws:
                proxy_control.stop(ws)
    cold_label = "a launch that starts the proxy on demand"
    warm_label = "a launch while it runs: token, handshake, door"
    rows = [
        [label, str(len(got)), f"{median_ms(got):.1f}", f"{p90_ms(got):.1f}"]
        for label, got in ((cold_label, took["cold"]), (warm_label, took["warm"]))
    ]
    print(table(["case", "n", "p50 ms", "p90 ms"], rows))
    print()
    print_ratio(cold_label, median_ms(took["cold"]), warm_label, median_ms(took["warm"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

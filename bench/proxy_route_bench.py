"""What going through the model proxy adds to a model worker's launch (ADR 0026).

`proxy_launch.route` is the part of `oms worker deliver` that issues the dispatch's token, makes
sure a proxy runs and waits for the dispatch's door in the sandbox directory.

    .venv/bin/python bench/proxy_route_bench.py [--samples 20]

A real repository and state root, a Claude Code worker role with an endpoint (nothing is sent to
it), a real proxy process. The first route starts the proxy on demand (`oms proxy serve`, its
handshake, its record); every later one finds it running. Each token is revoked after its sample, so
every sample but the first sees the same proxy with no other door open. At the end it is stopped.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, p90_ms, table
from oms.services import dispatches, proxy_control, proxy_launch, proxy_tokens
from tests.chain import make_chain


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--samples", "--runs", type=int, default=20, help="routes after the first")
    args = parser.parse_args()
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-bench-key-never-sent-0123456789")
    for name, value in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "bench@oms.invalid")):
        os.environ.setdefault(name, value)
        os.environ.setdefault(name.replace("AUTHOR", "COMMITTER"), value)
    with tempfile.TemporaryDirectory(prefix="omsp", dir="/tmp") as scratch:
        chain = next(make_chain(Path(scratch)))
        worker = ('role = "oms.command-executor"', 'role = "oms.ticket-executor"')
        model = ('model = "sonnet"', 'model = "test-model"\nendpoint = "http://127.0.0.1:9/never"')
        chain.edit_config(lambda s: s.replace(*worker).replace(*model), commit=True)
        ids = []
        for i in range(args.samples + 1):
            _, _, dispatch_id = chain.proposed(f"ticket {i}")
            with chain.workspace() as ws:
                dispatches.review(ws, dispatch_id)
                dispatches.accept(ws, dispatch_id)
            ids.append(dispatch_id)
        first = 0.0
        warm: list[float] = []
        try:
            with chain.workspace() as ws:
                for i, dispatch_id in enumerate(ids):
                    dispatch = ws.store.records("dispatch").read(dispatch_id)
                    start = time.perf_counter()
                    proxy_launch.route(ws, dispatch)
                    took = time.perf_counter() - start
                    if i == 0:
                        first = took
                    else:
                        warm.append(took)
                        proxy_tokens.revoke_token(ws, dispatch_id)
        finally:
            with chain.workspace() as ws:
                proxy_control.stop(ws)
    rows = [
        ["the first launch: the proxy started on demand", f"{first * 1000:.1f}", ""],
        [
            "a launch while it runs: token, handshake, door",
            f"{median_ms(warm):.1f}",
            f"{p90_ms(warm):.1f}",
        ],
    ]
    print(table(["case", "p50 ms", "p90 ms"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

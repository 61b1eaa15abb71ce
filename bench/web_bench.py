"""What `oms web` costs at N tickets (issue 27 item 5, ADR 0041): the board's JSON as the page
polls it, over HTTP, against `oms status --json` as a command.

    .venv/bin/python bench/web_bench.py [--tickets 1000] [--repeat 9]

A real state root and repository (the demo's) with N tickets added through the service. Timed,
taking turns: GET /api/board on a running board server (the workspace opened per request, as it
serves), and `oms status --json` as a process (its start included: what a person would poll
otherwise). The update latency a person sees is at most one poll (`LIMITS.web_poll_ms`) plus one
GET; the headless-Chromium test measures it end to end.
"""

from __future__ import annotations

import argparse
import http.client
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    command_runner,
    median_ms,
    pin_scratch_git,
    print_ratio,
    scratch_anchors,
    table,
    time_interleaved,
)
from oms.demo import scratch as demo
from oms.limits import LIMITS
from oms.services.chain import tickets
from oms.services.web import server
from oms.services.workspace import Workspace


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickets", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    oms = str(Path(sys.executable).parent / "oms")
    with tempfile.TemporaryDirectory(prefix="oms-web-") as tmp:
        run = demo._prepare(str(Path(tmp) / "web"))
        with Workspace.open(run.state_root, run.repo) as ws:
            for n in range(args.tickets):
                tickets.add(ws, f"ticket {n}", f"body of ticket {n}\n")

        @contextmanager
        def opener() -> Iterator[Workspace]:
            with Workspace.open(run.state_root, run.repo) as ws:
                yield ws

        board = server.serve(0, opener)
        thread = threading.Thread(target=board.serve_forever, daemon=True)
        thread.start()

        def get_board() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
            conn.request("GET", f"/api/board?t={board.token}")
            answer = conn.getresponse()
            assert answer.status == 200, answer.status
            answer.read()
            conn.close()

        where = ["--state-root", run.state_root, "--config-root", run.repo]
        status = command_runner([oms, "status", "--json", *where])
        try:
            samples = time_interleaved(
                {"GET /api/board": get_board, "oms status --json": status}, args.repeat, warmup=1
            )
        finally:
            board.shutdown()
            board.server_close()
    rows = [[name, f"{median_ms(s):.1f}"] for name, s in samples.items()]
    print(table([f"{args.tickets} tickets", "median ms"], rows))
    print(f"update latency: at most {LIMITS.web_poll_ms} ms (the poll) + one GET /api/board")
    print_ratio(
        "GET /api/board",
        median_ms(samples["GET /api/board"]),
        "oms status --json",
        median_ms(samples["oms status --json"]),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

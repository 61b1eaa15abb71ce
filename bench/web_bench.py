"""What `oms web` costs at N tickets (issue 27 items 5-6, ADR 0041): a page load, an update, and
the live stream's delay, against `oms status --json` as a command, in the same run.

    .venv/bin/python bench/web_bench.py [--tickets 10000] [--repeat 9] [--state DIR]

A real state root and repository (the demo's) with N tickets added through the service (`--state
DIR` keeps them in DIR and uses them again on the next run: adding 10,000 takes minutes). Timed,
taking turns, on a running board server (the workspace opened per request, as it serves):

- page load: GET the page, its script, its style and /api/board with the board read afresh (what
  was read before is dropped first: the cost of the first page, or of the first read after a
  change);
- update: GET /api/board as an idle fleet's page or watcher asks it (nothing changed: one `lstat`
  of the ledger's log, the board read before);
- `oms status --json` as a process (its start included: what a person would poll otherwise).

Then, apart: the delay from a change (a ticket added) to the live stream's event carrying it; and
the result views on a completed result of `--diff-files` new files (`bench/review_bench.py`'s;
0: not measured): GET /api/diff (its `--stat` and its diff's first `LIMITS.web_diff_bytes`) and
/api/result (`oms result show`'s), against `git diff` of the same objects to its end as a process.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
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
from oms.services.chain import tickets
from oms.services.web import server
from oms.services.workspace import Workspace


def _prepared(folder: Path, count: int) -> tuple[str, str]:
    """(state root, repository) with `count` tickets, made in `folder` unless made there before."""
    done = folder / "prepared.json"
    if done.exists():
        kept = json.loads(done.read_text())
        if kept["tickets"] == count:
            return str(kept["state_root"]), str(kept["repo"])
    run = demo._prepare(str(folder / "web"))
    with Workspace.open(run.state_root, run.repo) as ws:
        for n in range(count):
            tickets.add(ws, f"ticket {n}", f"body of ticket {n}\n")
    done.write_text(json.dumps({"tickets": count, "state_root": run.state_root, "repo": run.repo}))
    return run.state_root, run.repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tickets", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--state", help="keep the state root here, and use it again")
    parser.add_argument("--diff-files", type=int, default=5000)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    oms = str(Path(sys.executable).parent / "oms")
    with tempfile.TemporaryDirectory(prefix="oms-web-") as tmp:
        folder = Path(args.state) if args.state else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        state_root, repo = _prepared(folder, args.tickets)

        @contextmanager
        def opener() -> Iterator[Workspace]:
            with Workspace.open(state_root, repo) as ws:
                yield ws

        board = server.serve(0, opener)
        thread = threading.Thread(target=board.serve_forever, daemon=True)
        thread.start()
        host = {"Host": f"127.0.0.1:{board.port}"}

        def get(path: str) -> bytes:
            conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
            conn.request("GET", f"{path}?t={board.token}", headers=host)
            answer = conn.getresponse()
            assert answer.status == 200, answer.status
            data = answer.read()
            conn.close()
            return data

        def page_load() -> None:
            board._kept = None  # read afresh, as after a change
            for path in ("/", "/app.js", "/app.css", "/api/board"):
                get(path)

        def update() -> None:
            get("/api/board")

        where = ["--state-root", state_root, "--config-root", repo]
        status = command_runner([oms, "status", "--json", *where])
        try:
            samples = time_interleaved(
                {"page load": page_load, "update": update, "oms status --json": status},
                args.repeat,
                warmup=1,
            )
            delays = _stream_delays(board, state_root, repo, max(3, args.repeat // 3))
        finally:
            board.shutdown()
            board.server_close()
    rows = [[name, f"{median_ms(s):.1f}"] for name, s in samples.items()]
    rows.append(["a change to the stream's event", f"{median_ms(delays):.1f}"])
    print(table([f"{args.tickets} tickets", "median ms"], rows))
    base = median_ms(samples["oms status --json"])
    print_ratio("page load", median_ms(samples["page load"]), "oms status --json", base)
    print_ratio("update", median_ms(samples["update"]), "oms status --json", base)
    print_ratio("stream delay", median_ms(delays), "oms status --json", base)
    if args.diff_files > 0:
        _diff_views(args.diff_files, args.repeat)
    return 0


def _diff_views(files: int, repeat: int) -> None:
    """The result views of a `files`-file change, timed taking turns with `git diff` of it."""
    from bench.review_bench import result_of

    with tempfile.TemporaryDirectory(prefix="oms-web-diff-") as tmp:
        state_root, repo, dispatch_id, change = result_of(Path(tmp) / "demo", files)

        @contextmanager
        def opener() -> Iterator[Workspace]:
            with Workspace.open(state_root, repo) as ws:
                yield ws

        board = server.serve(0, opener)
        thread = threading.Thread(target=board.serve_forever, daemon=True)
        thread.start()
        sizes: dict[str, int] = {}

        def view(path: str) -> Callable[[], None]:
            def get() -> None:
                conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=120)
                conn.request(
                    "GET",
                    f"{path}?t={board.token}&id={dispatch_id}",
                    headers={"Host": f"127.0.0.1:{board.port}"},
                )
                answer = conn.getresponse()
                data = answer.read()
                assert answer.status == 200, data[:300]
                sizes[path] = len(data)
                conn.close()

            return get

        git = command_runner(["git", "-C", repo, "--no-pager", "diff", change.old, change.new])
        try:
            samples = time_interleaved(
                {
                    "GET /api/diff": view("/api/diff"),
                    "GET /api/result": view("/api/result"),
                    "`git diff` (a process, to its end)": git,
                },
                repeat,
                warmup=1,
            )
        finally:
            board.shutdown()
            board.server_close()
    rows = [[name, f"{median_ms(s):.1f}"] for name, s in samples.items()]
    print()
    print(table([f"a {files}-file change", "median ms"], rows))
    print(f"answers: /api/diff {sizes['/api/diff']} bytes, /api/result {sizes['/api/result']}")
    print_ratio(
        "GET /api/diff",
        median_ms(samples["GET /api/diff"]),
        "`git diff`",
        median_ms(samples["`git diff` (a process, to its end)"]),
    )


def _stream_delays(board: server.Board, state_root: str, repo: str, times: int) -> list[float]:
    """Seconds from a ticket's add to the live stream's event that shows it (`times` of them)."""
    conn = http.client.HTTPConnection("127.0.0.1", board.port, timeout=60)
    conn.request("GET", f"/api/events?t={board.token}", headers={"Host": f"127.0.0.1:{board.port}"})
    stream = conn.getresponse()
    assert stream.status == 200, stream.status

    def next_board() -> bytes:
        while True:
            line = stream.readline()
            assert line, "the stream ended"
            if line.startswith(b"data: "):
                return line

    def total(line: bytes) -> int:
        return int(json.loads(line[len(b"data: ") :])["queue_total"])

    count = total(next_board())  # the board as it is
    delays = []
    for n in range(times):
        with Workspace.open(state_root, repo) as ws:
            tickets.add(ws, f"streamed {n}", "")
        added = time.perf_counter()
        while total(next_board()) != count + 1:  # (the queue shows its first rows only)
            pass
        count += 1
        delays.append(time.perf_counter() - added)
    conn.close()
    return delays


if __name__ == "__main__":
    raise SystemExit(main())

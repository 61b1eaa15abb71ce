"""Ledger benchmark (issue 14 item 5, ADR 0022, ADR 0027): `oms audit verify` of 100,000 entries,
what the ledger adds to a store write, and how concurrent writers share it.

    .venv/bin/python bench/ledger_bench.py [--entries 100000] [--samples 200] [--writers 4]
        [--writes 200]

Verify: a state root with `--entries` journal-entry files and a ledger naming each (built directly,
in the ledger's own line format, each line's MAC included), verified three times (every MAC, the
chain, every file's digest, every covered file named), taking turns with reading and hashing the
same files (its baseline); prints the medians and entries per second. A write: `Root.publish` of
a small file alone, and `ledger.publish_noted` (the key read, the log's flock, tail read and MAC
check, the line appended and fsynced, the publish, the newline), interleaved. Concurrent:
`--writers` processes each writing `--writes` small files with `publish_noted` at once (the log's
lock is held across each publish: ADR 0027); prints the wall time and writes per second. Signing
after a write: a checkpoint alone, and a checkpoint with the anchor moved to it. Prints each
comparison's `ratio:` line; nothing is asserted."""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, print_ratio, scratch_anchors, table, time_interleaved
from oms.canonical import now
from oms.limits import LIMITS
from oms.store import ledger
from oms.store.ledger_check import verify_ledger
from oms.store.stateroot import StateRoot

VERIFY_RUNS = 3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--writes", type=int, default=200)
    args = parser.parse_args()
    scratch_anchors()
    with tempfile.TemporaryDirectory() as tmp:
        state, _ = StateRoot.create(str(Path(tmp) / "state"), now())
        root = state.root
        root.mkdirs("journals/bench")
        root.mkdirs("ledger")
        key = ledger.line_key(root)
        first = root.read_tail(ledger.LOG, 4096)  # the new root's first entry: its oms-state.json
        lines, prev = [first], ledger.hash_of(first)
        for seq in range(2, args.entries + 2):
            rel, data = f"journals/bench/{seq}.json", b'{"n":%d}' % seq
            root.publish(rel, data)
            line = ledger.line_of(seq, prev, "2026-12-01T00:00:00.000Z", "journal", rel, data, key)
            lines.append(line)
            prev = ledger.hash_of(line)
        root.unlink(ledger.LOG)  # (written whole: the bench builds it faster than notes would)
        root.publish(ledger.LOG, b"".join(lines))
        audits = []

        def check() -> None:
            audits.append(verify_ledger(root, state.meta.public_key, state.meta.key_id))

        journals = (f"journals/bench/{seq}.json" for seq in range(2, args.entries + 2))
        files = [ledger.LOG, ledger.META, *journals]

        def hash_all() -> None:  # the baseline: read and hash every file verify must read
            for rel in files:
                hashlib.sha256(root.read_bytes(rel, LIMITS.ledger_log_bytes)).hexdigest()

        cases = {"verify": check, "read and hash": hash_all}
        verifies = time_interleaved(cases, VERIFY_RUNS, warmup=0)
        assert all(audit.ok for audit in audits), audits[0].problems[:3]
        took = statistics.median(verifies["verify"])
        hashed = statistics.median(verifies["read and hash"])
        counter = [0]

        def plain() -> None:
            counter[0] += 1
            root.publish(f"journals/bench/p{counter[0]}.json", b'{"p":1}')

        def noted() -> None:
            counter[0] += 1
            ledger.publish_noted(root, "journal", f"journals/bench/n{counter[0]}.json", b'{"p":1}')

        got = time_interleaved({"publish": plain, "publish + note": noted}, args.samples)
        signed = _sign_and_anchor(state.path, min(args.samples, 100), counter)
        wall = _concurrent(state.path, args.writers, args.writes)
        state.close()
    print(
        f"verify: {args.entries} entries in {took:.2f} s (median of {VERIFY_RUNS}): "
        f"{args.entries / took:,.0f} entries/s; reading and hashing the same files: {hashed:.2f} s"
    )
    base, with_note = median_ms(got["publish"]), median_ms(got["publish + note"])
    print(
        table(
            ["write (median ms)", "publish", "publish with its ledger entry", "ratio"],
            [["a small file", f"{base:.3f}", f"{with_note:.3f}", f"{with_note / base:.2f}"]],
        )
    )
    print(
        table(
            ["after a write (median ms)", "checkpoint", "checkpoint + anchor"],
            [["what a command or tick that wrote adds", f"{signed[0]:.3f}", f"{signed[1]:.3f}"]],
        )
    )
    total = args.writers * args.writes
    rate = f"{total / wall:,.0f} writes/s"
    print(f"concurrent: {args.writers} writers x {args.writes} writes in {wall:.2f} s: {rate}")
    print()
    print_ratio(
        f"audit verify, {args.entries} entries",
        took * 1000,
        "reading and hashing its files",
        hashed * 1000,
    )
    print_ratio("publish + ledger note", with_note, "publish alone", base)
    print_ratio("checkpoint + anchor", signed[1], "checkpoint alone", signed[0])


def _sign_and_anchor(path: str, samples: int, counter: list[int]) -> tuple[float, float]:
    """Median ms of signing the head after a write, alone and with the anchor moved to it (ADR 0027;
    the anchor folder: $OMS_ANCHOR_DIR, by default a temporary one: `scratch_anchors`)."""
    from oms.store import Store

    alone: list[float] = []
    anchored: list[float] = []
    with Store.open(path) as store:
        for i in range(2 * samples):
            counter[0] += 1
            rel = f"journals/bench/a{counter[0]}.json"
            ledger.publish_noted(store.state.root, "journal", rel, b"{}")
            started = time.perf_counter()
            if i % 2:
                store.sign_and_anchor()
                anchored.append(time.perf_counter() - started)
            else:
                store.checkpoint()
                alone.append(time.perf_counter() - started)
    return statistics.median(alone) * 1000, statistics.median(anchored) * 1000


def _write_many(path: str, writer: int, count: int) -> None:
    from oms.fsio import Root

    with Root.open(path) as root:
        for i in range(count):
            ledger.publish_noted(root, "journal", f"journals/bench/w{writer}-{i}.json", b'{"w":1}')


def _concurrent(path: str, writers: int, count: int) -> float:
    import multiprocessing

    start = multiprocessing.Process
    procs = [start(target=_write_many, args=(path, w, count)) for w in range(writers)]
    started = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    return time.perf_counter() - started


if __name__ == "__main__":
    main()

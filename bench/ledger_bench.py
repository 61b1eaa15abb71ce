"""Ledger benchmark (issue 14 item 5, ADR 0022): `oms audit verify` of 100,000 entries, and what a ledger
note adds to a store write.

    .venv/bin/python bench/ledger_bench.py [--entries 100000] [--samples 200]

Verify: a state root with `--entries` journal-entry files and a ledger naming each (built directly, in the
ledger's own line format, each line's MAC included), verified three times (every MAC, the chain, every
file's digest, every covered file named); prints the median and entries per second. Append:
`Root.publish` of a small file alone, and `publish` then `ledger.note` (the key read, flock, tail read
and MAC check, append, fsync), interleaved. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, table, time_interleaved
from oms.canonical import now
from oms.store import ledger
from oms.store.ledger_check import verify_ledger
from oms.store.stateroot import StateRoot


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state, _ = StateRoot.create(str(Path(tmp) / "state"), now())
        root = state.root
        root.mkdirs("journals/bench")
        root.mkdirs("ledger")
        key = ledger.line_key(root)
        lines, prev = [], ledger.GENESIS
        for seq in range(1, args.entries + 1):
            rel, data = f"journals/bench/{seq}.json", b'{"n":%d}' % seq
            root.publish(rel, data)
            line = ledger.line_of(seq, prev, "2026-12-01T00:00:00.000Z", "journal", rel, data, key)
            lines.append(line)
            prev = ledger.hash_of(line)
        root.publish(ledger.LOG, b"".join(lines))
        times = []
        for _ in range(3):
            started = time.perf_counter()
            audit = verify_ledger(root, state.meta.public_key, state.meta.key_id)
            times.append(time.perf_counter() - started)
        assert audit.ok, audit.problems[:3]
        took = statistics.median(times)
        counter = [0]

        def plain() -> None:
            counter[0] += 1
            root.publish(f"journals/bench/p{counter[0]}.json", b'{"p":1}')

        def noted() -> None:
            counter[0] += 1
            rel = f"journals/bench/n{counter[0]}.json"
            root.publish(rel, b'{"p":1}')
            ledger.note(root, "journal", rel, b'{"p":1}')

        got = time_interleaved({"publish": plain, "publish + note": noted}, args.samples)
        state.close()
    print(f"verify: {args.entries} entries in {took:.2f} s (median of 3): {args.entries / took:,.0f} entries/s")
    base, with_note = median_ms(got["publish"]), median_ms(got["publish + note"])
    print(
        table(
            ["write (median ms)", "publish", "publish + ledger note", "ratio"],
            [["a small file", f"{base:.3f}", f"{with_note:.3f}", f"{with_note / base:.2f}"]],
        )
    )


if __name__ == "__main__":
    main()

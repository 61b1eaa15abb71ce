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
import hashlib
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, print_ratio, table, time_interleaved
from oms.canonical import now
from oms.store import ledger
from oms.store.ledger_check import verify_ledger
from oms.store.stateroot import StateRoot

VERIFY_RUNS = 3


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
        root.unlink(ledger.LOG)  # a new state root's ledger is empty: this one replaces it
        root.publish(ledger.LOG, b"".join(lines))
        audits = []

        def check() -> None:
            audits.append(verify_ledger(root, state.meta.public_key, state.meta.key_id))

        files = [ledger.LOG, *(f"journals/bench/{seq}.json" for seq in range(1, args.entries + 1))]

        def hash_all() -> None:  # the baseline: read and hash every file verify must read
            for rel in files:
                hashlib.sha256(root.read_bytes(rel, ledger.MAX_LOG_BYTES)).hexdigest()

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
            rel = f"journals/bench/n{counter[0]}.json"
            root.publish(rel, b'{"p":1}')
            ledger.note(root, "journal", rel, b'{"p":1}')

        got = time_interleaved({"publish": plain, "publish + note": noted}, args.samples)
        state.close()
    print(
        f"verify: {args.entries} entries in {took:.2f} s (median of {VERIFY_RUNS}): "
        f"{args.entries / took:,.0f} entries/s; reading and hashing the same files: {hashed:.2f} s"
    )
    base, with_note = median_ms(got["publish"]), median_ms(got["publish + note"])
    print(
        table(
            ["write (median ms)", "publish", "publish + ledger note", "ratio"],
            [["a small file", f"{base:.3f}", f"{with_note:.3f}", f"{with_note / base:.2f}"]],
        )
    )
    print()
    print_ratio(
        f"audit verify, {args.entries} entries",
        took * 1000,
        "reading and hashing its files",
        hashed * 1000,
    )
    print_ratio("publish + ledger note", with_note, "publish alone", base)


if __name__ == "__main__":
    main()

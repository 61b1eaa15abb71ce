"""A child process for the crash and storm tests: writes to a state root until killed or done.

Usage: python -m tests.integration.writer_child crash STATE     (loops, deterministic content)
       python -m tests.integration.writer_child serve STATE     (`crash` writers forked on demand)
       python -m tests.integration.writer_child storm STATE K N (N transitions of a record, as K)
"""

from __future__ import annotations

import os
import sys

from oms.canonical import next_after, now
from oms.errors import VersionConflictError
from oms.store import Store
from tests.helpers import SESSION, T0, contact_entry, evidence_body, payload, ts

RECORDS = 5


def expected_state(version: int) -> str:
    return ("idle", "working", "blocked", "done")[version % 4]


def crash_loop(path: str) -> None:
    store = Store.open(path)
    records = store.records("worker")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    n = 0
    while True:
        rid = f"dsp-{n % RECORDS}"
        latest = records.read_if_exists(rid)
        version = 0 if latest is None else latest.version + 1
        body = payload("worker", end_detail=f"step {version}")
        if latest is None:
            records.create(
                rid,
                state="idle",
                payload=body,
                operation_id=f"op-{rid}-0",
                actor="oms-system",
                observed_at=ts(0),
            )
        else:
            records.transition(
                rid,
                expected_version=latest.version,
                state=expected_state(version),
                payload=body,
                operation_id=f"op-{rid}-{version}",
                actor="oms-system",
                observed_at=ts(version),
            )
        store.events.create(
            f"evt-{n}",
            "session-registered",
            T0,
            {"session_id": SESSION, "dispatch_id": rid, "session_version": 0},
        )
        if n % 7 == 0:
            store.put_evidence(evidence_body(ticket_id=f"tkt-{n}"))
        if n % 5 == 0:
            store.journal("live-contact").append(contact_entry(n), T0)
        n += 1


def serve(path: str) -> None:
    """For each line on stdin, a `crash_loop` writer in a process forked from this one, which has
    imported oms already (a new interpreter's start costs more than the writing a test kills):
    says `pid <pid>` (the writer says `ready`, in either order), then `exit <code>` once the
    writer is gone (-9: SIGKILLed)."""
    while sys.stdin.readline():
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            try:
                crash_loop(path)
            finally:
                os._exit(1)
        sys.stdout.write(f"pid {pid}\n")
        sys.stdout.flush()
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(f"exit {os.waitstatus_to_exitcode(status)}\n")
        sys.stdout.flush()


def storm(path: str, writer: int, count: int) -> None:
    store = Store.open(path)
    records = store.records("worker")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()  # the start gun: all writers begin together
    conflicts = 0
    for i in range(count):
        while True:
            latest = records.read("dsp-storm")
            try:
                records.transition(
                    "dsp-storm",
                    expected_version=latest.version,
                    state="working",
                    payload=payload("worker"),
                    operation_id=f"op-w{writer}-{i}",
                    actor="oms-system",
                    observed_at=next_after(latest.observed_at, now()),
                )
                break
            except VersionConflictError:
                conflicts += 1
    sys.stdout.write(f"done {conflicts}\n")


if __name__ == "__main__":
    if sys.argv[1] == "crash":
        crash_loop(sys.argv[2])
    elif sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        storm(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))

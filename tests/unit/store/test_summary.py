"""`store/summary.py`: the latest version of every record, reading only what changed — and never
less.

File times here are set by the test, as a kernel with coarse timestamps would set them (`Coarse`):
every write stamps its record's directory and the kind's directory with the current tick of a clock
the test owns, and the summary reads that same clock. So "two writes in one tick" and "a scan right
after a write" happen on demand, and the summary's answers are compared with a fresh read of every
record.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.canonical import now
from oms.limits import LIMITS
from oms.store import Store, summary, summary_file
from oms.store.records import Record
from oms.store.stateroot import StateRoot
from oms.store.verify import verify
from tests.helpers import payload, ts

KIND = "worker"
ENVELOPE = (  # a v2 column for each envelope field, in `Record`'s order
    ("version", "versions"), ("state", "states"), ("expected_version", "expected"),
    ("operation_id", "operations"), ("actor", "actors"), ("observed_at", "observed"),
    ("previous_sha256", "previous"),
)  # fmt: skip


def as_rows(doc: dict) -> dict:  # type: ignore[type-arg]
    """A v2 summary body with its columns as v1's rows, `entries`: [id, time, seen, sha256,
    envelope] each (what a test edits); `as_columns` makes it v2 again."""
    out = {k: v for k, v in doc.items() if k not in summary_file.COLUMNS and k != "shapes"}
    keys = [doc["shapes"][n] for n in doc["shapes_of"]]
    out["entries"] = [
        [
            rid, doc["mtimes"][i], doc["seens"][i], doc["sha256"][i],
            {"format": "oms-record-v1", "kind": doc["kind"], "record_id": rid}
            | {field: doc[column][i] for field, column in ENVELOPE}
            | {"payload": dict(zip(keys[i], doc["values"][i], strict=True))},
        ]
        for i, rid in enumerate(doc["ids"])
    ]  # fmt: skip
    return out


def as_columns(doc: dict) -> dict:  # type: ignore[type-arg]
    """`as_rows`'s result (edited) as a v2 body."""
    out = {k: v for k, v in doc.items() if k != "entries"}
    rows = doc["entries"]
    shapes = {tuple(row[4]["payload"]): None for row in rows}
    out |= {
        "ids": [row[0] for row in rows],
        "mtimes": [row[1] for row in rows],
        "seens": [row[2] for row in rows],
        "sha256": [row[3] for row in rows],
        "shapes": [list(keys) for keys in shapes],
        "shapes_of": [list(shapes).index(tuple(row[4]["payload"])) for row in rows],
        "values": [list(row[4]["payload"].values()) for row in rows],
    }
    out |= {column: [row[4][field] for row in rows] for field, column in ENVELOPE}
    return out


TICK_NS = 4_000_000  # a kernel tick (HZ=250): the grain of file times


class Coarse:
    """A wall clock the test moves, and file times stamped from it at its grain."""

    def __init__(self, store: Store, start_ns: int = 1_800_000_000 * 10**9) -> None:
        self.store = store
        self.now_ns = start_ns
        self.steps = 0

    def __call__(self) -> int:
        return self.now_ns

    def stamp(self, rid: str) -> None:
        """What the kernel does to the times on a write of `rid`: its directory and the kind's."""
        grain = self.now_ns - self.now_ns % TICK_NS
        base = Path(self.store.path) / "records" / KIND
        for path in (base / rid, base):
            os.utime(path, ns=(grain, grain))

    def write(self, rid: str, state: str) -> None:
        records = self.store.records(KIND)
        self.steps += 1
        if records.read_if_exists(rid) is None:
            records.create(
                rid, state=state, payload=payload(KIND), operation_id=f"c{self.steps}",
                actor="oms-system", observed_at=ts(self.steps),
            )  # fmt: skip
        else:
            current = records.read(rid)
            records.transition(
                rid, expected_version=current.version, state=state, payload=payload(KIND),
                operation_id=f"t{self.steps}", actor="oms-system", observed_at=ts(self.steps),
            )  # fmt: skip
        self.stamp(rid)

    def refresh(self) -> summary.Latest:
        return summary.refresh(
            self.store.state.root, KIND, self.store.records(KIND).read_if_exists, self
        )

    def truth(self) -> list[Record]:
        records = self.store.records(KIND)
        return [records.read(rid) for rid in records.ids()]


@pytest.fixture(autouse=True)
def _fresh_process() -> Iterator[None]:
    summary.forget()
    yield
    summary.forget()


@pytest.fixture
def coarse(store: Store) -> Coarse:
    return Coarse(store)


def test_a_refresh_reads_only_the_records_that_changed(coarse: Coarse) -> None:
    for n in range(20):
        coarse.write(f"dsp-{n}", "idle")
    coarse.now_ns += 3 * 10**9
    assert coarse.refresh().read == 20
    coarse.now_ns += 3 * 10**9
    quiet = coarse.refresh()
    assert (quiet.read, quiet.records) == (0, coarse.truth())
    coarse.write("dsp-7", "working")
    coarse.now_ns += 3 * 10**9
    changed = coarse.refresh()
    assert changed.read == 1
    assert changed.records == coarse.truth()
    assert [r.record_id for r in changed.in_states(("working",))] == ["dsp-7"]


def test_two_writes_in_one_tick_are_both_seen(coarse: Coarse) -> None:
    """The second write leaves every time as the first set it: the scan between them was too close
    to that time to trust it, so the next one reads the record again."""
    coarse.write("dsp-1", "idle")
    assert coarse.refresh().records[0].state == "idle"
    coarse.write("dsp-1", "working")  # same tick: no time changes
    coarse.now_ns += 3 * 10**9
    assert coarse.refresh().records[0].state == "working"


def test_without_the_racy_rule_a_write_in_the_tick_of_a_scan_would_be_missed(
    coarse: Coarse,
) -> None:
    """What the rule guards against: a clock that says the scan was long after the write (as it
    would be if the rule were not there) trusts the unchanged times and keeps the old version."""
    coarse.write("dsp-1", "idle")
    written_ns = coarse.now_ns
    coarse.now_ns += 3 * 10**9  # the scan believes the write settled ...
    assert coarse.refresh().records[0].state == "idle"
    coarse.now_ns = written_ns  # ... and a second write lands in the same tick as the first
    coarse.write("dsp-1", "working")
    coarse.now_ns += 6 * 10**9
    assert (
        coarse.refresh().records[0].state == "idle"
    )  # the times did not move: nothing says it changed
    assert coarse.truth()[0].state == "working"


def test_a_new_process_starts_from_the_summary_file(coarse: Coarse, store: Store) -> None:
    for n in range(LIMITS.summary_persist_after):
        coarse.write(f"dsp-{n}", "idle")
    coarse.now_ns += 3 * 10**9
    assert coarse.refresh().read == LIMITS.summary_persist_after
    assert os.listdir(Path(store.path) / "index" / KIND) == ["1.json"]
    summary.forget()
    coarse.now_ns += 3 * 10**9
    again = coarse.refresh()
    assert (again.read, again.records) == (0, coarse.truth())


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"{",
        b"[]",
        b'{"format":"oms-summary-v1","kind":"ticket"}',
        b'{"format":"oms-summary-v1","kind":"worker"}',
    ],
)
def test_a_damaged_summary_file_is_ignored(coarse: Coarse, store: Store, damage: bytes) -> None:
    for n in range(3):
        coarse.write(f"dsp-{n}", "idle")
    index = Path(store.path) / "index" / KIND
    index.mkdir(parents=True)
    (index / "9.json").write_bytes(damage)
    coarse.now_ns += 3 * 10**9
    latest = coarse.refresh()
    assert (latest.read, latest.records) == (3, coarse.truth())


def test_a_record_that_cannot_be_read_is_named_and_the_others_are_read(
    coarse: Coarse, store: Store
) -> None:
    coarse.write("dsp-1", "idle")
    coarse.write("dsp-2", "idle")
    (Path(store.path) / "records" / KIND / "dsp-1" / "0.json").write_bytes(b"{}")
    coarse.stamp("dsp-1")
    latest = coarse.refresh()
    assert [r.record_id for r in latest.records] == ["dsp-2"]
    assert list(latest.errors) == ["dsp-1"]
    with pytest.raises(type(latest.errors["dsp-1"])):
        latest.checked()


def test_a_real_write_marks_the_kind_directory(store: Store) -> None:
    """Every write sets the time of `records/<kind>/` (a new version of an existing record
    included)."""
    Coarse(store).write("dsp-1", "idle")
    kind_dir = Path(store.path) / "records" / KIND
    os.utime(kind_dir, ns=(0, 0))
    records = store.records(KIND)
    records.transition(
        "dsp-1", expected_version=0, state="working", payload=payload(KIND), operation_id="w",
        actor="oms-system", observed_at=ts(50),
    )  # fmt: skip
    assert kind_dir.stat().st_mtime_ns > 0


OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("write"), st.integers(0, 5), st.sampled_from(["idle", "working", "done"])
        ),
        st.tuples(st.just("wait"), st.integers(0, 3 * 10**9), st.just("")),
        st.tuples(st.just("refresh"), st.just(0), st.just("")),
        st.tuples(st.just("restart"), st.just(0), st.just("")),
    ),
    max_size=40,
)


@settings(max_examples=60)
@given(ops=OPS)
def test_a_refresh_always_equals_reading_every_record(
    tmp_path_factory: pytest.TempPathFactory,
    ops: list,  # type: ignore[type-arg]
) -> None:
    """Writes in any ticks, refreshes at any moment, restarts (a new process, from the summary
    file): every refresh answers what reading every record answers."""
    summary.forget()
    path = tmp_path_factory.mktemp("state") / "state"
    StateRoot.create(str(path), now())[0].close()
    with Store.open(str(path)) as store:
        coarse = Coarse(store)
        for op, n, state in ops:
            if op == "write":
                coarse.write(f"dsp-{n}", state)
            elif op == "wait":
                coarse.now_ns += n
            elif op == "restart":
                summary.forget()
            assert coarse.refresh().records == coarse.truth()
    summary.forget()


def _persisted(coarse: Coarse, store: Store) -> Path:
    for n in range(LIMITS.summary_persist_after):
        coarse.write(f"dsp-{n}", "idle")
    coarse.now_ns += 3 * 10**9
    coarse.refresh()
    return Path(store.path) / "index" / KIND / "1.json"


def test_store_verify_accepts_a_summary_that_agrees_with_the_records(
    coarse: Coarse, store: Store
) -> None:
    _persisted(coarse, store)
    coarse.write("dsp-3", "working")  # after the summary: its entry is stale, which is harmless
    report = verify(store.path)
    assert report.ok, report.findings
    assert report.counts["summaries"] == 1


def test_store_verify_finds_a_summary_entry_that_lies(coarse: Coarse, store: Store) -> None:
    """An entry that claims its record's current time must be that record's latest version, exactly:
    a summary edited to say a record is in another state is an error, and the record's state is what
    oms then reads."""
    path = _persisted(coarse, store)
    key = summary_file.mac_key(store.state.root)
    assert key is not None
    doc = as_rows(json.loads(summary_file.unseal(key, KIND, path.read_bytes())))
    for entry in doc["entries"]:
        if entry[0] == "dsp-5":
            entry[4]["state"] = "done"
    path.write_bytes(
        summary_file.seal(key, KIND, json.dumps(as_columns(doc)).encode())
    )  # even with the state key
    report = verify(store.path)
    assert [(f.path, f.problem) for f in report.findings if f.severity == "error"] == [
        ("index/worker/1.json (dsp-5)", "disagrees with the record's latest version 0")
    ]


def test_store_verify_finds_a_summary_that_is_not_one(coarse: Coarse, store: Store) -> None:
    _persisted(coarse, store).write_bytes(b"[1, 2]")
    (Path(store.path) / "index" / KIND / "notes.txt").write_bytes(b"x")
    os.chmod(Path(store.path) / "index" / KIND / "notes.txt", 0o600)
    errors = [f.path for f in verify(store.path).findings if f.severity == "error"]
    assert sorted(errors) == ["index/worker/1.json", "index/worker/notes.txt"]

"""Attacks on the record summary (`store/summary.py`, `store/summary_file.py`, ADR 0018), from the
attack on issue 12's speed work: each failed on the first summary (bfd7730). File times are set the
way `test_summary.py` does it: a test clock, and times stamped from it.

An edited summary file is not authenticated any more and is ignored (everything is read again); a
file forged with the state key itself (`_forged`) is what `store verify` must still catch."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import check
from oms.limits import LIMITS
from oms.store import Store, summary, summary_file
from oms.store.verify import verify
from tests.unit.store.test_summary import KIND, Coarse, as_columns, as_rows


@pytest.fixture(autouse=True)
def _fresh_process() -> Iterator[None]:
    summary.forget()
    yield
    summary.forget()


@pytest.fixture
def coarse(store: Store) -> Coarse:
    return Coarse(store)


def _persisted(coarse: Coarse, store: Store, n: int = LIMITS.summary_persist_after) -> Path:
    """n records written, then a settled scan that writes the summary file (as a conductor
    would)."""
    for i in range(n):
        coarse.write(f"dsp-{i}", "idle")
    coarse.now_ns += 3 * 10**9
    coarse.refresh()
    [path] = (Path(store.path) / "index" / KIND).iterdir()
    return path


def _body(store: Store, path: Path) -> dict:  # type: ignore[type-arg]
    key = summary_file.mac_key(store.state.root)
    assert key is not None
    return as_rows(json.loads(summary_file.unseal(key, KIND, path.read_bytes())))


def _forged(store: Store, path: Path, doc: dict) -> None:  # type: ignore[type-arg]
    """Write `doc` as a summary authenticated with the state key (an attacker who holds the key)."""
    key = summary_file.mac_key(store.state.root)
    assert key is not None
    path.write_bytes(summary_file.seal(key, KIND, json.dumps(as_columns(doc)).encode()))


def _index(store: Store) -> Path:
    index = Path(store.path) / "index" / KIND
    index.mkdir(parents=True, exist_ok=True)
    for made in (index.parent, index):
        os.chmod(made, 0o700)
    return index


def _errors(report: object) -> list[tuple[str, str]]:
    return [(f.path, f.problem) for f in report.findings if f.severity == "error"]  # type: ignore[attr-defined]


# ------------------------------------------------------- 1. a file name in index/ breaks every read
@pytest.mark.parametrize(
    "name", ["\u00b2.json", "\u2460.json"]
)  # str.isdigit() is True, int() refuses them
def test_a_summary_name_of_unicode_digits_does_not_break_latest(
    coarse: Coarse, store: Store, name: str
) -> None:
    coarse.write("dsp-1", "idle")
    (_index(store) / name).write_bytes(b"{}")
    os.chmod(_index(store) / name, 0o600)
    coarse.now_ns += 3 * 10**9
    assert (
        coarse.refresh().records == coarse.truth()
    )  # today: ValueError out of summary._generations


@pytest.mark.parametrize("name", ["\u00b2.json"])
def test_store_verify_reports_a_summary_name_of_unicode_digits(
    coarse: Coarse, store: Store, name: str
) -> None:
    coarse.write("dsp-1", "idle")
    (_index(store) / name).write_bytes(b"{}")
    os.chmod(_index(store) / name, 0o600)
    report = verify(store.path)  # today: ValueError out of check_index (verify "never raises")
    assert any(name in path for path, _ in _errors(report))


# ---------------------------------------------------------------- 2. a deeply nested summary file
DEEP = b"[" * 100_000 + b"]" * 100_000


def test_a_deeply_nested_summary_file_is_ignored(coarse: Coarse, store: Store) -> None:
    coarse.write("dsp-1", "idle")
    (_index(store) / "1.json").write_bytes(DEEP)
    os.chmod(_index(store) / "1.json", 0o600)
    coarse.now_ns += 3 * 10**9
    assert coarse.refresh().records == coarse.truth()  # today: RecursionError (not caught by _load)


def test_store_verify_reports_a_deeply_nested_summary_file(coarse: Coarse, store: Store) -> None:
    coarse.write("dsp-1", "idle")
    (_index(store) / "1.json").write_bytes(DEEP)
    os.chmod(_index(store) / "1.json", 0o600)
    report = verify(store.path)  # today: RecursionError out of summary.problems
    assert [p for p, _ in _errors(report)] == ["index/worker/1.json"]


# --------------------------------------------------------- 3. a record that cannot be read vanishes
def test_a_new_process_still_names_a_record_that_cannot_be_read(
    coarse: Coarse, store: Store
) -> None:
    """The summary file keeps the records read, not the errors; a new process answering from it
    (nothing changed) has no error to name: the record silently disappears and `checked()`
    passes."""
    for i in range(LIMITS.summary_persist_after + 1):
        coarse.write(f"dsp-{i}", "idle")
    os.chmod(
        Path(store.path) / "records" / KIND / "dsp-3" / "0.json", 0o644
    )  # no directory time moves
    coarse.now_ns += 3 * 10**9
    first = coarse.refresh()
    assert list(first.errors) == ["dsp-3"]  # this process names it ...
    assert (Path(store.path) / "index" / KIND / "1.json").exists()
    summary.forget()  # ... `oms ticket list` / `oms status` / a restarted conductor
    coarse.now_ns += 1 * 10**9
    second = coarse.refresh()
    assert list(second.errors) == ["dsp-3"]  # today: {} and 64 records, exit 0


# ------------------------------------------------------- 4. verify misses what the fast path serves
def test_an_edited_summary_is_ignored_and_reported(coarse: Coarse, store: Store) -> None:
    """Edited without the state key: its MAC is wrong, so oms reads every record instead, and verify
    says so."""
    path = _persisted(coarse, store)
    doc = _body(store, path)
    for entry in doc["entries"]:
        if entry[0] == "dsp-5":
            entry[4]["state"] = "done"
    path.write_bytes(path.read_bytes().partition(b"\n")[0] + b"\n" + json.dumps(doc).encode())
    errors = _errors(verify(store.path))
    assert [p for p, _ in errors] == ["index/worker/1.json"]
    assert "not authenticated" in errors[0][1]
    summary.forget()
    coarse.now_ns += 1 * 10**9
    served = {r.record_id: r.state for r in coarse.refresh().records}
    assert served["dsp-5"] == "idle"
    assert os.listdir(path.parent) == [
        "2.json"
    ]  # read again, written again: the edited file is gone
    assert verify(store.path).ok


def test_store_verify_reports_an_entry_that_oms_would_serve_even_when_stale(
    coarse: Coarse, store: Store
) -> None:
    """verify once called an entry whose time is not its directory's "stale, harmless"; but while
    the kind's directory time is the one in the file, nothing is read again: a file forged with the
    key and served must agree with every record."""
    path = _persisted(coarse, store)
    doc = _body(store, path)
    for entry in doc["entries"]:
        if entry[0] == "dsp-5":
            entry[1] += 1  # not its directory's time any more: "stale"
            entry[4]["state"] = "done"
    _forged(store, path, doc)
    summary.forget()
    coarse.now_ns += 1 * 10**9
    assert {r.record_id: r.state for r in coarse.refresh().records}[
        "dsp-5"
    ] == "done"  # served: the key's holder
    assert (
        "index/worker/1.json (dsp-5)",
        "disagrees with the record's latest version 0",
    ) in _errors(verify(store.path))


def test_store_verify_reports_an_entry_for_a_record_that_does_not_exist(
    coarse: Coarse, store: Store
) -> None:
    path = _persisted(coarse, store)
    doc = _body(store, path)
    ghost = json.loads(json.dumps(doc["entries"][0]))
    ghost[0] = ghost[4]["record_id"] = "dsp-ghost"
    doc["entries"].append(ghost)
    _forged(store, path, doc)
    assert ("index/worker/1.json (dsp-ghost)", "names a record that does not exist") in _errors(
        verify(store.path)
    )


def test_store_verify_checks_the_summary_oms_reads(coarse: Coarse, store: Store) -> None:
    """Only ASCII generation names of at most 18 digits count, for the reader and for verify alike:
    a long-named copy is an unexpected entry, never "the newest"."""
    path = _persisted(coarse, store)
    long_name = path.parent / ("1" + "0" * 20 + ".json")
    long_name.write_bytes(path.read_bytes())
    os.chmod(long_name, 0o600)
    doc = _body(store, path)
    for entry in doc["entries"]:
        if entry[0] == "dsp-5":
            entry[4]["state"] = "done"  # the time untouched: the edit verify is built to catch
    _forged(store, path, doc)
    summary.forget()
    coarse.now_ns += 1 * 10**9
    assert {r.record_id: r.state for r in coarse.refresh().records}["dsp-5"] == "done"
    errors = [p for p, _ in _errors(verify(store.path))]
    assert "index/worker/1.json (dsp-5)" in errors
    assert f"index/worker/{long_name.name}" in errors


# ----------------------------------------------------------- 5. entries are not checked when loaded
def test_a_summary_entry_is_checked_like_the_version_it_stands_for(
    coarse: Coarse, store: Store
) -> None:
    """A version file with this id is refused on read (id grammar); so is a summary entry with it,
    even in a file authenticated with the key: the whole file is ignored."""
    path = _persisted(coarse, store)
    doc = _body(store, path)
    evil = json.loads(json.dumps(doc["entries"][0]))
    evil[0] = evil[4]["record_id"] = "dsp-\x1b]0;pwned\x07"
    doc["entries"].append(evil)
    _forged(store, path, doc)
    summary.forget()
    coarse.now_ns += 1 * 10**9
    latest = coarse.refresh()
    for record in latest.records:
        check(record.record_id, "id")
    assert latest.records == coarse.truth()


def test_a_summary_claiming_a_scan_in_the_future_is_ignored(coarse: Coarse, store: Store) -> None:
    """A `seen_ns` far ahead would keep the fast path (and its full scan) away for good."""
    path = _persisted(coarse, store)
    doc = _body(store, path)
    doc["seen_ns"] = 2**62
    doc["entries"] = [e for e in doc["entries"] if e[0] != "dsp-5"]
    _forged(store, path, doc)
    summary.forget()
    coarse.now_ns += 1 * 10**9
    assert "dsp-5" in {r.record_id for r in coarse.refresh().records}


# ------------------------------------------------------ 6. a large summary file costs every process
def test_a_summary_file_costs_memory_in_proportion_to_its_size(store: Store) -> None:
    """A kind with no records (no `records/authorization/`) still parses its summary file first, on
    every refresh of every new process, and never replaces it (nothing is read, so nothing is
    saved). json.loads of `[[],[],...]` takes ~25x the file in memory: at `Limits.summary_bytes`
    (256 MiB), ~6 GB and ~20 s for every `oms status` (64 MiB measured: 1.7 GB RSS, 5 s a run,
    every run)."""
    import tracemalloc

    index = Path(store.path) / "index" / "authorization"
    index.mkdir(parents=True)
    n = 4 * 1024 * 1024 // 3
    (index / "1.json").write_bytes(b"[" + b"[]," * (n - 1) + b"[]]")
    os.chmod(index / "1.json", 0o600)
    tracemalloc.start()
    try:
        assert store.latest("authorization").records == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 4 * 1024 * 1024, f"{peak / 2**20:.0f} MiB to ignore a 4 MiB file"

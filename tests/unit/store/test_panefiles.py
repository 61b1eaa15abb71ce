"""`store/panefiles.py`: the one home of the `panes/<dispatch>.*` names."""

from __future__ import annotations

from pathlib import Path

import pytest

from oms.canonical import JsonObject
from oms.errors import InvalidIdError
from oms.fsio import Root
from oms.store import panefiles


def test_every_name_of_a_dispatch() -> None:
    names = [
        f("dsp-1")
        for f in (
            panefiles.registry_path,
            panefiles.kill_path,
            panefiles.exit_path,
            panefiles.spec_path,
            panefiles.init_path,
            panefiles.log_path,
        )
    ]
    assert names == [
        "panes/dsp-1.json",
        "panes/dsp-1.kill.json",
        "panes/dsp-1.exit.json",
        "panes/dsp-1.launch.json",
        "panes/dsp-1.init.json",
        "panes/dsp-1.log",
    ]  # the broker's socket is in the sandbox directory, never under the state root (ADR 0026)


@pytest.mark.parametrize(
    ("name", "schema"),
    [
        ("dsp-1.json", "pane-registry"),
        ("dsp-1.kill.json", "kill-marker"),
        ("dsp-1.exit.json", "pane-exit"),
        ("dsp-1.launch.json", "launch-spec"),
        ("dsp-1.init.json", "sandbox-init"),
        ("dsp-1.log", None),
        ("dsp-1.sock", None),
        ("../x.json", None),
        (".json", None),
    ],
)
def test_schema_of(name: str, schema: str | None) -> None:
    assert panefiles.schema_of(name) == schema


def test_a_bad_dispatch_id_names_nothing() -> None:
    with pytest.raises(InvalidIdError):
        panefiles.exit_path("../evil")


def test_broker_files() -> None:
    assert panefiles.is_broker_socket("panes/dsp-1.sock")
    assert not panefiles.is_broker_socket("tmp/dsp-1.sock")
    assert panefiles.is_broker_log("dsp-1.log")
    assert not panefiles.is_broker_log("x/y.log")


def test_a_new_pane_with_an_old_pane_id_is_registered(state_path: Path) -> None:
    """A new tmux server numbers its panes from `%0` again: a relaunch's pane may carry the id of
    the one it replaces. The registry kept the old pane's process group (its end was then judged by
    a dead group)."""
    doc: JsonObject = {
        "format": "oms-pane-v1",
        "dispatch_id": "dsp-1",
        "session": "dsp-1",
        "pane_id": "%0",
        "pane_pid": 4242,
        "provider_mode": "command",
        "created_at": "2026-11-30T00:00:00.000Z",
    }
    with Root.open(str(state_path)) as root:
        assert panefiles.write_registry(root, doc) is True
        assert panefiles.write_registry(root, doc) is False  # this very pane: registered already
        assert panefiles.write_registry(root, {**doc, "pane_pid": 4343}) is True
        registry = panefiles.read_registry(root, "dsp-1")
    assert registry is not None
    assert registry["pane_pid"] == 4343


def test_an_exit_record_is_written_once_per_pane(state_path: Path) -> None:
    """GAP_STALE_EXIT (ADR 0014): a pane's supervisor keeps the record its own pane published first,
    and replaces one an earlier pane left, so no pane's end is taken from another's record."""
    first: JsonObject = {
        "format": "oms-exit-v1",
        "dispatch_id": "dsp-1",
        "status": 1,
        "signal": None,
        "ended_at": "2026-11-30T00:00:00.000Z",
        "detail": "the worker could not start",
        "pane_pid": 1111,
    }
    with Root.open(str(state_path)) as root:
        panefiles.write_exit(root, first)
        panefiles.write_exit(
            root, {**first, "status": 0, "detail": "again"}
        )  # the same pane: its first stays
        assert panefiles.read_exit(root, "dsp-1") == first
        later = {**first, "status": 0, "pane_pid": 2222, "detail": "the new pane's end"}
        panefiles.write_exit(root, later)  # another pane: the earlier record does not stand for it
        assert panefiles.read_exit(root, "dsp-1") == later


def test_an_earlier_panes_late_record_never_replaces_a_later_panes(state_path: Path) -> None:
    """GAP_LATE_EXIT (ADR 0014): the old pane's supervisor, hung up and recording its end after the
    new pane's supervisor recorded its own, keeps its hands off that record (`pane_started`)."""
    new_pane: JsonObject = {
        "format": "oms-exit-v1",
        "dispatch_id": "dsp-1",
        "status": 1,
        "signal": None,
        "ended_at": "2026-11-30T00:00:01.000Z",
        "detail": "the worker could not start",
        "pane_pid": 2222,
        "pane_started": 900,
    }
    old_pane = {
        **new_pane,
        "pane_pid": 1111,
        "pane_started": 500,
        "detail": "the worker did not start",
    }
    with Root.open(str(state_path)) as root:
        panefiles.write_exit(root, new_pane)
        panefiles.write_exit(root, old_pane)
        assert panefiles.read_exit(root, "dsp-1") == new_pane

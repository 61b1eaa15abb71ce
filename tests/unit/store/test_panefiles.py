"""`store/panefiles.py`: the one home of the `panes/<dispatch>.*` names."""

from __future__ import annotations

import pytest

from oms.errors import InvalidIdError
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
            panefiles.socket_path,
            panefiles.log_path,
        )
    ]
    assert names == [
        "panes/dsp-1.json",
        "panes/dsp-1.kill.json",
        "panes/dsp-1.exit.json",
        "panes/dsp-1.launch.json",
        "panes/dsp-1.init.json",
        "panes/dsp-1.sock",
        "panes/dsp-1.log",
    ]


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

"""Every pane server the shells are given implements `services/delivery/interface.Panes` with the
protocol's own signatures: oms's tmux server, the tick's one-listing view, and the simulator's
in-memory server (mypy holds the types; this holds the names and parameters, which a structural
protocol would otherwise let drift until a shell called the missing one)."""

from __future__ import annotations

import inspect

import pytest

from oms.adapters.panes import TmuxPanes
from oms.services.conductor.tick import SeenPanes
from oms.services.delivery.interface import Panes

MEMBERS = sorted(
    name for name, value in vars(Panes).items() if callable(value) and not name.startswith("_")
)


def test_the_protocol_names_what_the_shells_call() -> None:
    assert {"list", "observe", "ensure", "stop", "close", "fresh", "kill_server"} <= set(MEMBERS)


@pytest.mark.parametrize("server", [TmuxPanes, SeenPanes])
@pytest.mark.parametrize("name", MEMBERS)
def test_a_pane_server_has_each_member_as_the_protocol_says(server: type, name: str) -> None:
    expected = inspect.signature(getattr(Panes, name))
    got = inspect.signature(getattr(server, name))
    assert list(got.parameters) == list(expected.parameters), (server.__name__, name)
    for param, want in expected.parameters.items():
        assert got.parameters[param].kind == want.kind, (server.__name__, name, param)
        assert got.parameters[param].default == want.default, (server.__name__, name, param)

"""On `[store] backend = "etcd"` (ADR 0043) every command not yet served on a cluster is refused in
one line naming the backend — also the commands that never read the configuration: before, `oms
ticket show T` read the state root's files, found no ticket and said so, as if the store were
empty. The refusal is where every workspace opens (`Workspace.open`), so a command is refused unless
it says it is served on etcd. No cluster is needed: the refusal comes before any contact."""

from __future__ import annotations

import json

import pytest

from oms.errors import ConfigError
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.etcd_cluster import free_ports
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd

REFUSED = (
    ("web",),  # checked as it starts (its requests then skip the read)
)


@pytest.mark.cli
@pytest.mark.parametrize("args", REFUSED, ids=" ".join)
def test_a_command_not_served_on_etcd_is_refused_in_one_line(
    chain: Chain, oms: OmsCommand, args: tuple[str, ...]
) -> None:
    with chain.workspace() as ws:  # a ticket on files, not to be shown as if it were the cluster's
        tickets.add(ws, "On files", "")
    _use_etcd(chain, [f"http://127.0.0.1:{p}" for p in free_ports(1)], "/oms/refused/")
    code, out = _oms(oms, chain, *args)
    assert code == 1, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines[0].startswith("oms: error: "), out
    assert 'store.backend = "etcd"' in lines[0], out
    assert len(lines) == 2, out
    assert lines[1].strip().startswith("hint:"), out
    code, out = _oms(oms, chain, *args, "--json")
    if code != 2:  # (a command without --json is refused by its parser first)
        assert code == 1, out
        assert json.loads(out.splitlines()[0])["error"] == "config"


def test_the_workspace_refuses_before_the_configuration_is_asked(chain: Chain) -> None:
    _use_etcd(chain, ["http://127.0.0.1:1"], "/oms/x/")
    with pytest.raises(ConfigError, match=r'store\.backend = "etcd" serves') as caught:
        Workspace.open(str(chain.state), str(chain.repo))
    assert "\n" not in caught.value.message


@pytest.mark.cli
def test_a_configuration_invalid_elsewhere_still_names_its_store(
    chain: Chain, oms: OmsCommand
) -> None:
    """`[store] backend = "etcd"` with no endpoints does not parse as a configuration; a command
    that never reads it is refused all the same (the backend is read for that one key)."""
    with chain.workspace() as ws:
        tickets.add(ws, "On files", "")
    chain.edit_config(lambda text: text + '\n[store]\nbackend = "etcd"\n', commit=True)
    code, out = _oms(oms, chain, "web")
    assert code == 1, out
    assert 'store.backend = "etcd" serves every command but' in out


@pytest.mark.cli
@pytest.mark.parametrize("args", [("ticket", "list"), ("status",)], ids=" ".join)
def test_a_command_served_on_etcd_with_a_broken_store_table_says_why(
    chain: Chain, oms: OmsCommand, args: tuple[str, ...]
) -> None:
    """A command served on etcd whose configuration names etcd but cannot be read says why in one
    line; it does not fall back to the state root's files (where a ticket is)."""
    with chain.workspace() as ws:
        tickets.add(ws, "On files", "")
    chain.edit_config(lambda text: text + '\n[store]\nbackend = "etcd"\n', commit=True)
    code, out = _oms(oms, chain, *args)
    assert code == 1, out
    assert 'store.backend = "etcd" needs store.endpoints' in out
    assert "On files" not in out

"""On `[store] backend = "etcd"` (ADR 0043) every command of the CLI is served on the cluster
(amendment `rest`); a workspace opened without saying it serves etcd is refused in one line naming
the backend — also for a caller that never reads the configuration: before, `oms ticket show T`
read the state root's files, found no ticket and said so, as if the store were empty. The refusal
is where every workspace opens (`Workspace.open`). No cluster is needed: the refusal comes before
any contact."""

from __future__ import annotations

import pytest

from oms.errors import ConfigError
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.etcd_cluster import free_ports
from tests.helpers import OmsCommand
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd


@pytest.mark.cli
def test_web_and_notify_are_no_longer_refused(chain: Chain, oms: OmsCommand) -> None:
    """The two commands still refused before amendment `rest` (`oms web` as it started, the
    detached `oms conductor notify` as it opened) open on the cluster now: an unreachable one
    says so, and nothing says the command is not served."""
    _use_etcd(chain, [f"http://127.0.0.1:{p}" for p in free_ports(1)], "/oms/refused/")
    for args, exit_code in ((("web",), 1), (("conductor", "notify", "ntc-1"), 0)):
        code, out = _oms(oms, chain, *args)
        assert code == exit_code, out  # (notify says each notice's fault in its log, and goes on)
        assert "not served" not in out, out
        assert "etcd unreachable" in out, out


def test_the_workspace_refuses_before_the_configuration_is_asked(chain: Chain) -> None:
    _use_etcd(chain, ["http://127.0.0.1:1"], "/oms/x/")
    with pytest.raises(ConfigError, match=r'not served on store\.backend = "etcd"') as caught:
        Workspace.open(str(chain.state), str(chain.repo))
    assert "\n" not in caught.value.message


def test_a_configuration_invalid_elsewhere_still_names_its_store(chain: Chain) -> None:
    """`[store] backend = "etcd"` with no endpoints does not parse as a configuration; a workspace
    opened without saying it serves etcd is refused all the same (the backend is read for that one
    key)."""
    with chain.workspace() as ws:
        tickets.add(ws, "On files", "")
    chain.edit_config(lambda text: text + '\n[store]\nbackend = "etcd"\n', commit=True)
    with pytest.raises(ConfigError, match=r'not served on store\.backend = "etcd"'):
        Workspace.open(str(chain.state), str(chain.repo))


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

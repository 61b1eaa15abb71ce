"""Two hosts import one issue at once (ADR 0043, amendments `cmds3` and `names2`; SECURITY.md "The
authority store on etcd", 21). An import reads whether the issue's ticket is there, writes its
content and then creates its first version by compare-and-set on its absence. Another host's
import of the same issue between that read and that create made this one fail in one line,
`operation-conflict` ("already produced version 0 with a different change": each host's first
version names its own state key), and an import of a list stopped there, the rest of the list not
imported — though the issue was imported, as a re-run says (`already imported`). Now a create
that loses to another import of the same content is that: the ticket the other host made, not
created here, and the list goes on. On the real 3-member cluster, two state roots of one clone."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from oms.domain import tickets as machine
from oms.services.admin.setup import init
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store.payloads import ticket_payload
from tests.chain import Chain
from tests.etcd_cluster import Cluster, pin_cluster
from tests.integration.etcd.test_commands_cli import _use_etcd


def _issues(*numbers: int) -> bytes:
    return json.dumps(
        [
            {
                "number": n,
                "title": f"Issue {n}",
                "body": "b",
                "url": f"https://github.com/o/r/issues/{n}",
            }
            for n in numbers
        ]
    ).encode()


def test_an_issue_another_host_imports_meanwhile_is_imported_not_a_conflict(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Host a imports issues 1-3; between its read of issue 1 and its create, host b imports
    issues 1 and 2. Host a's import ends well: issue 1 and 2 are b's tickets (`created` false),
    issue 3 is a's; each ticket is there once, its first version b's or a's. Before, a's import
    failed on issue 1 (`operation-conflict`) and issue 3 was not imported."""
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    other = dataclasses.replace(chain, state=chain.base / "state-b")
    init(str(other.state), str(chain.repo))
    pin_cluster(chain.repo, other.state)
    made = machine.new
    meanwhile: list[list[tuple[str, bool]]] = []

    def b_imports_first(**fields: Any) -> Any:  # a has read (absent) and written the content
        if not meanwhile:
            meanwhile.append([])
            with Workspace.open(str(other.state), str(chain.repo), etcd=True) as ws_b:
                monkeypatch.setenv("OMS_HOST", "host-b")  # its writes claim a name of its own
                done = tickets.import_github_list(ws_b, _issues(1, 2))
                monkeypatch.setenv("OMS_HOST", "host-a")
            meanwhile[0] = [(t.record_id, created) for t, created in done]
        return made(**fields)

    monkeypatch.setattr(machine, "new", b_imports_first)
    monkeypatch.setenv("OMS_HOST", "host-a")  # two state roots, two hosts (ADR 0043 `cross6`)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws_a:
        done = tickets.import_github_list(ws_a, _issues(1, 2, 3))
        keys = {ws_a.store.state.meta.key_id}
        listed = tickets.list_all(ws_a)
    assert [created for _, created in meanwhile[0]] == [True, True]
    assert [created for _, created in done] == [False, False, True]
    ids = [t.record_id for t, _ in done]
    assert ids[:2] == [tid for tid, _ in meanwhile[0]]
    assert sorted(t.record_id for t in listed) == sorted(ids)
    by_id = {t.record_id: t for t in listed}
    assert [ticket_payload(by_id[i])["added_by"] in keys for i in ids] == [False, False, True]
    assert all(by_id[i].version == 0 for i in ids)

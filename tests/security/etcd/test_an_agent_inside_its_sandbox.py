"""An agent attacking oms's authority on etcd from inside its worker's sandbox (SECURITY.md "The
authority store on etcd"; ADR 0043, amendment `attack-agent`). The agent is a command worker
running `tests/security/etcd/agent_attack.py`: told nothing, it finds the cluster where an agent
can look (the committed `[store]` in its worktree, `/proc/net/tcp`, its environment, descriptors
and home) and tries to connect, read every key of the prefix (ticket records, the ledger), put a
key, take a lock, delete a key, list, grant and revoke leases — over plain http and, on a TLS
cluster, over https without a client certificate (it has none).

- its own network (the default, ADR 0026): a member's port is not there; every attempt is
  refused (a regression guard), and so are its two doors asked to act for another dispatch (`oms
  worker bridge` calling `record_result`, a `SessionStart` hook, each with another dispatch id:
  the broker serves only its worker's binding; both answered with the binding checks taken out);
- `network = "host"` (a role's opt-out) on a cluster that lets in a client without a certificate:
  the agent read every key and the ledger, put and deleted keys, took a lock and revoked a lease
  (found by this attack). Now the launch is refused before the pane, the worker parked with the
  reason, and nothing of the agent runs;
- `network = "host"` on a cluster whose every client and peer URL requires a client certificate:
  the worker launches, the agent reaches the members' ports and gets nothing from them.

A real 3-member cluster each (the shared plain one; one TLS cluster for this module), real git,
tmux and bubblewrap."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters.etcd.client import ClientTls, Etcd
from oms.errors import ConfigError, ProcessError
from oms.services.chain import providers
from oms.store.payloads import worker_payload
from tests.chain import Chain, accepted, sandbox_dir
from tests.etcd_cluster import ETCD, Cluster, ServerTls
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_deliver_etcd import TIMEOUT, EtcdChain, _deliver, on_etcd
from tests.security.etcd.agent_attack import ATTACK
from tests.tls_certs import Leaf, authority, leaf

__all__ = ["on_etcd"]

MARK = "oms-etcd-attack-probe"  # every key the agent tries to put is named after this
ATTEMPTS = (
    "the bridge for another dispatch",
    "a hook for another dispatch",
    "an etcd member answers",
    "read the prefix's keys",
    "read ticket bodies or the ledger",
    "put a key",
    "take a lock",
    "delete a key",
    "list, grant and revoke leases",
)


def _attacker(chain: Chain, network: str, *mode: str) -> None:
    """The command worker's role runs the attack (on the host's network when `network`)."""
    script = chain.base / "etcd_attack.py"
    script.write_text(f"#!{sys.executable}\n" + ATTACK)  # oms's interpreter: shown read-only
    script.chmod(0o755)
    opt_out = '\nnetwork = "host"' if network == "host" else ""
    chain.edit_config(
        lambda s: s.replace(
            'argv = ["true"]', f"argv = {json.dumps([str(script), MARK, *mode])}{opt_out}"
        ),
        commit=True,
    )


def _report(chain: Chain) -> dict[str, dict[str, str]]:
    homes = sandbox_dir(chain.state) / "homes"
    found = eventually(
        lambda: sorted(homes.glob("command-*/etcd-attack.json")),
        timeout=TIMEOUT,
        what="the agent's report in its home",
    )
    doc: dict[str, dict[str, str]] = json.loads(found[0].read_text())
    return doc


def _reached(report: dict[str, dict[str, str]]) -> dict[str, str]:
    assert not [n for n, r in report.items() if r["outcome"] == "error"], report  # a broken attack
    return {n: r["detail"] for n, r in report.items() if r["outcome"] == "reached"}


def _planted(client: Etcd) -> list[str]:
    """Every key of the whole cluster named after `MARK`."""
    return [kv.key for kv in client.range_prefix("/", keys_only=True) if MARK in kv.key]


@pytest.mark.cli
def test_an_agent_on_its_own_network_reaches_no_member(
    on_etcd: EtcdChain, oms: OmsCommand, etcd_cluster: Cluster
) -> None:
    _attacker(on_etcd, "none")
    _, event_id = accepted(on_etcd)
    done = _deliver(oms, on_etcd, event_id)
    assert done.returncode == 0, done.stdout + done.stderr
    report = _report(on_etcd)
    assert set(ATTEMPTS) <= set(report), report
    assert _reached(report) == {}
    client = Etcd(etcd_cluster.endpoints)
    try:
        assert _planted(client) == []
    finally:
        client.close()


@pytest.mark.cli
def test_a_worker_on_the_hosts_network_is_not_launched_while_the_cluster_lets_anyone_in(
    on_etcd: EtcdChain, oms: OmsCommand, etcd_cluster: Cluster
) -> None:
    _attacker(on_etcd, "host")
    dispatch_id, event_id = accepted(on_etcd)
    done = _deliver(oms, on_etcd, event_id)
    said = done.stdout + done.stderr
    assert "Traceback" not in said
    with on_etcd.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
    payload = worker_payload(worker)
    assert payload["health"] == "parked", said
    reason = str(payload.get("health_reason"))
    assert "would reach oms's authority on etcd" in reason, reason
    assert "lets in a client without a certificate" in reason, reason
    assert not list((sandbox_dir(on_etcd.state) / "homes").glob("command-*/etcd-attack.json"))
    client = Etcd(etcd_cluster.endpoints)
    try:
        assert _planted(client) == []
    finally:
        client.close()


# --------------------------------------------------------------- a cluster requiring certificates
@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, Path, Leaf]]:
    """A 3-member cluster whose client and peer URLs all require a client certificate its CA
    signed; (the cluster, the CA's certificate, the person's client certificate)."""
    if ETCD is None:
        pytest.skip("etcd is not installed (.ci/setup does)")
    base = tmp_path_factory.mktemp("guarded")
    ca = authority(base, "ca")
    server = leaf(ca, base, "server", server=True)
    client = leaf(ca, base, "client", server=False)
    tls = ClientTls(ca.cert_path.read_bytes(), client.cert.read_bytes(), client.key.read_bytes())
    (base / "cluster").mkdir()
    cluster = Cluster(
        base / "cluster", tls=ServerTls(server.cert, server.key, ca.cert_path, tls), peer_tls=True
    )
    try:
        cluster.start_all()
        yield cluster, ca.cert_path, client
    finally:
        cluster.stop()


@pytest.mark.cli
def test_a_worker_on_the_hosts_network_gets_nothing_of_a_cluster_requiring_certificates(
    deliverable: Chain,
    oms: OmsCommand,
    guarded: tuple[Cluster, Path, Leaf],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cluster, ca, client = guarded
    settings = tmp_path / "person"
    (settings / "oms").mkdir(parents=True)
    (settings / "oms" / "etcd.toml").write_text(
        f'[tls]\nca = "{ca}"\ncert = "{client.cert}"\nkey = "{client.key}"\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(settings))
    from tests.integration.etcd.test_commands_cli import _use_etcd

    _use_etcd(deliverable, cluster.endpoints, "/oms-guarded/")
    chain = EtcdChain(deliverable.base, deliverable.repo, deliverable.state, deliverable.advisor)
    chain.clock = deliverable.clock
    _attacker(chain, "host", "named")  # (other clusters of this machine are not this test's)
    _, event_id = accepted(chain)
    done = _deliver(oms, chain, event_id)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("processed: created"), done.stdout
    report = _report(chain)
    assert report["tcp connect to a member"]["outcome"] == "reached"  # the host's network
    assert set(_reached(report)) == {"tcp connect to a member"}, report
    person = Etcd(
        cluster.endpoints,
        tls=ClientTls(ca.read_bytes(), client.cert.read_bytes(), client.key.read_bytes()),
    )
    try:
        assert _planted(person) == []
    finally:
        person.close()


# A committed quota probe (which nobody approves, ADR 0026) on the host's network: one PUT
_PROBE = """
import base64, json, sys, urllib.request
put = {"key": base64.b64encode(sys.argv[2].encode()).decode(), "value": "cHJvYmU="}
urllib.request.urlopen(sys.argv[1] + "/v3/kv/put", json.dumps(put).encode(), timeout=5).read()
print(42)
"""


@pytest.mark.usefixtures("probes_given_time")
def test_a_quota_probe_on_the_hosts_network_is_refused_while_the_cluster_lets_anyone_in(
    on_etcd: EtcdChain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    argv = (sys.executable, "-c", _PROBE, etcd_cluster.endpoints[0], etcd_prefix + MARK)
    with on_etcd.workspace() as ws:
        with pytest.raises(ProcessError, match="exited 1"):  # its own network
            providers.run_probe(providers.sandboxed(ws, argv, None))
        with pytest.raises(ConfigError, match="a quota probe with quota_probe_network") as refused:
            providers.run_probe(providers.sandboxed(ws, argv, None, host_network=True))
    assert "lets in a client without a certificate" in refused.value.message
    client = Etcd(etcd_cluster.endpoints)
    try:
        assert _planted(client) == []
    finally:
        client.close()

"""etcd over TLS (ADR 0043, amendment `etcdtls`): a real 3-member cluster serving its clients
over TLS with `--client-cert-auth` (peers plain), certificates made here with `cryptography`.
`oms ticket add|list`, `oms status` and `oms store verify` work with the person's
`oms/etcd.toml` naming the CA, client certificate and key; every way it can be wrong is one line
naming the endpoint and the fix: no client certificate, one another CA signed, a CA that did not
sign the members' certificates, plain http to a TLS member, a key open to others."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from oms.adapters.etcd.client import ClientTls, Etcd
from oms.errors import AgentTreeError, EtcdUnavailableError, InvalidInputError
from oms.limits import LIMITS
from oms.services.workspace.backend import client_tls
from tests.chain import Chain
from tests.etcd_cluster import ETCD, Cluster, ServerTls
from tests.helpers import OmsCommand
from tests.helpers import git as run_git
from tests.tls_certs import Authority, Leaf, authority, leaf


class Pki(NamedTuple):
    """The cluster's CA and the certificates the tests present or trust."""

    ca: Authority
    rogue: Authority  # another CA: signed nothing the members hold
    server: Leaf
    client: Leaf
    rogue_client: Leaf
    expired_client: Leaf
    rogue_server: Leaf  # a member's certificate the cluster's CA did not sign


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    base = tmp_path_factory.mktemp("pki")
    ca, rogue = authority(base, "ca"), authority(base, "rogue")
    return Pki(
        ca,
        rogue,
        leaf(ca, base, "server", server=True),
        leaf(ca, base, "client", server=False),
        leaf(rogue, base, "rogue-client", server=False),
        leaf(ca, base, "expired-client", server=False, expired=True),
        leaf(rogue, base, "rogue-server", server=True),
    )


def _client_tls(ca: Authority, client: Leaf | None) -> ClientTls:
    return ClientTls(
        ca.cert_path.read_bytes(),
        client.cert.read_bytes() if client else None,
        client.key.read_bytes() if client else None,
    )


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory: pytest.TempPathFactory, pki: Pki) -> Iterator[Cluster]:
    if ETCD is None:
        pytest.skip("etcd is not installed (.ci/setup does)")
    served = ServerTls(
        pki.server.cert, pki.server.key, pki.ca.cert_path, _client_tls(pki.ca, pki.client)
    )
    cluster = Cluster(tmp_path_factory.mktemp("etcd-tls"), tls=served)
    try:
        cluster.start_all()
        yield cluster
    finally:
        cluster.stop()


def _settings(home: Path, ca: Path, client: Leaf | None) -> dict[str, str]:
    """The person's `oms/etcd.toml` under `home` (its XDG_CONFIG_HOME, for `oms.run`)."""
    (home / "oms").mkdir(parents=True, exist_ok=True)
    lines = ["[tls]", f'ca = "{ca}"']
    if client is not None:
        lines += [f'cert = "{client.cert}"', f'key = "{client.key}"']
    (home / "oms" / "etcd.toml").write_text("\n".join(lines) + "\n")
    return {"XDG_CONFIG_HOME": str(home)}


def _use_etcd(chain: Chain, endpoints: list[str], prefix: str, env: dict[str, str]) -> None:
    """Commit `[store]` and pin its cluster with the person's TLS settings `env` names."""
    from tests.integration.etcd.test_commands_cli import _use_etcd as committed_and_pinned

    home = env.get("XDG_CONFIG_HOME")
    committed_and_pinned(chain, endpoints, prefix, None if home is None else Path(home))


def _oms(oms: OmsCommand, chain: Chain, env: dict[str, str], *args: str) -> tuple[int, str]:
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms.run(*args, *where, env=env)
    return done.returncode, done.stdout + done.stderr


def _one_line_error(out: str) -> str:
    """The error line (and its hint): never a traceback."""
    assert "Traceback" not in out, out
    lines = out.strip().splitlines()
    assert len(lines) <= 2, out
    assert lines[-1].strip().startswith("hint: ") or len(lines) == 1, out
    return out


@pytest.mark.cli
def test_commands_run_over_tls_with_a_client_certificate(
    chain: Chain, oms: OmsCommand, tls_cluster: Cluster, pki: Pki, tmp_path: Path
) -> None:
    env = _settings(tmp_path / "config", pki.ca.cert_path, pki.client)
    _use_etcd(chain, tls_cluster.endpoints, "/oms-tls/ok/", env)
    for title in ("First", "Second"):
        code, out = _oms(oms, chain, env, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
    code, out = _oms(oms, chain, env, "ticket", "list", "--json")
    assert code == 0, out
    assert [t["title"] for t in json.loads(out)["tickets"]] == ["First", "Second"]
    code, out = _oms(oms, chain, env, "status", "--json")
    assert code == 0, out
    assert [t["id"] for t in json.loads(out)["tickets"]] == ["tkt-1", "tkt-2"]
    code, out = _oms(oms, chain, env, "store", "verify", "--json")
    assert code == 0, out
    # each: version, pointer, op, its ledger entry; its body and its entry (amendment
    # `etcdtick`); the host's name bound by `oms status`, and its entry (amendment `hostname`)
    assert json.loads(out)["counts"]["etcd keys"] == 14
    client = Etcd(tls_cluster.endpoints, tls=_client_tls(pki.ca, pki.client))
    try:
        found = client.get("/oms-tls/ok/latest/ticket/tkt-2")
        assert found is not None
        assert found.value == b"0"
    finally:
        client.close()


@pytest.mark.cli
@pytest.mark.parametrize(
    ("case", "said", "fix"),
    [
        ("no client certificate", "refused the client certificate", "--trusted-ca-file signed"),
        ("another CA's client certificate", "refused the client certificate", "cert` and `key"),
        ("an expired client certificate", "refused the client certificate", "cert` and `key"),
        ("a CA that did not sign the members", "is not trusted", "set `ca` under [tls]"),
    ],
)
def test_a_refused_handshake_is_one_line_naming_the_endpoint_and_the_fix(
    chain: Chain,
    oms: OmsCommand,
    tls_cluster: Cluster,
    pki: Pki,
    tmp_path: Path,
    case: str,
    said: str,
    fix: str,
) -> None:
    ca, client = {
        "no client certificate": (pki.ca, None),
        "another CA's client certificate": (pki.ca, pki.rogue_client),
        "an expired client certificate": (pki.ca, pki.expired_client),
        "a CA that did not sign the members": (pki.rogue, pki.client),
    }[case]
    env = _settings(tmp_path / "config", ca.cert_path, client)
    _use_etcd(chain, tls_cluster.endpoints, "/oms-tls/refused/", env)
    for args in (("ticket", "add", "--title", "No", "--no-body"), ("status",), ("store", "verify")):
        started = time.monotonic()
        code, out = _oms(oms, chain, env, *args)
        assert code != 0, out
        _one_line_error(out)
        assert tls_cluster.endpoints[0] in out, out
        assert said in out, out
        assert fix in out, out
        assert time.monotonic() - started < 3 * LIMITS.etcd_call_s + 10
    admin = Etcd(tls_cluster.endpoints, tls=_client_tls(pki.ca, pki.client))
    try:
        assert list(admin.range_prefix("/oms-tls/refused/")) == []  # nothing written
    finally:
        admin.close()


@pytest.mark.cli
def test_a_member_whose_certificate_the_ca_did_not_sign_is_refused(
    chain: Chain, oms: OmsCommand, pki: Pki, tmp_path: Path
) -> None:
    """A member (one of its own, say an impostor on the address) serving a certificate another CA
    signed: the client's handshake fails on it, and the key is never used with it."""
    if ETCD is None:
        pytest.skip("etcd is not installed (.ci/setup does)")
    rogue_tls = ServerTls(
        pki.rogue_server.cert,
        pki.rogue_server.key,
        pki.rogue.cert_path,
        _client_tls(pki.rogue, pki.rogue_client),
    )
    impostor = Cluster(tmp_path / "impostor", size=1, tls=rogue_tls)
    (tmp_path / "impostor").mkdir()
    try:
        impostor.start_all()
        env = _settings(tmp_path / "config", pki.ca.cert_path, pki.client)
        _use_etcd(chain, impostor.endpoints, "/oms-tls/impostor/", env)
        code, out = _oms(oms, chain, env, "ticket", "add", "--title", "No", "--no-body")
    finally:
        impostor.stop()
    assert code != 0, out
    _one_line_error(out)
    assert impostor.endpoints[0] in out, out
    assert "its certificate is not trusted" in out, out
    assert "set `ca` under [tls]" in out, out


@pytest.mark.cli
def test_plain_http_to_a_tls_member_says_to_name_it_https(
    chain: Chain, oms: OmsCommand, tls_cluster: Cluster
) -> None:
    plain = [url.replace("https://", "http://") for url in tls_cluster.endpoints]
    _use_etcd(chain, plain, "/oms-tls/plain/", {})
    code, out = _oms(oms, chain, {}, "ticket", "list")
    assert code != 0, out
    _one_line_error(out)
    assert plain[0] in out, out
    assert "name them https://" in out, out


@pytest.mark.cli
def test_the_persons_tls_settings_refuse_a_plain_endpoint(
    chain: Chain, oms: OmsCommand, tls_cluster: Cluster, pki: Pki, tmp_path: Path
) -> None:
    """A committed configuration cannot turn TLS off: the person's settings ask for it."""
    env = _settings(tmp_path / "config", pki.ca.cert_path, pki.client)
    _use_etcd(chain, ["http://127.0.0.1:9"], "/oms-tls/downgrade/", env)
    code, out = _oms(oms, chain, env, "ticket", "list")
    assert code != 0, out
    _one_line_error(out)
    assert "is plain http while" in out, out
    assert "https://" in out, out


@pytest.mark.cli
@pytest.mark.parametrize(("mode", "said"), [(0o640, "chmod 600"), (0o604, "chmod 600")])
def test_a_key_open_to_others_is_refused(
    chain: Chain,
    oms: OmsCommand,
    tls_cluster: Cluster,
    pki: Pki,
    tmp_path: Path,
    mode: int,
    said: str,
) -> None:
    key = tmp_path / "open.key"
    key.write_bytes(pki.client.key.read_bytes())
    key.chmod(mode)
    env = _settings(tmp_path / "config", pki.ca.cert_path, Leaf(pki.client.cert, key))
    _use_etcd(chain, tls_cluster.endpoints, "/oms-tls/open-key/", env)
    code, out = _oms(oms, chain, env, "ticket", "list")
    assert code != 0, out
    _one_line_error(out)
    assert str(key) in out, out
    assert said in out, out


def test_a_member_that_never_finishes_the_handshake_is_bounded(pki: Pki) -> None:
    """A listener that accepts and says nothing: the call ends within its deadline."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []

    def accept() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    limits = LIMITS._replace(etcd_call_s=0.5)
    client = Etcd(
        [f"https://127.0.0.1:{listener.getsockname()[1]}"],
        limits,
        tls=_client_tls(pki.ca, pki.client),
    )
    started = time.monotonic()
    try:
        with pytest.raises(EtcdUnavailableError) as caught:
            client.get("/k")
    finally:
        client.close()
        listener.close()
        for conn in held:
            conn.close()
    assert time.monotonic() - started < 2.0
    assert "127.0.0.1" in caught.value.message


def test_a_key_that_is_not_the_certificates_is_one_line(pki: Pki) -> None:
    tls = ClientTls(
        pki.ca.cert_path.read_bytes(),
        pki.client.cert.read_bytes(),
        pki.rogue_client.key.read_bytes(),
        "etcd.toml",
    )
    with pytest.raises(InvalidInputError, match=r"etcd\.toml: the client certificate and key"):
        Etcd(["https://127.0.0.1:2379"], tls=tls)


def test_the_settings_are_read_only_from_the_persons_own_file(
    pki: Pki, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No file: no TLS settings; one writable by others is refused (an agent sharing the
    machine's group could point the key anywhere), and so is a CA bundle writable by others; the
    person's own: read, key and all."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    assert client_tls() is None
    _settings(home, pki.ca.cert_path, pki.client)
    settings = home / "oms" / "etcd.toml"
    settings.chmod(0o664)
    with pytest.raises(InvalidInputError, match="writable by others") as caught:
        client_tls()
    assert str(settings) in caught.value.message
    settings.chmod(0o644)
    ca = tmp_path / "ca.pem"  # a CA bundle someone else could rewrite: they would choose whom
    ca.write_bytes(pki.ca.cert_path.read_bytes())  # oms trusts with the key
    ca.chmod(0o646)
    _settings(home, ca, pki.client)
    with pytest.raises(InvalidInputError, match="writable by others") as caught:
        client_tls()
    assert str(ca) in caught.value.message
    _settings(home, pki.ca.cert_path, pki.client)
    assert client_tls() == ClientTls(
        pki.ca.cert_path.read_bytes(),
        pki.client.cert.read_bytes(),
        pki.client.key.read_bytes(),
        str(settings),
    )


def test_a_key_in_an_agents_worktree_is_refused(
    pki: Pki, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The settings name a key an agent could write, directly or through a link: refused."""
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README.md").write_text("hello\n")
    run_git("add", "-A", cwd=repo)
    run_git("commit", "-q", "-m", "init", cwd=repo)
    wt = tmp_path / "wt"
    run_git("worktree", "add", "-q", "-b", "oms/tkt-1", str(wt), cwd=repo)
    planted = wt / "client.key"
    planted.write_bytes(pki.client.key.read_bytes())
    planted.chmod(0o600)
    link = tmp_path / "innocent.key"
    link.symlink_to(planted)
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for key in (planted, link):
        _settings(home, pki.ca.cert_path, Leaf(pki.client.cert, key))
        with pytest.raises(AgentTreeError):
            client_tls()


def test_a_watch_and_a_lease_run_over_tls(tls_cluster: Cluster, pki: Pki) -> None:
    client = Etcd(tls_cluster.endpoints, tls=_client_tls(pki.ca, pki.client))
    try:
        revision = client.put("/oms-tls/watch/a", b"1")
        seen = client.watch("/oms-tls/watch/", revision, wait_s=5)
        assert [(e.kind, e.key, e.value) for e in seen.events] == [
            ("PUT", "/oms-tls/watch/a", b"1")
        ]
        lease = client.grant(10)
        assert client.keepalive(lease.lease_id) > 0
        assert client.revoke(lease.lease_id)
    finally:
        client.close()


def test_https_to_a_plain_member_says_it_does_not_speak_tls(
    etcd_cluster: Cluster, pki: Pki
) -> None:
    wrong = [url.replace("http://", "https://") for url in etcd_cluster.endpoints]
    client = Etcd(wrong, tls=_client_tls(pki.ca, pki.client))
    try:
        with pytest.raises(EtcdUnavailableError) as caught:
            client.get("/k")
    finally:
        client.close()
    assert wrong[0] in caught.value.message
    assert "does not speak TLS" in caught.value.remedy


def test_a_cluster_requiring_client_certificates_only_on_its_client_urls_has_open_doors(
    tls_cluster: Cluster, pki: Pki
) -> None:
    """`open_doors` (what a worker on the host's network could reach, ADR 0043 amendment
    `attack-agent`): this cluster refuses a client without a certificate on every client URL,
    but its peers speak plain http — each member's peer URL is named, no client URL is."""
    client = Etcd(tls_cluster.endpoints, tls=_client_tls(pki.ca, pki.client))
    try:
        assert sorted(client.open_doors()) == sorted(m.peer_url for m in tls_cluster.members)
    finally:
        client.close()

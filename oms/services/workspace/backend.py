"""The store backend `[store]` names (ADR 0043): the state root (`files`, the default) or an etcd
cluster. `oms store verify` walks an etcd store's keys; every command of the CLI runs on it
(`Workspace.open(etcd=True)`; a launched worker's supervisor, broker, hooks and bridge open the
store its launch spec names; `oms audit adopt` says in one line why it means nothing there); a
workspace opened without saying so is refused `backend = "etcd"` in one line as it opens
(`refuse_etcd_named`), whether or not it reads the configuration, so nothing writes half to files
and half to a cluster, and nothing reads the state root's files as if they were the store.

What an https:// cluster is trusted by and shown (`client_tls`), and which other hosts' state keys
vouch for what they wrote there (`pinned_hosts`), is the person's own `oms/etcd.toml`
(`domain/etcd_settings.py`), never the committed configuration nor the cluster; and which cluster
a state root may talk to at all is the person's own `oms/clusters.toml` (`pinned_clusters`,
`domain/cluster_pins.py`, amendment `clusterpin`): a `[store]` naming another is refused before
anything is sent."""

from __future__ import annotations

import os
from collections.abc import Sequence

from oms.adapters.etcd.client import ClientTls, Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.domain import cluster_pins, etcd_settings
from oms.domain.config import Config
from oms.errors import ConfigError
from oms.fsio.outside import file_signature, read_user_file, replace_user_file, user_file_lock
from oms.limits import LIMITS
from oms.store import Store
from oms.store.backend import Backend
from oms.store.ledger import LineKey


def default_prefix(key_id: str) -> str:
    """`/oms/<the state root's key id>/`: one cluster can hold many repositories' stores."""
    return f"/oms/{key_id}/"


def etcd_store(
    config: Config,
    key_id: str,
    line: LineKey | None,
    public: bytes | None = None,
    *,
    roots: tuple[str, str],
) -> EtcdStore | None:
    """The etcd store the configuration names, or None for the state root; `line`: the state
    root's line key, which its writes' ledger entries carry (ADR 0043, amendment `etcdledger`);
    `public`: the state key's public half, which its evidence keys are checked against; `roots`:
    the repository and the state root, named in the command that pins the cluster. A cluster the
    person has not pinned for this state root is refused before anything is sent to it
    (`ClusterNotPinnedError`, amendment `clusterpin`)."""
    if config.store.backend != "etcd":
        return None
    settings = person_settings()
    tls = client_tls(settings)
    wanted = named_cluster(config, key_id, roots[0], None if tls is None else tls.ca)
    path, pins = pinned_clusters()
    cluster_pins.check(pins, wanted, path, pin_command(*roots))
    found = EtcdStore(Etcd(wanted.endpoints, tls=tls), wanted.prefix, line)
    found.urls = wanted.endpoints
    found.public = public
    found.pinned = {} if settings is None else settings.hosts
    return found


def named_cluster(
    config: Config, key_id: str, repository: str, ca: bytes | None
) -> cluster_pins.Pin:
    """The cluster the committed `[store]` names for state key `key_id`, as a pin records it: its
    members, its prefix resolved, and the CA bundle `ca` the person's `[tls]` trusts (None: the
    system's)."""
    endpoints = tuple(config.store.endpoints)
    prefix = config.store.prefix or default_prefix(key_id)
    return cluster_pins.Pin(
        key_id, repository, endpoints, prefix, cluster_pins.ca_of(endpoints, ca)
    )


def pin_command(repository: str, state_root: str) -> str:
    """The command that pins the cluster a repository's `[store]` names for its state root."""
    return f"oms store pin-cluster --config-root {repository} --state-root {state_root}"


def pinned_clusters() -> tuple[str, dict[str, cluster_pins.Pin]]:
    """The person's pin file (`$XDG_CONFIG_HOME/oms/clusters.toml`) and its pins by state key id
    (none when there is no such file). It must be the person's own and writable by nobody else,
    and not in an agent's worktree (`read_user_file`); one that is not, or does not parse, is
    refused in one line, never read as no pins."""
    path = cluster_pins.pins_path(os.environ)
    if file_signature(path) is None:
        return path, {}
    return path, cluster_pins.parse_pins(
        read_user_file(path, LIMITS.config_bytes, private=True), path
    )


def pin_cluster(
    config: Config, key_id: str, repository: str
) -> tuple[str, cluster_pins.Pin, cluster_pins.Pin | None]:
    """Pin the cluster the committed `[store]` names for state key `key_id` in the person's pin
    file (`oms store pin-cluster`): the file, the pin and the one it replaced. Nothing is sent to
    the cluster."""
    if config.store.backend != "etcd":
        raise ConfigError(
            f"{repository}: the committed configuration names no etcd cluster ([store] backend "
            f'is "{config.store.backend}"): nothing to pin',
            hint='commit [store] backend = "etcd" with its endpoints first (README, "etcd")',
        )
    settings = person_settings()
    named = None if settings is None or settings.tls is None else settings.tls.ca
    ca = read_user_file(named, LIMITS.etcd_tls_file_bytes, trusted=True) if named else None
    new = named_cluster(config, key_id, repository, ca)
    with user_file_lock(cluster_pins.pins_path(os.environ)):  # read to rename: one at a time
        path, pins = pinned_clusters()
        replace_user_file(path, cluster_pins.render_pins(cluster_pins.add(pins, new, path)))
    return path, new, pins.get(key_id)


def etcd_at(
    endpoints: Sequence[str],
    prefix: str,
    line: LineKey | None = None,
    settings: etcd_settings.Settings | None = None,
) -> EtcdStore:
    """The etcd store at `endpoints` under `prefix`: the one `[store]` names, or the one a launch
    spec names for its supervisor (`delivery/start_guard.backend_of`: it reads only, so it has no
    line key), spoken with the person's TLS settings when they name any (`client_tls`; `settings`:
    the person's settings already read)."""
    found = EtcdStore(Etcd(endpoints, tls=client_tls(settings)), prefix, line)
    found.urls = tuple(endpoints)
    return found


def person_settings() -> etcd_settings.Settings | None:
    """The person's `$XDG_CONFIG_HOME/oms/etcd.toml`, parsed, or None when there is no such file.
    It must be the person's own and writable by nobody else, and not in an agent's worktree
    (`read_user_file`): what it pins, an agent cannot."""
    path = etcd_settings.settings_path(os.environ)
    if file_signature(path) is None:
        return None
    return etcd_settings.parse_settings(
        read_user_file(path, LIMITS.config_bytes, private=True), path
    )


def pinned_hosts() -> dict[str, etcd_settings.PinnedHost]:
    """The other hosts' state keys the person pinned (`[hosts]`), by key id."""
    settings = person_settings()
    return {} if settings is None else settings.hosts


def client_tls(settings: etcd_settings.Settings | None = None) -> ClientTls | None:
    """The person's `[tls]` (`$XDG_CONFIG_HOME/oms/etcd.toml`), read, or None when there is no
    such file or it names no `[tls]`. The settings file must be the person's own and writable by
    nobody else, the CA bundle the person's or root's and writable by nobody else, the key
    readable by nobody else; none of the files may be in an agent's worktree (`read_user_file`)."""
    settings = person_settings() if settings is None else settings
    if settings is None or settings.tls is None:
        return None
    named = settings.tls
    path = settings.where
    cap = LIMITS.etcd_tls_file_bytes
    return ClientTls(
        read_user_file(named.ca, cap, trusted=True) if named.ca else None,
        read_user_file(named.cert, cap) if named.cert else None,
        read_user_file(named.key, cap, secret=True) if named.key else None,
        path,
    )


def out_of_reach(backend: Backend | None, who: str) -> None:
    """Raise `ConfigError` when `backend` is an etcd cluster that `who` — a process on the host's
    network: a worker or a quota probe whose configuration opted out of its own network (ADR
    0026) — could reach: a member's client or peer URL that lets in a client without a
    certificate (`Etcd.open_doors`). Through one it could read, write and delete every key, take
    locks, keep or revoke leases: oms's authority (ADR 0043, amendment `attack-agent`). The state
    root's files are never shown to it, and its own network reaches nothing."""
    if not isinstance(backend, EtcdStore):
        return
    doors = backend.client.open_doors()
    if doors:
        more = f" (and {len(doors) - 1} more)" if len(doors) > 1 else ""
        raise ConfigError(
            f"{who} would reach oms's authority on etcd: {doors[0]} lets in a client without "
            f"a certificate{more}",
            hint="serve every member's client and peer URLs over TLS requiring client "
            "certificates (--client-cert-auth, --peer-client-cert-auth), or drop the opt-out "
            "of its own network",
        )


def refuse_etcd(config: Config, where: str) -> None:
    """Raise `ConfigError` when `[store]` names etcd, for a caller that did not open its workspace
    on it (every command of the CLI does: ADR 0043, amendment `rest`)."""
    refuse_etcd_named(config.store.backend, where)


def refuse_etcd_named(backend: str, where: str) -> None:
    """`refuse_etcd` of the backend's name (`committed_backend`: read even from a configuration
    that is otherwise invalid)."""
    if backend == "etcd":
        raise ConfigError(
            f'{where}: this command is not served on store.backend = "etcd" (every command of '
            "the CLI is, ADR 0043: this one opened its workspace without saying so)",
            hint='remove [store] (or set backend = "files") to run it',
        )


def fence_lost(store: Store) -> str | None:
    """The key of the lock whose fence `store` carries when that lock is no longer the one taken
    (etcd: its lease lapsed — its holder paused or cut off past its TTL — or was revoked, and
    perhaps taken again by another); None while it holds, and always on files (a file lock cannot
    lapse while its holder lives). One read. What `store` writes through the backend carries the
    fence itself; this is for what a holder writes elsewhere (a host's file) in its name."""
    fence, backend = store.fence, store.backend
    if fence is None or not isinstance(backend, EtcdStore):
        return None
    found = backend.client.get(fence.key)
    if found is None or found.create_revision != fence.token:
        return fence.key
    return None

"""`oms store verify`, `oms store sweep` and `oms store pin-cluster`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.store.verify import Report, sweep, verify

if TYPE_CHECKING:
    from oms.adapters.etcd.store import EtcdStore
    from oms.domain import cluster_pins
    from oms.domain.config import Config


def verify_state(state_root: str, config_root: str | None = None) -> Report:
    """Walk the state root and report every problem; with `config_root` whose committed `[store]`
    names etcd, walk that store's keys too (ADR 0043): each problem names its key."""
    report = verify(state_root)
    if config_root is None:
        return report
    from oms.adapters.etcd.store import printable_key, walk_keys
    from oms.errors import ConfigError
    from oms.services.workspace.committed import committed_config_if_any

    try:
        config = committed_config_if_any(config_root)
    except ConfigError as exc:  # the state root is checked all the same
        report.note(
            ".", f"the committed configuration is not readable, no etcd keys checked: {exc}"
        )
        return report
    if config is None or config.store.backend != "etcd":
        return report
    backend = _cluster(state_root, config_root, config)
    try:
        walked = walk_keys(backend)
    finally:
        backend.client.close()
    report.count("etcd keys", walked.read)
    report.count("etcd ledger entries", walked.entries)
    for problem in walked.problems:  # a key that is not UTF-8 is named by its bytes, escaped
        report.error(f"etcd:{printable_key(problem.key)}", problem.problem)
    for note in walked.notes:
        report.note("etcd", note)
    return report


def pin_store_cluster(
    state_root: str, config_root: str
) -> tuple[str, cluster_pins.Pin, cluster_pins.Pin | None]:
    """`oms store pin-cluster`: pin, in the person's own settings, the etcd cluster the
    repository's committed `[store]` names for this state root (ADR 0043, amendment
    `clusterpin`): the pin file, the pin, and the pin it replaced (None: the first)."""
    from oms.services.workspace import Workspace
    from oms.services.workspace.backend import pin_cluster
    from oms.services.workspace.committed import committed_config

    with Workspace.open(state_root, config_root, check_backend=False) as ws:
        key_id = ws.store.state.meta.key_id
        config = committed_config(ws.config_root, ws.head())
        repository = ws.config_root
    return pin_cluster(config, key_id, repository)


def _cluster(state_root: str, config_root: str, config: Config) -> EtcdStore:
    """The etcd store `config`'s `[store]` names, opened with the state root's line key (its
    entries' MACs, ADR 0043 `etcdledger`) and public key, on the cluster the person pinned."""
    from oms.errors import ConfigError
    from oms.services.workspace.backend import etcd_store
    from oms.store import Store
    from oms.store.ledger import LineKey, line_key

    with Store.open(state_root) as store:
        key_id, public = store.state.meta.key_id, store.state.meta.public_key
        key = line_key(store.state.root)
    line = LineKey(key_id, lambda: key)
    backend = etcd_store(config, key_id, line, public, roots=(config_root, state_root))
    if backend is None:  # (backend == "etcd" always makes one)
        raise ConfigError(f"{config_root}: the committed [store] names no etcd cluster")
    return backend


def sweep_state(state_root: str, config_root: str | None = None) -> list[str]:
    """Remove debris left by dead processes; returns what was removed. With `config_root` whose
    committed `[store]` names etcd (ADR 0043, amendment `upkeep`), also its lock keys that no lease
    holds: oms takes every lock under a lease, which lapses with its holder; one under none would
    hold its lock for ever (each `etcd:<key>`)."""
    removed = sweep(state_root)
    if config_root is None:
        return removed
    from oms.adapters.etcd.store import sweep_locks
    from oms.services.workspace.committed import committed_config_if_any

    config = committed_config_if_any(config_root)
    if config is None or config.store.backend != "etcd":
        return removed
    backend = _cluster(state_root, config_root, config)
    try:
        return removed + [f"etcd:{key}" for key in sweep_locks(backend)]
    finally:
        backend.close()

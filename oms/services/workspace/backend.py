"""The store backend `[store]` names (ADR 0043): the state root (`files`, the default) or an etcd
cluster. `oms store verify` walks an etcd store's keys; `oms ticket add`, `oms ticket list` and
`oms status` run on it (`Workspace.open(etcd=True)`); every other command that opens a workspace
is refused `backend = "etcd"` in one line as it opens (`refuse_etcd_named`), whether or not it
reads the configuration, so nothing writes half to files and half to a cluster, and nothing reads
the state root's files as if they were the store."""

from __future__ import annotations

from collections.abc import Sequence

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.domain.config import Config
from oms.errors import ConfigError


def default_prefix(key_id: str) -> str:
    """`/oms/<the state root's key id>/`: one cluster can hold many repositories' stores."""
    return f"/oms/{key_id}/"


def etcd_store(config: Config, key_id: str) -> EtcdStore | None:
    """The etcd store the configuration names, or None for the state root."""
    if config.store.backend != "etcd":
        return None
    prefix = config.store.prefix or default_prefix(key_id)
    return etcd_at(config.store.endpoints, prefix)


def etcd_at(endpoints: Sequence[str], prefix: str) -> EtcdStore:
    """The etcd store at `endpoints` under `prefix`: the one `[store]` names, or the one a launch
    spec names for its supervisor (`delivery/start_guard.backend_of`)."""
    return EtcdStore(Etcd(endpoints), prefix)


def refuse_etcd(config: Config, where: str) -> None:
    """Raise `ConfigError` when `[store]` names etcd, for a command not served on it yet."""
    refuse_etcd_named(config.store.backend, where)


def refuse_etcd_named(backend: str, where: str) -> None:
    """`refuse_etcd` of the backend's name (`committed_backend`: read even from a configuration
    that is otherwise invalid)."""
    if backend == "etcd":
        raise ConfigError(
            f'{where}: store.backend = "etcd" is served only by `oms ticket add`, `oms ticket '
            "list`, `oms status` and `oms store verify` so far (ADR 0043)",
            hint='remove [store] (or set backend = "files") to run other commands',
        )

"""What every authority-chain command works in: the store, the config root, the config, and a
clock."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from oms.canonical import now as wall_clock
from oms.errors import OtherRepositoryError, StateRootError, shown
from oms.fsio import Root
from oms.store import Store, repository

if TYPE_CHECKING:
    from oms.domain.config import Config
    from oms.services.workspace.committed import Head

SYSTEM_ACTOR = "oms-system"


def _check_served(store: Store, config_root: str) -> None:
    """A state root is opened only from the repository it serves (ADR 0032)."""
    served = repository.recorded(store.state.root)
    where = shown(store.path)
    if served is None:
        raise StateRootError(
            f"the state root {where} names no repository (made before oms recorded one)",
            hint=f"run `oms init --state-root {where}` in the repository it serves",
        )
    if served != config_root:
        theirs, ours = shown(served), shown(config_root)
        raise OtherRepositoryError(
            f"the state root {where} serves the repository {theirs} (this is {ours})",
            hint=f"run oms in {shown(served)}, or give this repository its own state root "
            "(by default each has one: unset OMS_STATE_ROOT, or pass --state-root)",
        )


def _refuse_other_backend(config_root: str) -> None:
    """Refuse, for a command not served on etcd, a committed `[store]` that names it (ADR 0043):
    here, where every workspace opens, so a command that never reads the configuration does not
    read the state root's files as if they were the store (`oms ticket show` said "not found")."""
    from oms.services.workspace.backend import refuse_etcd_named
    from oms.services.workspace.committed import committed_backend

    refuse_etcd_named(committed_backend(config_root), config_root)


class Workspace:
    """An opened state root and config root."""

    def __init__(
        self, store: Store, config_root: str, repo: Root, clock: Callable[[], str] = wall_clock
    ) -> None:
        self.store = store
        self.config_root = config_root
        self.repo = repo
        self.clock = clock
        self._config: Config | None = None
        self._head: Head | None = None
        self.on_etcd = False  # this command is served on an etcd store (`attach_etcd`)
        self.host_name: str | None = None  # this host's name, once asked (`host`)
        self.binds_name = False  # on an etcd store: the name is bound to this state key (`host`)
        # the name binding (host, generation) this command's writes are fenced on, once bound: a
        # launch hands it to its pane's processes (`launch._store`; ADR 0043 amendment `cross6`)
        self.bound: tuple[str, int] | None = None
        # the state keys whose tickets are this repository's on a store it names (ADR 0043
        # amendment `repoparts`): this state root's, and on etcd the ones the person pinned
        self.ticket_keys: frozenset[str] | None = frozenset({store.state.meta.key_id})

    @classmethod
    def open(
        cls,
        state_root: str,
        config_root: str,
        *,
        clock: Callable[[], str] = wall_clock,
        served: bool = True,
        etcd: bool = False,
        check_backend: bool = True,
        spec_store: Mapping[str, object] | None = None,
    ) -> Workspace:
        """Open both roots (the config root need not be private: it is the repository); `served`:
        only if the state root serves this repository (ADR 0032; False only for `oms audit adopt`,
        which readies a state root made before the ledger for `oms init` to record it); `etcd`:
        the command is correct on an etcd store (ADR 0043), so a committed `[store] backend =
        "etcd"` puts its records there; without it such a configuration is refused here (one
        git process reads it), before the command reads anything; `check_backend` False skips that
        read, for a server that checked once as it started and opens a workspace per request
        (`oms web`: its watcher opens one every `LIMITS.web_watch_ms`); `spec_store`: the backend
        a launch spec names (`start_guard.backend_of`'s `store`), for a launched worker's own
        processes — its supervisor, broker, hooks and bridge read and write where their launch
        wrote, whatever HEAD says since."""
        real = os.path.realpath(config_root)
        state_real = os.path.realpath(state_root)
        if state_real == real or state_real.startswith(real.rstrip("/") + "/"):
            raise StateRootError(f"state root {state_root} is inside the config root {config_root}")
        store = Store.open(state_root)
        try:
            if served:
                _check_served(store, real)
            repo = Root.open(real, private=False)
        except BaseException:
            store.close()
            raise
        ws = cls(store, real, repo, clock)
        try:
            if spec_store is not None and spec_store.get("backend") == "etcd":
                ws.attach_spec_store(spec_store)
            elif etcd:
                ws.attach_etcd()
            elif check_backend:
                _refuse_other_backend(real)
        except BaseException:
            ws.close()
            raise
        return ws

    def attach_etcd(self) -> None:
        """Serve this command's records and events from the etcd store the committed `[store]`
        names, if it names one (a configuration that cannot be read leaves the state root, the
        command's own `config()` saying why where it needs one — unless its `[store] backend`
        still says etcd: then why it cannot be read is the command's answer)."""
        from oms.errors import OmsError
        from oms.services.workspace.backend import etcd_store
        from oms.store.ledger import LineKey

        self.on_etcd = True
        try:
            config = self.config()
        except OmsError:
            if self._names_etcd():  # never the state root's files in the cluster's place
                raise
            return
        state = self.store.state
        line = LineKey.of(state.root, state.meta.key_id, state.signer)  # read on its first write
        found = etcd_store(
            config,
            state.meta.key_id,
            line,
            state.meta.public_key,
            roots=(self.config_root, state.root.path),
        )
        if found is not None:
            self.ticket_keys = frozenset({state.meta.key_id, *found.pinned})
            self.binds_name = True
            found.learn_host = self.host  # its first write asks which host it is (`cross6`)
        self.store.backend = found

    def attach_spec_store(self, store: Mapping[str, object]) -> None:
        """Serve this workspace's records and events from the etcd store a launch spec names
        (its endpoints and resolved prefix, `launch._store`), with the state root's line key:
        a launched worker's processes write where its deliverer wrote (ADR 0043 amendment
        `etcddeliver`)."""
        from oms.services.workspace.backend import etcd_at
        from oms.store.ledger import LineKey

        endpoints, prefix = store.get("endpoints"), store.get("prefix")
        if not isinstance(endpoints, list) or not isinstance(prefix, str):
            from oms.errors import IntegrityError

            raise IntegrityError("the launch spec's etcd store names no endpoints or prefix")
        self.on_etcd = True
        state = self.store.state
        line = LineKey.of(state.root, state.meta.key_id, state.signer)  # read on its first write
        backend = etcd_at([str(e) for e in endpoints], prefix, line)
        self.store.backend = backend
        self.ticket_keys = None  # its deliverer judged whose ticket it is (amendment `repoparts`)
        name = store.get("name")
        if isinstance(name, Mapping):  # its launch's name binding fences its writes too (`cross6`)
            from oms.store.hosts import release_path

            host, generation = str(name.get("host")), name.get("generation")
            if not isinstance(generation, int):
                from oms.errors import IntegrityError

                raise IntegrityError("the launch spec's name binding names no generation")
            backend.fence_name(host, release_path(host, generation))
            self.bound = (host, generation)

    def _names_etcd(self) -> bool:
        """Whether the configuration at HEAD (as `head` read it) names etcd, even if it is invalid
        elsewhere."""
        from oms.domain.config import CONFIG_PATH, store_backend_named
        from oms.errors import OmsError

        try:
            found = self.head().get(CONFIG_PATH)
        except OmsError:
            return False
        return found is not None and store_backend_named(found[1]) == "etcd"

    def head(self) -> Head:
        """What HEAD holds of what runs — the configuration, the executor instructions, the role
        policy —, read by one git process once per operation (`services/workspace/committed.py`):
        every check of that operation takes this one value. `reread` starts the next operation."""
        if self._head is None:
            # git: not on hot paths
            from oms.services.workspace.committed import head_files

            self._head = head_files(self.config_root)
        return self._head

    def next_operation(self) -> None:
        """A new operation (a conductor tick): HEAD is read again, once, when it is first asked."""
        self._head, self._config = None, None

    def reread(self) -> Head:
        """A new operation (a launch): HEAD read again now, once, for all of it."""
        self.next_operation()
        return self.head()

    def config(self) -> Config:
        """The configuration committed at HEAD, as this operation read it (`head`)."""
        if self._config is None:
            # TOML: not on hot paths
            from oms.services.workspace.backend import refuse_etcd
            from oms.services.workspace.committed import committed_config

            config = committed_config(self.config_root, self.head())
            if not self.on_etcd:
                refuse_etcd(config, self.config_root)
            self._config = config
        return self._config

    def host(self) -> str:
        """This host's name (`workspace/host.py`: `OMS_HOST`, `[host] name` in the host's own
        settings, else the hostname), read once; a test may set `host_name` to run as a host.
        On an etcd store the name is bound to this state root's key the first time a host acts
        under it, and another key's state root is refused it (`HostNameTakenError`, ADR 0043
        amendment `hostname`): asked here, where every command learns which host it is."""
        if self.host_name is None:
            from oms.services.workspace.host import this_host

            name = this_host().name
            backend = self.store.backend
            if self.binds_name and backend is not None:
                from oms.adapters.etcd.store import EtcdStore
                from oms.domain.hosts import name_claim, name_taken
                from oms.store.backend import FencesNames
                from oms.store.hosts import claim_name, release_path

                key_id = self.store.state.meta.key_id
                if isinstance(backend, EtcdStore):
                    backend.learn_host = None  # asked now: the claim's own write asks nothing
                generation, holder = claim_name(backend, name_claim(name, key_id, self.now()))
                taken = name_taken(name, holder, key_id)
                if taken is not None:
                    raise taken
                if isinstance(backend, FencesNames):  # its writes stop once it is released
                    backend.fence_name(name, release_path(name, generation))
                    self.bound = (name, generation)
            self.host_name = name
        return self.host_name

    def now(self) -> str:
        """The current time (injectable for tests)."""
        return self.clock()

    def close(self) -> None:
        """Close both roots."""
        self.repo.close()
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

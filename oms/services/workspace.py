"""What every authority-chain command works in: the store, the config root, the config, and a clock."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from oms.canonical import now as wall_clock
from oms.errors import ConfigError, NotFoundError, StateRootError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import Store

if TYPE_CHECKING:
    from oms.domain.config import Config

SYSTEM_ACTOR = "oms-system"


class Workspace:
    """An opened state root and config root."""

    def __init__(self, store: Store, config_root: str, repo: Root, clock: Callable[[], str] = wall_clock) -> None:
        self.store = store
        self.config_root = config_root
        self.repo = repo
        self.clock = clock
        self._config: Config | None = None

    @classmethod
    def open(cls, state_root: str, config_root: str, *, clock: Callable[[], str] = wall_clock) -> Workspace:
        """Open both roots (the config root need not be private: it is the repository)."""
        real = os.path.realpath(config_root)
        state_real = os.path.realpath(state_root)
        if state_real == real or state_real.startswith(real.rstrip("/") + "/"):
            raise StateRootError(f"state root {state_root} is inside the config root {config_root}")
        store = Store.open(state_root)
        try:
            repo = Root.open(real, private=False)
        except BaseException:
            store.close()
            raise
        return cls(store, real, repo, clock)

    def config(self) -> Config:
        """The validated configuration (read once)."""
        if self._config is None:
            from oms.domain.config import CONFIG_PATH, parse_config  # TOML and the config schema: not on hot paths

            where = os.path.join(self.config_root, CONFIG_PATH)
            try:
                data = self.repo.read_bytes(CONFIG_PATH, LIMITS.config_bytes)
            except NotFoundError as exc:
                raise ConfigError(f"{where} is missing", hint="run `oms init --config-root <repository>`") from exc
            self._config = parse_config(data, where)
        return self._config

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

"""This host's name (`domain/hosts.py`; ADR 0043, amendment `hosts`): `OMS_HOST`, else `[host]
name` in the host's own settings, `$XDG_CONFIG_HOME/oms/host.toml` (else
`~/.config/oms/host.toml`: never committed, so a repository cannot rename a host), else the
machine's hostname."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

from oms.domain import hosts as rules
from oms.fsio.outside import file_signature, read_user_file
from oms.limits import LIMITS


def this_host(env: Mapping[str, str] | None = None) -> rules.Named:
    """This host's name and where it came from; `ConfigError` when it is not a host name."""
    env = os.environ if env is None else env
    if rules.ENV in env:
        return rules.resolve(env, None, "", "")
    path = rules.settings_path(env)
    named = None
    if file_signature(path) is not None:
        named = rules.parse_settings(read_user_file(path, LIMITS.config_bytes, private=True), path)
    return rules.resolve(env, named, path, socket.gethostname())


def host_key(state_root: str) -> tuple[str, str, str]:
    """This host's line for the other hosts' `[hosts]` (ADR 0043, amendment `hostkeys`): its name,
    its state key's id and its raw public key in hex; the state root is opened, not written."""
    from oms.store import Store

    with Store.open(state_root) as store:
        meta = store.state.meta
        return this_host().name, meta.key_id, meta.public_key.hex()

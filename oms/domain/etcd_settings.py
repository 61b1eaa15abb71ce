"""The person's TLS settings for etcd (ADR 0043, amendment `etcdtls`), pure: where they live and
what they say.

The committed configuration names only the members (`[store] endpoints`, http:// or https://):
it is in the repository, which an agent can edit. What the client trusts (a CA bundle) and
presents (a client certificate and its key) are *paths* the person names in their own settings,
`$XDG_CONFIG_HOME/oms/etcd.toml` (else `~/.config/oms/etcd.toml`), beside `notify.toml` and
`host.toml`, so a repository can never make oms read a file of its choosing and send it to a
server (`schemas/etcd-settings.schema.json`):

    [tls]
    ca = "/home/me/.config/oms/etcd/ca.pem"
    cert = "/home/me/.config/oms/etcd/client.pem"
    key = "/home/me/.config/oms/etcd/client-key.pem"
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from typing import NamedTuple

from oms.canonical import dumps
from oms.errors import CanonicalJsonError, ConfigError, SchemaValidationError
from oms.schemas import validate

SETTINGS = "oms/etcd.toml"  # under `$XDG_CONFIG_HOME`, else `~/.config` (as `host.toml`)
FIX = 'e.g. [tls] ca = "/abs/ca.pem", cert = "/abs/client.pem", key = "/abs/client-key.pem"'


class TlsPaths(NamedTuple):
    """What `[tls]` names: the CA bundle (None: the system's CAs), the client certificate and its
    key (both or neither), and the settings file that named them."""

    ca: str | None
    cert: str | None
    key: str | None
    where: str


def settings_path(env: Mapping[str, str]) -> str:
    """`$XDG_CONFIG_HOME/oms/etcd.toml`, else `$HOME/.config/oms/etcd.toml`."""
    base = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (the XDG spec)
        base = os.path.join(env.get("HOME") or "/", ".config")
    return os.path.join(os.path.abspath(base), SETTINGS)


def parse_settings(data: bytes, where: str) -> TlsPaths:
    """The `[tls]` table of the settings file `where`; `ConfigError` naming it and the key."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 at byte {exc.start}", hint=FIX) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}", hint=FIX) from exc
    try:
        dumps(doc)
        validate("etcd-settings", doc, where=where)
    except (CanonicalJsonError, SchemaValidationError) as exc:
        raise ConfigError(
            exc.message if exc.message.startswith(where) else f"{where}: {exc.message}", hint=FIX
        ) from exc
    table = doc["tls"]  # required by the schema
    if ("cert" in table) != ("key" in table):
        raise ConfigError(
            f"{where}: [tls] names a client {'cert' if 'cert' in table else 'key'} without its "
            f"{'key' if 'cert' in table else 'cert'}",
            hint="name both `cert` and `key`, or neither",
        )
    return TlsPaths(table.get("ca"), table.get("cert"), table.get("key"), where)

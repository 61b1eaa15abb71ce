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

The same file pins the other hosts' state keys (ADR 0043, amendment `hostkeys`): each line is what
`oms host key` prints on that host, its state key's id and its raw Ed25519 public key in hex. A
ledger entry or evidence on the cluster that claims another host's key id is vouched for only by
a signature that checks against the key pinned here — never by anything the cluster holds:

    [hosts]
    build-2 = "<key id, 64 hex>:<public key, 64 hex>"
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from collections.abc import Mapping
from typing import NamedTuple

from oms.canonical import dumps
from oms.errors import CanonicalJsonError, ConfigError, SchemaValidationError
from oms.schemas import validate

SETTINGS = "oms/etcd.toml"  # under `$XDG_CONFIG_HOME`, else `~/.config` (as `host.toml`)
FIX = 'e.g. [tls] ca = "/abs/ca.pem", cert = "/abs/client.pem", key = "/abs/client-key.pem"'
PIN_FIX = 'e.g. [hosts] build-2 = "<key id>:<public key>", as `oms host key` prints it on build-2'


class TlsPaths(NamedTuple):
    """What `[tls]` names: the CA bundle (None: the system's CAs), the client certificate and its
    key (both or neither), and the settings file that named them."""

    ca: str | None
    cert: str | None
    key: str | None
    where: str


class PinnedHost(NamedTuple):
    """Another host's state key as the person pinned it: the host's name, the key's id (sha256 of
    the raw public key) and the raw 32-byte Ed25519 public key."""

    name: str
    keyid: str
    public: bytes


class Settings(NamedTuple):
    """The person's etcd settings: `[tls]` (None: plain http://, or the system's CAs) and the
    pinned hosts by key id (`[hosts]`), and the file that named them."""

    tls: TlsPaths | None
    hosts: dict[str, PinnedHost]
    where: str


def pin_line(name: str, keyid: str, public: bytes) -> str:
    """The `[hosts]` line that pins host `name`'s state key (what `oms host key` prints)."""
    return f'{name} = "{keyid}:{public.hex()}"'


def settings_path(env: Mapping[str, str]) -> str:
    """`$XDG_CONFIG_HOME/oms/etcd.toml`, else `$HOME/.config/oms/etcd.toml`."""
    base = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (the XDG spec)
        base = os.path.join(env.get("HOME") or "/", ".config")
    return os.path.join(os.path.abspath(base), SETTINGS)


def parse_settings(data: bytes, where: str) -> Settings:
    """The `[tls]` and `[hosts]` tables of the settings file `where`; `ConfigError` naming it and
    the key, in one line."""
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
            exc.message if exc.message.startswith(where) else f"{where}: {exc.message}",
            hint=PIN_FIX if "hosts" in exc.message else FIX,
        ) from exc
    tls = None
    if "tls" in doc:
        table = doc["tls"]
        if ("cert" in table) != ("key" in table):
            raise ConfigError(
                f"{where}: [tls] names a client {'cert' if 'cert' in table else 'key'} without its "
                f"{'key' if 'cert' in table else 'cert'}",
                hint="name both `cert` and `key`, or neither",
            )
        tls = TlsPaths(table.get("ca"), table.get("cert"), table.get("key"), where)
    return Settings(tls, _pins(doc.get("hosts", {}), where), where)


def _pins(table: dict[str, str], where: str) -> dict[str, PinnedHost]:
    """`[hosts]` by key id: each value `<key id>:<public key>` (the schema checked its form), the
    key id the sha256 of the key, no key pinned under two names."""
    pins: dict[str, PinnedHost] = {}
    for name, value in sorted(table.items()):
        keyid, _, public = value.partition(":")
        raw = bytes.fromhex(public)
        if hashlib.sha256(raw).hexdigest() != keyid:
            raise ConfigError(
                f"{where}: [hosts] {name}: the key id is not the sha256 of the public key "
                "(a line mistyped or from two hosts)",
                hint=f"paste the line `oms host key` prints on {name} again",
            )
        if keyid in pins:
            raise ConfigError(
                f"{where}: [hosts] {name} pins the key of {pins[keyid].name} again",
                hint="a state key is one host's: keep one of the two lines",
            )
        pins[keyid] = PinnedHost(name, keyid, raw)
    return pins

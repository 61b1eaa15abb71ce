"""The etcd clusters the person pinned (ADR 0043, amendment `clusterpin`), pure: where the pins
live, what they say, and whether a repository's committed `[store]` names the cluster pinned for
its state root.

A repository's `[store]` is the repository's word, and an agent can edit a worktree. Which cluster
oms talks to for a state root is the person's: `oms store pin-cluster` records it in
`$XDG_CONFIG_HOME/oms/clusters.toml` (else `~/.config/oms/clusters.toml`), beside `etcd.toml`,
read as the person's own settings are (`read_user_file(private=True)`), by the state root's key id
(`schemas/cluster-pins.schema.json`):

    [clusters.3f0c...]
    repository = "/home/me/src/app"
    endpoints = ["https://etcd-1:2379", "https://etcd-2:2379"]
    prefix = "/oms/app/"
    ca = "sha256:..."

A store is opened only when the endpoints (as a set), the resolved prefix and, with https://, the
CA bundle's fingerprint are exactly the pinned ones; two repositories are never pinned one prefix
on one cluster. A member is compared by where a client connects (`member`), not by its URL's
spelling: `http://127.0.0.1:2379/`, `http://127.1`, `HTTP://LOCALHOST:02379` are one member, as
every loopback address and `localhost` are (ADR 0043, amendment `names2`)."""

from __future__ import annotations

import hashlib
import ipaddress
import os
import socket
import tomllib
from collections.abc import Mapping, Sequence
from typing import NamedTuple
from urllib.parse import urlsplit

from oms.canonical import dumps
from oms.errors import (
    CanonicalJsonError,
    ClusterNotPinnedError,
    ConfigError,
    SchemaValidationError,
)
from oms.schemas import validate

PINS = "oms/clusters.toml"  # under `$XDG_CONFIG_HOME`, else `~/.config` (as `etcd.toml`)
SYSTEM_CA = "system"
DEFAULT_PORT = 2379  # a URL that names no port: etcd's client port, as the client connects
LOOPBACK = "loopback"  # every loopback address, `0.0.0.0` and `localhost`: this machine


class Pin(NamedTuple):
    """The cluster pinned for one state root: its key id, the repository that named it (shown),
    the members' URLs, the resolved prefix and, with https://, the CA's fingerprint (`sha256:<hex>`
    or `system`; None over http://)."""

    keyid: str
    repository: str
    endpoints: tuple[str, ...]
    prefix: str
    ca: str | None


def pins_path(env: Mapping[str, str]) -> str:
    """`$XDG_CONFIG_HOME/oms/clusters.toml`, else `$HOME/.config/oms/clusters.toml`."""
    base = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (the XDG spec)
        base = os.path.join(env.get("HOME") or "/", ".config")
    return os.path.join(os.path.abspath(base), PINS)


def ca_of(endpoints: Sequence[str], ca: bytes | None) -> str | None:
    """What a pin records of the CA: None over http://, `sha256:<hex>` of the bundle the person's
    `[tls] ca` names, `system` when it names none."""
    if not any(e.startswith("https://") for e in endpoints):
        return None
    return SYSTEM_CA if ca is None else "sha256:" + hashlib.sha256(ca).hexdigest()


def parse_pins(data: bytes, where: str) -> dict[str, Pin]:
    """The pins of the file `where`, by key id; `ConfigError` naming the file, in one line (a pin
    file that cannot be read is never taken for no pins)."""
    fix = "run `oms store pin-cluster` again in each repository (move the broken file away first)"
    try:
        doc = tomllib.loads(data.decode("utf-8"))
        dumps(doc)
        validate("cluster-pins", doc, where=where)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 at byte {exc.start}", hint=fix) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}", hint=fix) from exc
    except (CanonicalJsonError, SchemaValidationError) as exc:
        message = exc.message if exc.message.startswith(where) else f"{where}: {exc.message}"
        raise ConfigError(message, hint=fix) from exc
    return {
        keyid: Pin(
            keyid,
            table["repository"],
            tuple(table["endpoints"]),
            table["prefix"],
            table.get("ca"),
        )
        for keyid, table in doc["clusters"].items()
    }


def render_pins(pins: Mapping[str, Pin]) -> bytes:
    """The pin file's bytes (TOML; strings as JSON strings, which TOML reads alike)."""
    lines = [
        "# The etcd clusters your repositories' [store] may name, by state key id.",
        "# Written by `oms store pin-cluster` (ADR 0043, amendment `clusterpin`).",
        "[clusters]",
    ]
    for keyid in sorted(pins):
        pin = pins[keyid]
        lines += [
            "",
            f"[clusters.{keyid}]",
            f"repository = {dumps(pin.repository).decode()}",
            f"endpoints = [{', '.join(dumps(e).decode() for e in pin.endpoints)}]",
            f"prefix = {dumps(pin.prefix).decode()}",
        ]
        if pin.ca is not None:
            lines.append(f"ca = {dumps(pin.ca).decode()}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def named(pin: Pin) -> str:
    """A cluster as one line shows it."""
    ca = "" if pin.ca is None else f", CA {pin.ca[:19]}"
    return f"{', '.join(pin.endpoints)} prefix {pin.prefix}{ca}"


def check(pins: Mapping[str, Pin], wanted: Pin, where: str, command: str) -> None:
    """Raise `ClusterNotPinnedError` unless `wanted` (what the committed `[store]` names for state
    key `wanted.keyid`) is the cluster pinned for that key: the same endpoints as a set, the same
    prefix, the same CA — and no other repository's pin overlaps it (`overlapping`: a pin file
    written before `member` compared members by where a client connects, or by hand).
    `command`: the one that pins it, named in the hint."""
    pin = pins.get(wanted.keyid)
    if pin is not None and same_cluster(pin, wanted):
        other = overlapping(pins, pin)
        if other is None:
            return
        raise ClusterNotPinnedError(
            f"the cluster pinned for this state root ({named(pin)}, state key "
            f"{pin.keyid[:12]}) overlaps prefix {other.prefix} on {', '.join(other.endpoints)}, "
            f"pinned for another repository's state root (state key {other.keyid[:12]}, "
            f"repository {other.repository}) in {where}: nothing was sent to it",
            hint=f"remove from {where} the pin of the state root that is not yours, then run "
            f"`{command}` again",
        )
    what = (
        "which you have not pinned for this state root"
        if pin is None
        else f"not the cluster you pinned for it ({named(pin)})"
    )
    raise ClusterNotPinnedError(
        f"the committed [store] names etcd {named(wanted)}, {what} (state key "
        f"{wanted.keyid[:12]}, {where}): nothing was sent to it",
        hint=f"if that cluster is yours, run `{command}`",
    )


def same_cluster(a: Pin, b: Pin) -> bool:
    """Whether two pins name one cluster under one prefix, trusted alike."""
    return (
        sorted(set(a.endpoints)) == sorted(set(b.endpoints))
        and a.prefix == b.prefix
        and a.ca == b.ca
    )


def member(url: str) -> tuple[str, int]:
    """Where a client connects for the member URL `url`, as (host, port): the host lowercased,
    without a trailing dot, a numeric one in dotted quads whatever form the resolver accepts
    (`127.1`, `0x7f.0.0.1`, `2130706433`), every loopback address, `0.0.0.0` and `localhost`
    one host (`LOOPBACK`); the port as a number, 2379 when none is named; the scheme and a
    trailing `/` dropped (one port serves one of them). What names share no member here may
    still share one through a name another resolver maps (a DNS answer is not the person's)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:  # the schema allows no bad port; one here is its own member
        return host, -1
    try:
        address = ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        local = host == "localhost" or host.endswith(".localhost")
        return (LOOPBACK if local else host), port
    return (LOOPBACK if address.is_loopback or address.is_unspecified else str(address)), port


def members(pin: Pin) -> frozenset[tuple[str, int]]:
    """The members `pin` names, as a client connects to them (`member`)."""
    return frozenset(member(url) for url in pin.endpoints)


def overlapping(pins: Mapping[str, Pin], new: Pin) -> Pin | None:
    """Another repository's pin on a member `new` names (`member`: however either spells it) under
    the same prefix, or one inside it or around it (two stores in one another's keys), if any. Two
    state roots of one repository (one clone, as two hosts' would be) may share a prefix: the name
    each acts under is bound to its key on the store (amendment `hostname`)."""
    for other in pins.values():
        if other.keyid == new.keyid or other.repository == new.repository:
            continue
        if not members(other) & members(new):
            continue
        if other.prefix.startswith(new.prefix) or new.prefix.startswith(other.prefix):
            return other
    return None


def add(pins: Mapping[str, Pin], new: Pin, where: str) -> dict[str, Pin]:
    """`pins` with `new` in place of its key's pin; `ConfigError` when another repository's state
    root holds a pin that overlaps it (`overlapping`): a prefix is one repository's."""
    other = overlapping(pins, new)
    if other is not None:
        raise ConfigError(
            f"{where}: prefix {new.prefix} on {', '.join(new.endpoints)} overlaps prefix "
            f"{other.prefix} on {', '.join(other.endpoints)}, pinned for another repository's "
            f"state root (state key {other.keyid[:12]}, repository {other.repository}): nothing "
            "was pinned",
            hint="give this repository a [store] prefix of its own, or remove the other pin "
            f"from {where} if that state root is gone",
        )
    return {**pins, new.keyid: new}

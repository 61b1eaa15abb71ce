"""Hosts (ADR 0043, amendment `hosts`; ADR 0017 "what stays per host"), pure: a host's name, which
workers are a host's, and whether a host is reachable.

A worker's pane, worktree, sandbox, broker socket, home and launch spec live on the host that
launched it; its record names that host (`host`, written when the worker is reserved: the host
that accepts a dispatch delivers it). Only that host's conductor reconciles, parks, resumes or
stops it, and `oms worker park|resume|stop|deliver` on another host's worker is refused in one
line naming the host. A record written before hosts had no `host`: it is the reading host's.

A host is reachable while its newest heartbeat (`hosts/<host>.<ms>.json`, renewed by its
conductor each tick once a third of its lease has gone) has not expired — on an etcd store, while
its key `hosts/<host>` is there (it is deleted when the lease it was put under lapses: no clock
compared); the host a command runs on is always reachable from itself.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple, TypeVar

from oms.canonical import JsonObject, add_ms, dumps, parse_ts
from oms.errors import (
    CanonicalJsonError,
    ConfigError,
    HostNameTakenError,
    SchemaValidationError,
    shown,
)
from oms.limits import LIMITS
from oms.schemas import validate
from oms.schemas.payloads import WorkerPayload

ENV = "OMS_HOST"
SETTINGS = "oms/host.toml"  # under `$XDG_CONFIG_HOME`, else `~/.config` (as `[notify]`'s file)
FORMAT = "oms-host-beat-v1"
UP, UNREACHABLE = "up", "unreachable"
# one bound for the name: the pattern in schemas/defs.schema.json ($defs/host_name) is this one
NAME = re.compile(
    rf"[A-Za-z0-9](?:[A-Za-z0-9._-]{{0,{LIMITS.host_name_chars - 2}}}[A-Za-z0-9])?", re.ASCII
)
FIX = (
    "set OMS_HOST (or [host] name in ~/.config/oms/host.toml) to "
    f"1-{LIMITS.host_name_chars} ASCII letters, digits, '.', '_' or '-', starting and ending "
    "with a letter or digit"
)

_R = TypeVar("_R")


def settings_path(env: Mapping[str, str]) -> str:
    """Where this host's settings live: `$XDG_CONFIG_HOME/oms/host.toml`, else
    `$HOME/.config/oms/host.toml` (beside `[notify]`'s; the environment is given: no IO here)."""
    base = env.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (the XDG spec)
        base = os.path.join(env.get("HOME") or "/", ".config")
    return os.path.join(os.path.abspath(base), SETTINGS)


def check_name(name: str, where: str) -> str:
    """`name` when it is a host name, else `ConfigError` naming `where` it came from."""
    if NAME.fullmatch(name) is None:
        raise ConfigError(f"{where}: {shown(name, 80)!r} is not a host name", hint=FIX)
    return name


class Named(NamedTuple):
    """This host's name and where it came from (`OMS_HOST`, the settings file, the hostname)."""

    name: str
    source: str


def resolve(
    env: Mapping[str, str], settings: str | None, settings_path: str, hostname: str
) -> Named:
    """This host's name: `OMS_HOST` when set, else `[host] name` of the settings file (`settings`:
    its name, already parsed; None: no file), else the machine's hostname (its first label when the
    whole is not a name: an FQDN longer than a name may be)."""
    given = env.get(ENV)
    if given is not None:
        return Named(check_name(given, ENV), ENV)
    if settings is not None:
        return Named(check_name(settings, f"{settings_path}: [host] name"), settings_path)
    if NAME.fullmatch(hostname) is None and NAME.fullmatch(hostname.split(".", 1)[0]):
        hostname = hostname.split(".", 1)[0]
    return Named(check_name(hostname, "the machine's hostname"), "hostname")


def parse_settings(data: bytes, where: str) -> str:
    """`[host] name` of the host's settings file (`schemas/host-settings.schema.json`)."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 at byte {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}") from exc
    try:
        dumps(doc)
        validate("host-settings", doc, where=where)
    except (CanonicalJsonError, SchemaValidationError) as exc:
        raise ConfigError(
            exc.message if exc.message.startswith(where) else f"{where}: {exc.message}", hint=FIX
        ) from exc
    return str(doc["host"]["name"])


# ------------------------------------------------------------------ which workers are whose
def host_of(payload: WorkerPayload, this_host: str) -> str:
    """The host a worker runs on: its record's `host`, or — a record written before hosts — the
    host reading it."""
    named = payload.get("host")
    return named if isinstance(named, str) else this_host


def mine(payload: WorkerPayload, this_host: str) -> bool:
    """Is this worker this host's to act on?"""
    return host_of(payload, this_host) == this_host


def ours(
    records: Iterable[_R], payload_of: Callable[[_R], Mapping[str, object]], this_host: str
) -> list[_R]:
    """The records (workers) of `records` this host acts on, in their order (`mine`, inlined: a
    tick asks it of every worker in several phases)."""
    return [r for r in records if payload_of(r).get("host", this_host) == this_host]


def chain_is_mine(lease_host: object, worker: WorkerPayload | None, this_host: str) -> bool:
    """Is a pool ticket's chain (worktree, propose, review, accept, deliver) this host's to go on
    with? Its worker's host once it has a worker; before, the host that leased it (ADR 0043
    amendment `leasehost`: every host's conductor sees a ticket leased to a shared slot, and one
    that went on with another's lease proposed in its own worktree — the leasing host's proposal
    then conflicted, each a failed attempt); a lease that names no host (leased before hosts were
    named, or by hand) is anyone's, as before."""
    if worker is not None:
        return mine(worker, this_host)
    return not isinstance(lease_host, str) or lease_host == this_host


def refusal(dispatch_id: str, host: str) -> str:
    """What `oms worker park|resume|stop|deliver` says of another host's worker."""
    return f"worker {dispatch_id} runs on host {host}; run this there"


# ------------------------------------------------------------------ a name bound to a state key
NAME_FORMAT = "oms-host-name-v1"


def name_claim(host: str, key_id: str, now: str) -> JsonObject:
    """`host` bound to the state key `key_id` from `now` (`schemas/host-name.schema.json`)."""
    return {"format": NAME_FORMAT, "host": host, "keyid": key_id, "claimed_at": now}


RELEASE_FORMAT = "oms-host-name-release-v1"


def name_release(host: str, generation: int, keyid: str, by: str, now: str) -> JsonObject:
    """The release of `host`'s binding `generation` (to the lost state key `keyid`) by the state
    key `by` at `now` (`schemas/host-name-release.schema.json`, ADR 0043 amendment `names2`)."""
    return {
        "format": RELEASE_FORMAT,
        "host": host,
        "generation": generation,
        "keyid": keyid,
        "released_by": by,
        "released_at": now,
    }


def name_taken(host: str, holder: JsonObject, key_id: str) -> HostNameTakenError | None:
    """None when `host`'s claim on the store (`holder`) is this state key's (`key_id`), else the
    refusal: another state root acts under that name there (the same name given to two machines,
    a second clone's state root, a repository naming another's prefix), and would take its
    conductor's lock and see its workers as its own."""
    if holder["keyid"] == key_id:
        return None
    return HostNameTakenError(
        f"host name {host} is bound on this etcd store to state key {str(holder['keyid'])[:16]} "
        f"(since {holder['claimed_at']}); this state root's key is {key_id[:16]}: two state roots "
        "never act under one host name",
        hint=f"give this host a name of its own: {FIX}; if the state root of key "
        f"{str(holder['keyid'])[:16]} was lost, `oms host release-name {host} --bound-to "
        f"{str(holder['keyid'])[:16]}` releases the name (ADR 0043 amendment `names2`)",
    )


# ------------------------------------------------------------------ heartbeats
def beat(host: str, now: str, pid: int, lease_s: int = LIMITS.host_lease_s) -> JsonObject:
    """A heartbeat at `now`, good for `lease_s` (`schemas/host-beat.schema.json`)."""
    return {
        "format": FORMAT,
        "host": host,
        "beat_at": now,
        "expires_at": add_ms(now, lease_s * 1000),
        "pid": pid,
    }


def beat_due(last: JsonObject | None, now: str, lease_s: int = LIMITS.host_lease_s) -> bool:
    """Is a new heartbeat due: none yet, a third of the lease gone since the last one, or a clock
    that went back past it (a beat from the future would outlive its lease)?"""
    if last is None:
        return True
    at, now_ms = parse_ts(last["beat_at"]), parse_ts(now)
    return now_ms - at >= lease_s * 1000 // 3 or now_ms < at


def state(
    host: str, last: JsonObject | None, now: str, this_host: str, *, leased: bool = False
) -> str:
    """`up` or `unreachable`: this host is up; another is up while its newest beat has not
    expired (never beaten: unreachable). `leased`: the beat was read from a store that deletes it
    when its lease lapses (etcd), so a beat that is there is up and no clock is compared."""
    if host == this_host:
        return UP
    if last is None or (not leased and parse_ts(now) >= parse_ts(last["expires_at"])):
        return UNREACHABLE
    return UP

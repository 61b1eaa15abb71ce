"""Start, verify and stop the loopback model proxy (issue 13, ADR 0020).

`start` runs `oms proxy serve` detached (`process.start_detached`) and hands it a handshake key on a
memory-file descriptor (never argv or environment): HMAC(state key, fresh nonce), so the key is
stored nowhere and only the nonce is recorded. The child binds 127.0.0.1, writes its port to a pipe
and serves. The parent trusts it only once it answers a fresh random challenge with HMAC(key,
challenge) within `Limits.proxy_start_s` — a process that merely listens on the port is not the
proxy — and then records `proxy/proxy.json` (pid, start ticks, boot id, port, nonce). `status`
checks the process and the handshake again. `stop` signals only the process whose pid, start time
and boot all match the record (a pidfd: `kill_exact`), SIGTERM then SIGKILL after
`Limits.proxy_stop_grace_s`; a record whose process is gone is removed with a note, and nothing else
is signalled.

On demand (ADR 0026): every model worker goes through the proxy, so a launch that needs it issues
its token first and then `ensure`s a proxy runs (started from the launcher's environment if none
does, under `START_LOCK`); such a proxy is recorded `on_demand`, and `stop_if_idle` — called as a
worker ends and by the conductor's tick — stops it under the same lock once no token is held by a
worker that has not ended. A proxy a person started (`oms proxy start`) runs until `oms proxy stop`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import select
import signal
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TextIO, cast

from oms.canonical import JsonObject, access
from oms.canonical.strict_json import loads_foreign
from oms.domain import proxy as proxy_rules
from oms.domain.proxy import UNKNOWABLE, ProxyState
from oms.domain.routing import Cooldown, Provider
from oms.errors import (
    AlreadyExistsError,
    ConflictError,
    LockHeldError,
    OmsError,
    ProxyError,
    suppress_faults,
)
from oms.fsio import locks
from oms.fsio.procinfo import ProcessIdentity, is_alive
from oms.limits import LIMITS
from oms.process import child_env, data_fd, is_frozen, kill_exact, reap, start_detached
from oms.services.chain import providers as _providers
from oms.services.proxy import credentials as proxy_credentials
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy import watch as proxy_watch
from oms.services.proxy.book import note
from oms.services.proxy.front import DOORS, Doors
from oms.services.proxy.server import ProxyServer
from oms.services.proxy.settings import Settings
from oms.services.workspace import Workspace
from oms.store.documents import encode_document, parse_document
from oms.store.keys import SEED_BYTES
from oms.store.stateroot import KEY

RECORD = "proxy/proxy.json"
LOG = "proxy/proxy.log"
START_LOCK = "proxy/start.lock"  # one `oms proxy start` at a time


@dataclass(frozen=True, slots=True)
class Status:
    """The proxy as `status` finds it: running (verified now), not running, stale (its process is
    gone), unverified (its process runs but does not answer the handshake) or unreadable (its record
    cannot be read: a proxy it names may run, so none is started beside it)."""

    state: ProxyState
    record: JsonObject | None
    note: str

    def to_json(self) -> JsonObject:
        """The machine form (without the nonce)."""
        shown = (
            None
            if self.record is None
            else {k: v for k, v in self.record.items() if k != "hello_nonce"}
        )
        return {"state": self.state.value, "proxy": shown, "note": self.note}


def hello_key(ws: Workspace, nonce: str) -> bytes:
    """The handshake key of a proxy started with `nonce`."""
    seed = ws.store.state.root.read_secret(KEY, SEED_BYTES)
    return hmac.new(
        seed, b"oms-proxy-hello-key-v1\0" + nonce.encode("ascii"), hashlib.sha256
    ).digest()


def challenge(port: int, key: bytes, timeout: float = LIMITS.proxy_hello_s) -> bool:
    """Does whatever listens on 127.0.0.1:`port` answer a fresh challenge as only the proxy holding
    `key` can?"""
    nonce = secrets.token_hex(16)
    url = f"http://{proxy_rules.LOOPBACK}:{port}{proxy_rules.HELLO_PATH}?c={nonce}"
    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler({})
    )  # never through an HTTP proxy
    try:
        with opener.open(url, timeout=timeout) as response:
            doc = loads_foreign(response.read(4096))
    except (OSError, ValueError):
        return False
    expected = proxy_rules.hello_answer(key, nonce)
    answer = doc.get("answer") if isinstance(doc, dict) else None
    return (
        isinstance(answer, str) and expected is not None and hmac.compare_digest(answer, expected)
    )


def _identity(doc: JsonObject) -> ProcessIdentity:
    return ProcessIdentity(
        access.text(doc, "boot_id"), access.integer(doc, "pid"), access.integer(doc, "start_ticks")
    )


def status(ws: Workspace) -> Status:
    """What runs now, checked: the recorded process and the handshake."""
    root = ws.store.state.root
    try:
        data = root.read_optional(RECORD, LIMITS.proxy_record_bytes)
        doc = None if data is None else parse_document(data, "proxy-record", RECORD)
    except OmsError as exc:  # it may name a proxy still running: never start a second one beside it
        return Status(ProxyState.UNREADABLE, None, f"{RECORD} cannot be read: {exc.message}")
    if doc is None:
        return Status(ProxyState.NOT_RUNNING, None, "no proxy is recorded")
    pid, port = access.integer(doc, "pid"), access.integer(doc, "port")
    if not is_alive(_identity(doc)):
        return Status(ProxyState.STALE, doc, f"the recorded proxy (pid {pid}) is gone")
    if not challenge(port, hello_key(ws, access.text(doc, "hello_nonce"))):
        return Status(
            ProxyState.UNVERIFIED,
            doc,
            f"pid {pid} runs but what listens on port {port} fails the handshake",
        )
    return Status(
        ProxyState.RUNNING, doc, f"pid {pid} on {proxy_rules.LOOPBACK}:{port}, handshake verified"
    )


def _self_argv() -> tuple[tuple[str, ...], str]:
    """How to run this oms again, and the directory to run it in (a source tree runs as `python -m
    oms`)."""
    if is_frozen():
        return (sys.executable,), "/"
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (sys.executable, "-m", "oms"), os.path.dirname(package)


def key_names(ws: Workspace) -> tuple[str, ...]:
    """The environment variables holding the providers' keys (the proxy's child environment keeps
    these)."""
    # (Codex's login: `proxy_credentials`)
    names = set(proxy_rules.DEFAULT_KEY_ENV.values()) | {"CODEX_HOME"}
    providers = ws.config().routing.providers.values()
    names.update(p.key_env or proxy_rules.DEFAULT_KEY_ENV[p.family] for p in providers)
    return tuple(sorted(names))


def start(ws: Workspace) -> Status:
    """Start the proxy, verify it and record it; a running one is an error, a stale record is
    replaced. One start at a time (`proxy/start.lock`): a second start waits for nothing, it is
    told."""
    root = ws.store.state.root
    root.mkdirs("proxy")
    try:
        held = locks.acquire(root, START_LOCK)
    except LockHeldError as exc:
        raise ConflictError(f"another `oms proxy start` is under way ({exc.message})") from exc
    with held:
        return _start(ws)


def ensure(ws: Workspace) -> Status:
    """A running, verified proxy: the one recorded, else one started now (recorded `on_demand`).
    Waits for a start under way; one recorded but not answering its handshake, or unreadable, is
    named, never replaced (`oms proxy stop` first)."""
    root = ws.store.state.root
    root.mkdirs("proxy")
    with locks.acquire_waiting(root, START_LOCK, LIMITS.proxy_start_s + LIMITS.proxy_stop_grace_s):
        found = status(ws)
        if found.state == ProxyState.RUNNING:
            return found
        if found.state in UNKNOWABLE:
            raise ProxyError(f"the model proxy cannot be used: {found.note}", hint="oms proxy stop")
        return _start(ws, on_demand=True)


def stop_if_idle(ws: Workspace) -> Status | None:
    """Stop a proxy started on demand once no worker that has not ended holds a token (the Status of
    that stop; None: none was stopped). A start under way is left to finish."""
    root = ws.store.state.root
    if not root.exists(RECORD):
        return None
    try:
        held = locks.acquire(root, START_LOCK)
    except LockHeldError:
        return None  # a launch is starting it: it is needed
    with held:
        try:
            data = root.read_optional(RECORD, LIMITS.proxy_record_bytes)
            doc = None if data is None else parse_document(data, "proxy-record", RECORD)
        except OmsError:
            return None  # unreadable: `status` says so; nothing is signalled
        needed = proxy_tokens.needed(root, ws.store.backend)
        if doc is None or doc.get("on_demand") is not True or needed:
            return None
        return stop(ws)


def _start(ws: Workspace, *, on_demand: bool = False) -> Status:
    found = status(ws)
    if found.state in {ProxyState.RUNNING, *UNKNOWABLE}:
        raise ConflictError(
            f"the model proxy is already recorded: {found.note}", hint="`oms proxy stop` first"
        )
    root = ws.store.state.root
    # the port of the proxy this one replaces: a `network = "host"` worker was told it
    before = access.integer(found.record, "port") if found.record is not None else None
    if found.state == ProxyState.STALE:
        root.unlink(RECORD)
    nonce = secrets.token_hex(16)
    key = hello_key(ws, nonce)
    prefix, cwd = _self_argv()
    argv = (
        *prefix,
        "proxy",
        "serve",
        "--state-root",
        ws.store.path,
        "--config-root",
        ws.config_root,
    )
    secret, (ready_r, ready_w), log = (
        data_fd(key.hex().encode("ascii")),
        os.pipe(),
        root.open_log(LOG),
    )
    argv += ("--secret-fd", str(secret), "--ready-fd", str(ready_w))
    if before is not None and not ws.config().proxy.port:
        argv += ("--port", str(before))
    try:
        env = child_env(keep=key_names(ws))
        who = start_detached(argv, env=env, cwd=cwd, pass_fds=(secret, ready_w), log_fd=log)
    finally:
        for fd in (secret, ready_w, log):
            os.close(fd)
    try:
        port = _port(ready_r, time.monotonic() + LIMITS.proxy_start_s)
    finally:
        os.close(ready_r)
    try:
        if port is None or not challenge(port, key):
            raise ProxyError(
                f"the proxy (pid {who.pid}) did not answer the "
                f"handshake within {LIMITS.proxy_start_s:g}s"
            )
        doc: JsonObject = {
            "format": 1,
            "pid": who.pid,
            "start_ticks": who.start_ticks,
            "boot_id": who.boot_id,
            "port": port,
            "hello_nonce": nonce,
            "started_at": ws.now(),
            **({"on_demand": True} if on_demand else {}),
        }
        try:
            root.publish(
                RECORD, encode_document(doc, "proxy-record", RECORD, LIMITS.proxy_record_bytes)
            )
        except AlreadyExistsError as exc:
            raise ConflictError("another `oms proxy start` recorded its proxy first") from exc
    except BaseException:
        _end(who)
        raise
    where = f"pid {who.pid} on {proxy_rules.LOOPBACK}:{port}"
    return Status(ProxyState.RUNNING, doc, f"{where}, handshake verified")


def _port(fd: int, deadline: float) -> int | None:
    """The port the child writes on its ready pipe, or None (it died, or wrote something else, or
    took too long)."""
    data = b""
    while len(data) < 16 and not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return None
        piece = os.read(fd, 16)
        if not piece:
            break
        data += piece
    text = data.strip().decode("ascii", "replace")
    return int(text) if text.isdigit() and 0 < int(text) < 65536 else None


def _end(who: ProcessIdentity) -> None:
    """SIGTERM that exact process, SIGKILL it after the grace, reap it if it is our child."""
    if kill_exact(who, signal.SIGTERM):
        deadline = time.monotonic() + LIMITS.proxy_stop_grace_s
        while is_alive(who) and time.monotonic() < deadline:
            time.sleep(0.02)
        kill_exact(who)
    reap(who.pid)


def stop(ws: Workspace) -> Status:
    """Stop the recorded proxy (only that exact process) and remove its record."""
    found = status(ws)
    if found.state == ProxyState.NOT_RUNNING:
        return found
    if found.record is not None and found.state != ProxyState.STALE:
        _end(_identity(found.record))
    ws.store.state.root.unlink(RECORD)
    if found.state == ProxyState.STALE:
        return Status(ProxyState.STALE, found.record, f"removed a stale record: {found.note}")
    if (
        found.state == ProxyState.UNREADABLE
    ):  # no process it names can be trusted: none is signalled
        return Status(
            ProxyState.STALE,
            None,
            f"removed an unreadable record ({found.note}); no process was signalled",
        )
    return Status(ProxyState.STOPPED, found.record, "stopped")


def settings_for(ws: Workspace, key: bytes, env: Mapping[str, str]) -> Settings:
    """What the proxy of this workspace serves: the committed config's providers, the keys `env`
    holds for them, the roles' budgets; a cooldown it sees rests the provider in the store (one
    writer at a time)."""
    config = ws.config()
    lock = threading.Lock()

    def rest(provider_id: str, cooldown: Cooldown, dispatch_id: str) -> None:
        with lock:  # an implicit provider too: its family's one key is what the upstream limits
            _providers.rest(ws, provider_id, cooldown, f"proxy: {dispatch_id}")

    implicit = {p: Provider(p, family) for family, p in proxy_rules.IMPLICIT.items()}
    return Settings(
        root=ws.store.state.root,
        routing=replace(config.routing, providers={**config.routing.providers, **implicit}),
        credentials=proxy_credentials.credentials(config.routing.providers, env),
        budgets={r: role.token_budget for r, role in config.roles.items()},
        max_request_bytes=config.proxy.max_request_bytes,
        hello_key=key,
        rest=rest,
        clock=ws.now,
        request_deadline_s=config.proxy.request_deadline_s,
        backend=ws.store.backend,
    )


def serve(ws: Workspace, secret_fd: int, ready_fd: int, port: int | None = None) -> None:
    """The proxy itself (`oms proxy serve`): the key from `secret_fd`, the port to `ready_fd`, then
    serve until SIGTERM. `port`: the one to ask for first (the proxy's before it; another if it is
    taken), where `[proxy] port` names none."""
    try:
        key = bytes.fromhex(os.read(secret_fd, 256).decode("ascii").strip())
    finally:
        os.close(secret_fd)
    root = ws.store.state.root
    sys.stderr = cast("TextIO", proxy_watch.CappedLog(root, LOG))  # the log, bounded
    watch = proxy_watch.Watch(
        root, RECORD, LIMITS.proxy_record_bytes, START_LOCK
    )  # (before the lock is waited)
    with proxy_watch.serve_lock(root):  # one proxy per state root, taken before it listens
        _serve(ws, key, ready_fd, watch, port)


def _serve(
    ws: Workspace, key: bytes, ready_fd: int, watch: proxy_watch.Watch, port: int | None
) -> None:
    settings = settings_for(ws, key, os.environ)
    server = None
    configured = ws.config().proxy.port
    if port is not None and not configured:
        try:
            server = ProxyServer(settings, port)
        except OSError as exc:  # taken meanwhile: any free one (its workers are told by status)
            note(f"the port {port} of the proxy before is taken ({exc.strerror}): another one")
    if server is None:
        server = ProxyServer(settings, configured)
    doors = Doors(server, ws.store.state.root, ws.store.sandboxes())  # one per token
    server.on_hello = doors.keep  # a launch's handshake finds its door open (ADR 0026)
    with suppress_faults():  # (a failure here is the door thread's to retry)
        doors.root.mkdirs(DOORS)
        doors.keep()  # every token's door is live before the proxy answers (a recorded one has all)
    threading.Thread(target=doors.run, name="oms-proxy-doors", daemon=True).start()

    def end(*_: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    def superseded(why: str) -> None:
        note(why)
        server.shutdown()

    signal.signal(signal.SIGTERM, end)
    watcher = threading.Thread(target=watch.run, args=(superseded,), name="oms-proxy-watch")
    watcher.daemon = True
    watcher.start()
    with contextlib.suppress(OSError):
        os.write(ready_fd, b"%d\n" % server.port)
    os.close(ready_fd)
    try:
        server.serve_forever()
    finally:
        watch.stop()
        doors.stop()  # (before the process ends: no door is left behind by a stop)
        server.server_close()

"""Notifications (ADR 0036): who claims a notice, who runs the commands, and what they get.

`emit_all` claims notices — each is a `notice` event (the notification itself) and its receipt
`outbox/oms-notify/<notice>.receipt` is the claim, both on the ledger: whoever claims it first
notifies it, nobody notifies it again; at most `Limits.notify_per_tick` at one look — and starts
one `oms conductor notify <notice>...` for them, detached (`process.start_detached`), without
waiting on it: a tick or a merge goes on at once. That child reads each claimed notice's event
and runs each `[notify]` command in turn
(`process.run`: an argv, never a shell; outside every sandbox, in `/`), the notice as JSON on its
stdin (`schemas/notification.schema.json`, validated before it is sent), each within its time limit
(`timeout_seconds`, `Limits.notify_timeout_s` by default; then its process group is killed) and
`Limits.notify_output_bytes` of output (more ends it), with a minimal environment:
`process.child_env`'s allow-list (PATH, HOME, the locale, ...), the desktop session's variables a
notifier needs, and the names `pass_env` lists — never the state key (a file it is not told of)
nor a provider key, nor oms's own `OMS_*` variables. Each command's outcome is one line of
`notify/notify.log` in the state root. A failure is logged, never retried: a notice is claimed once.

What to run is the person's own `[notify]` (`settings`: `$XDG_CONFIG_HOME/oms/notify.toml`, ADR
0036 as amended), never a repository's `.oms/config.toml`, which a result's branch can edit.

`phase` is the conductor's: ticket and worker versions observed within `Limits.notify_window_s`
that are worth a notice (`domain/notify.py`) are emitted, and proposed dispatch versions that the
conductor's `waiting` (the chain's `awaiting_person`, handed down: this package sits below the
chain) says wait for a person's approval.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence

from oms.canonical import now
from oms.domain import notify as rules
from oms.errors import OmsError, ProcessFailedError, ProcessTimeoutError, one_line
from oms.fsio.outside import file_signature, read_user_file
from oms.limits import LIMITS
from oms.process import child_env, is_frozen, reap, run, running, start_detached
from oms.schemas import validate
from oms.schemas.payloads import DispatchState
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload, ticket_payload, worker_payload

Waiting = Callable[[Sequence[Record]], dict[str, str]]  # dispatches -> those waiting, each's phrase

CONSUMER = "oms-notify"
NOTICE = "notice"  # the event a notice is; its receipt by CONSUMER is the claim
LOG = "notify/notify.log"
# what a desktop notifier (notify-send) needs of the session beside `child_env`'s allow-list
DESKTOP = ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")
_STARTED: list[int] = []  # children this process started, reaped when they end
_LOOKED: dict[str, set[tuple[str, str, int]]] = {}  # state root -> versions looked at (`phase`)


def settings() -> rules.NotifyConfig | None:
    """The person's `[notify]` (`domain/notify.settings_path`), or None when there is no such file;
    `ConfigError` when it is not valid."""
    path = rules.settings_path(os.environ)
    if file_signature(path) is None:  # not there (or a parent is no directory)
        return None
    return rules.parse_settings(read_user_file(path, LIMITS.config_bytes, private=True), path)


def emit(ws: Workspace, notice: rules.Notice) -> bool:
    """Claim `notice` and start its commands, detached; False when nothing is configured for its
    kind or it was claimed already."""
    return bool(emit_all(ws, [notice]))


def emit_all(ws: Workspace, found: list[rules.Notice]) -> list[rules.Notice]:
    """Claim at most `Limits.notify_per_tick` of `found` (the rest wait for the next look) and
    start one detached child for all of them; the notices claimed."""
    config = settings()
    if config is None:
        return []
    outbox = ws.store.outbox(CONSUMER)
    claimed: list[rules.Notice] = []
    for notice in found:
        if len(claimed) >= LIMITS.notify_per_tick:
            break
        if notice.kind not in config.on or outbox.has_receipt(notice.notice_id):
            continue
        document = notice.document()
        validate("notification", document, where=notice.notice_id)
        ws.store.events.create(notice.notice_id, NOTICE, notice.at, document)  # once, the same
        _, created = outbox.commit_receipt(notice.notice_id, ws.now(), {"status": "done"})
        if created:
            claimed.append(notice)
    if claimed:
        _start(ws, tuple(n.notice_id for n in claimed), config.pass_env)
    return claimed


def _self_argv() -> tuple[tuple[str, ...], str]:
    """How to run this oms again, and where (a source tree runs as `python -m oms`)."""
    if is_frozen():
        return (sys.executable,), "/"
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return (sys.executable, "-m", "oms"), os.path.dirname(package)


def _start(ws: Workspace, notice_ids: tuple[str, ...], pass_env: tuple[str, ...]) -> None:
    for pid in _STARTED:  # children of earlier notices that ended are collected here
        reap(pid)
    del _STARTED[:-256]
    prefix, cwd = _self_argv()
    argv = (
        *prefix,
        "conductor",
        "notify",
        *notice_ids,
        "--state-root",
        ws.store.path,
        "--config-root",
        ws.config_root,
    )
    root = ws.store.state.root
    root.mkdirs("notify")
    log = root.open_log(LOG)
    try:
        env = child_env(keep=(*DESKTOP, *pass_env))
        who = start_detached(argv, env=env, cwd=cwd, pass_fds=(), log_fd=log)
    finally:
        os.close(log)
    _STARTED.append(who.pid)


def environment(pass_env: tuple[str, ...]) -> dict[str, str]:
    """A command's environment: the allow-list, the desktop session's, and `pass_env`; nothing
    of oms's own (`OMS_*`) unless `pass_env` names it."""
    env = child_env(keep=(*DESKTOP, *pass_env))
    return {k: v for k, v in env.items() if not k.startswith("OMS_") or k in pass_env}


def deliver_all(ws: Workspace, notice_ids: list[str]) -> list[str]:
    """Run every `[notify]` command on each claimed notice, in turn (the detached child's work)."""
    lines = []
    for notice_id in notice_ids:
        try:
            lines += deliver(ws, notice_id)
        except OmsError as exc:  # one notice that cannot be read keeps none of the others back
            line = f"{now()} {notice_id}: {exc.message}"
            lines.append(line)
            print(line, flush=True)
    return lines


def deliver(ws: Workspace, notice_id: str) -> list[str]:
    """Run every `[notify]` command on the claimed notice: one line of outcome each, also printed
    (to the log)."""
    if ws.store.outbox(CONSUMER).read_receipt(notice_id) is None:
        raise OmsError(f"no notice {notice_id} was claimed")
    document = ws.store.events.read(notice_id, NOTICE).payload
    validate("notification", document, where=notice_id)
    config = settings()
    if config is None:
        return []
    data = json.dumps(document, sort_keys=True).encode() + b"\n"
    lines = []
    for argv in config.commands:
        outcome = _one(argv, data, environment(config.pass_env), config.timeout_s)
        line = f"{now()} {notice_id} {document['kind']} {one_line(argv[0], 80)}: {outcome}"
        lines.append(line)
        print(line, flush=True)
    return lines


def _one(argv: tuple[str, ...], data: bytes, env: dict[str, str], timeout: float) -> str:
    try:
        run(
            argv,
            cwd="/",
            env=env,
            stdin=data,
            timeout=timeout,
            max_output=LIMITS.notify_output_bytes,
            end_group=True,  # what it left running in the background ends with it
        )
    except ProcessTimeoutError:
        return f"killed at its time limit ({timeout:g}s)"
    except ProcessFailedError as exc:
        return one_line(f"failed: {exc.message}", 300)
    except OmsError as exc:
        return one_line(f"failed: {exc.message}", 300)
    return "ok"


def phase(
    ws: Workspace, done: list[str], skipped: list[str], waiting: Waiting | None = None
) -> None:
    """The conductor's: notices of recent ticket and worker versions (and, with `waiting`, of
    proposed dispatch versions waiting for a person's approval), emitted — none while
    `Limits.notify_children` children of earlier looks run (a command that hangs makes a child
    live `notify_per_tick` times its limit: one per tick beside it piled up). A version this
    process has looked at already (claimed, or worth nothing) is passed over without a digest or a
    look at its receipt (`_LOOKED`): an idle tick at 10,000 recent tickets costs a set lookup
    each."""
    try:
        config = settings()
    except OmsError as exc:
        skipped.append(f"notify: {exc.message}")
        return
    if config is None:
        return
    if sum(running(pid) for pid in _STARTED) >= LIMITS.notify_children:
        return  # a child of an earlier look runs its commands still: this look's wait for it
    at = ws.now()
    looked = _LOOKED.setdefault(ws.store.path, set())
    if len(looked) > LIMITS.notify_looked_versions:
        looked.clear()
    titles: dict[str, str] = {}
    found: list[rules.Notice] = []
    keys: dict[str, tuple[str, str, int]] = {}
    for kind in ("ticket", "worker"):
        for rec in ws.store.latest(kind).records:
            if kind == "ticket":
                titles[rec.record_id] = ticket_payload(rec)["title"]
            key = (kind, rec.record_id, rec.version)
            if key in looked or not rules.fresh(rec.observed_at, at, LIMITS.notify_window_s):
                continue
            if kind == "ticket":
                notice = rules.of_ticket(
                    rec.record_id, rec.version, rec.state, ticket_payload(rec), rec.observed_at
                )
            else:
                title = titles.get(worker_payload(rec)["ticket_id"], "")
                notice = rules.of_worker(
                    rec.record_id, rec.version, worker_payload(rec), title, rec.observed_at
                )
            if notice is None or notice.kind not in config.on:
                looked.add(key)
            else:
                found.append(notice)
                keys[notice.notice_id] = key
    if waiting is not None and "needs-a-person" in config.on:
        found += _approval_waits(ws, waiting, titles, looked, keys, at)
    try:
        claimed = emit_all(ws, found)
    except OmsError as exc:
        skipped.append(f"notify: {exc.message}")
        return
    done.extend(f"{n.kind} {n.ticket_id}: notified ({n.notice_id})" for n in claimed)
    outbox = ws.store.outbox(CONSUMER)
    for notice in found:  # claimed now or before (a receipt): never looked at again
        if notice in claimed or outbox.has_receipt(notice.notice_id):
            looked.add(keys[notice.notice_id])


def _approval_waits(
    ws: Workspace,
    waiting: Waiting,
    titles: dict[str, str],
    looked: set[tuple[str, str, int]],
    keys: dict[str, tuple[str, str, int]],
    at: str,
) -> list[rules.Notice]:
    """Notices of the recent proposed dispatch versions `waiting` says wait for a person; the
    others are looked at once (a proposal the advisor approves is not looked at again)."""
    proposed = [
        rec
        for rec in ws.store.latest("dispatch").records
        if rec.state == DispatchState.PROPOSED
        and ("dispatch", rec.record_id, rec.version) not in looked
        and rules.fresh(rec.observed_at, at, LIMITS.notify_window_s)
    ]
    if not proposed:
        return []  # (no policy read: the common tick)
    waits = waiting(proposed)
    found = []
    for rec in proposed:
        key = ("dispatch", rec.record_id, rec.version)
        if rec.record_id not in waits:
            continue  # (looked at again next tick: its wait may begin once its lease is live)
        ticket_id = dispatch_payload(rec)["ticket_id"]
        notice = rules.of_approval_wait(
            rec.record_id,
            rec.version,
            ticket_id,
            titles.get(ticket_id, ""),
            waits[rec.record_id],
            rec.observed_at,
        )
        found.append(notice)
        keys[notice.notice_id] = key
    return found

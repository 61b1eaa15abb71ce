"""A message racing the end of its attempt (SECURITY.md "Talk to an agent", ADR 0036 amendment
`sendlock`). `oms worker send` holds the dispatch's end lock (`chain/end_lock.py`) from its fence
check until its last key is typed; a `oms dispatch cancel`, the lease's lapse (`oms ticket expire`)
and the agent's recorded result take it before they write. An end started while the message is
typed waits for it, and lands after it in the ledger; an end recorded first refuses the message
(`test_a_fenced_attempt_is_refused_and_nothing_is_typed` in tests/integration/test_worker_send.py).

Each race starts the end in another thread from inside `say`, after the fence was asked, and
types only once that end has either found the lock held (it waits) or finished (nothing held it,
as before this lock: the message was typed into the ended attempt's pane). A SIGKILLed holder
does not wedge a cancel: the lock names its holder, and a gone holder's lock is broken."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from oms.adapters.activation import Tui, Witness
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import next_after, stable_id
from oms.domain import dispatches as machine
from oms.domain.machine import Next, step
from oms.errors import LockHeldError
from oms.fsio import locks
from oms.limits import LIMITS
from oms.services.chain import dispatches, fence, results
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store import Change
from tests.chain import Chain
from tests.integration.test_worker_send import _heard, _listening, _until

End = Callable[[Chain, Workspace, str], object]
Ended = Callable[[Workspace, str], str | None]  # the ledger path of the end's record, if written


def _cancel(_chain: Chain, ws: Workspace, dispatch_id: str) -> object:
    return dispatches.cancel(ws, dispatch_id, "cancelled while a message was typed")


def _path(ws: Workspace, kind: str, record_id: str, state: str) -> str | None:
    rec = ws.store.records(kind).read(record_id)
    return f"records/{kind}/{record_id}/{rec.version}.json" if rec.state == state else None


def _cancelled(ws: Workspace, dispatch_id: str) -> str | None:
    return _path(ws, "dispatch", dispatch_id, "cancelled")


def _lapse(chain: Chain, ws: Workspace, _dispatch_id: str) -> object:
    chain.clock.advance(61)  # the configured lease is 60 minutes
    return fence.expire_leases(ws)


def _lapsed(ws: Workspace, dispatch_id: str) -> str | None:
    ticket_id = ws.store.records("dispatch").read(dispatch_id).payload["ticket_id"]
    return _path(ws, "ticket", str(ticket_id), "open")


def _result(_chain: Chain, ws: Workspace, dispatch_id: str) -> object:
    dispatch = ws.store.records("dispatch").read(dispatch_id)
    return results.record_result(ws, dispatch, status="blocked", summary="stuck", commit=None)


def _resulted(ws: Workspace, dispatch_id: str) -> str | None:
    return _path(ws, "dispatch", dispatch_id, "result-received")


def _acknowledge(chain: Chain, dispatch_id: str) -> None:
    """What the agent's `acknowledge_dispatch` writes (a result needs it first)."""
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        nxt = Next(step("dispatch", machine.TABLE, dispatch.state, "acknowledge"), dispatch.payload)
        after = next_after(dispatch.observed_at, ws.now())
        change = Change(nxt.state, nxt.payload, stable_id("dsp-ack", dispatch_id), "test", after)
        ws.store.records("dispatch").write_next(dispatch, change)


def _ledger_lines(chain: Chain) -> list[str]:
    return (chain.state / "ledger" / "log").read_text().splitlines()


def _at(lines: list[str], path: str) -> int:
    """Where in the ledger `path` was noted."""
    [found] = [i for i, line in enumerate(lines) if f'"path":"{path}"' in line]
    return found


@pytest.mark.parametrize(
    ("end", "ended"),
    [(_cancel, _cancelled), (_lapse, _lapsed), (_result, _resulted)],
    ids=["cancel", "lapse", "result"],
)
def test_an_end_started_while_a_message_is_typed_waits_for_its_last_key(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch, end: End, ended: Ended
) -> None:
    dispatch_id = _listening(deliverable)
    if end is _result:
        _acknowledge(deliverable, dispatch_id)
    waiting = threading.Event()  # the end found the lock held (it waits), or it finished
    ender: list[threading.Thread] = []
    failures: list[BaseException] = []
    at_last_key: list[str | None] = []
    real_acquire = locks.acquire

    def watched(root: object, rel: str) -> locks.Lock:
        try:
            return real_acquire(root, rel)  # type: ignore[arg-type]
        except LockHeldError:
            if ender and threading.current_thread() is ender[0]:
                waiting.set()
            raise

    monkeypatch.setattr(locks, "acquire", watched)

    def run() -> None:
        try:
            with deliverable.workspace() as other:
                end(deliverable, other, dispatch_id)
        except BaseException as exc:  # handed to the test's thread
            failures.append(exc)
        finally:
            waiting.set()

    class EndedMeanwhile(Tui):
        """The end starts after the fence was asked, before the first key."""

        def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
            ender.append(threading.Thread(target=run, name="ender"))
            ender[0].start()
            assert waiting.wait(timeout=60), "the end neither waited nor finished"
            typed = super().say(plan, dispatch_id, text, witness)
            with deliverable.workspace() as look:
                at_last_key.append(ended(look, dispatch_id))
            return typed

    with deliverable.workspace() as ws:
        sender = Delivery.open(ws, activator=EndedMeanwhile(Delivery.open(ws).panes))
        sent = sender.send(dispatch_id, "keep going", person="tester")
    ender[0].join(timeout=60)
    assert not ender[0].is_alive()
    assert not failures, failures
    assert at_last_key == [None]  # when the last key was typed, the attempt had not ended
    with deliverable.workspace() as look:
        end_path = ended(look, dispatch_id)  # ... and the end was recorded once it was typed
    assert end_path is not None
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"keep going\r"
    lines = _ledger_lines(deliverable)
    assert _at(lines, f"events/{sent['event_id']}.json") < _at(lines, end_path)


_CANCEL_ELSEWHERE = """\
import sys
from oms.errors import LockHeldError
from oms.fsio import locks
from oms.services.chain import dispatches
from oms.services.workspace import Workspace

real = locks.acquire
said = []


def watched(root, rel):
    try:
        return real(root, rel)
    except LockHeldError:
        if not said:
            said.append(print("waiting", flush=True))
        raise


locks.acquire = watched
with Workspace.open(sys.argv[1], sys.argv[2]) as ws:
    dispatches.cancel(ws, sys.argv[3], "cancelled from another process")
print("cancelled", flush=True)
"""


def test_a_cancel_in_another_process_waits_for_the_last_key(
    deliverable: Chain, tmp_path: Path
) -> None:
    """The same race across processes: the lock names the sender's process, alive, so the other
    process's cancel waits until the sender releases it."""
    dispatch_id = _listening(deliverable)
    at_last_key: list[str | None] = []
    heard: list[bytes] = []

    class CancelledElsewhere(Tui):
        def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
            argv = [sys.executable, "-c", _CANCEL_ELSEWHERE]
            argv += [str(deliverable.state), str(deliverable.repo), dispatch_id]
            canceller = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=tmp_path)
            assert canceller.stdout is not None
            first = canceller.stdout.readline()  # "waiting" (the lock is held) or "cancelled"
            heard.append(first)
            typed = super().say(plan, dispatch_id, text, witness)
            with deliverable.workspace() as look:
                at_last_key.append(_cancelled(look, dispatch_id))
            cancellers.append(canceller)
            return typed

    cancellers: list[subprocess.Popen[bytes]] = []
    with deliverable.workspace() as ws:
        sender = Delivery.open(ws, activator=CancelledElsewhere(Delivery.open(ws).panes))
        sent = sender.send(dispatch_id, "keep going", person="tester")
    [canceller] = cancellers  # the message typed and the lock released: it may cancel now
    rest, _ = canceller.communicate(timeout=60)
    heard.append(rest)
    assert canceller.returncode == 0
    assert at_last_key == [None]  # not cancelled when the last key was typed
    assert heard[0] == b"waiting\n"
    assert heard[1] == b"cancelled\n"
    with deliverable.workspace() as look:
        end_path = _cancelled(look, dispatch_id)
    assert end_path is not None
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"keep going\r"
    lines = _ledger_lines(deliverable)
    assert _at(lines, f"events/{sent['event_id']}.json") < _at(lines, end_path)


def test_a_sigkilled_holder_does_not_wedge_a_cancel(deliverable: Chain, tmp_path: Path) -> None:
    from oms.services.chain.end_lock import END_LOCKS

    dispatch_id = _listening(deliverable)
    script = (
        "import sys, time\n"
        "from oms.services.chain.end_lock import end_lock\n"
        "from oms.services.workspace import Workspace\n"
        "with Workspace.open(sys.argv[1], sys.argv[2]) as ws, end_lock(ws, sys.argv[3]):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(600)\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", script, str(deliverable.state), str(deliverable.repo), dispatch_id],
        stdout=subprocess.PIPE,
        cwd=tmp_path,
    ) as holder:
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline() == b"held\n"
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait(timeout=30)
        finally:
            if holder.poll() is None:
                holder.kill()
                holder.wait(timeout=30)
    assert (deliverable.state / "outbox" / END_LOCKS / f"{dispatch_id}.lock").exists()  # left
    began = time.monotonic()
    with deliverable.workspace() as ws:
        dispatches.cancel(ws, dispatch_id, "its sender was killed")
        assert _cancelled(ws, dispatch_id) is not None
    assert time.monotonic() - began < 5  # the gone holder's lock is broken, not waited out


def test_an_end_waits_longer_than_a_message_is_typed() -> None:
    """A message holds the end lock for at most its text, two pauses and two confirmations
    (`Tui._submit`); an end waits longer than that, so a live sender never makes a cancel fail."""
    typing_s = 2 * LIMITS.enter_pause_s + LIMITS.activation_confirm_s + LIMITS.activation_late_s
    assert LIMITS.end_lock_wait_s >= 2 * typing_s

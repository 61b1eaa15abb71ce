"""Two messages sent at once to one worker (two people, or `oms web` and `oms worker send`) are
never typed into each other (SECURITY.md "Talk to an agent"). A message is its text, a pause and
an Enter: before the fix a second message typed while the first waited for its Enter joined it,
so the agent took one turn of both texts (recorded as two messages, each under its own name) and
the second Enter submitted nothing. Now one message of a worker is typed at a time: a second
sent meanwhile is refused at once, in one line, recorded nowhere."""

from __future__ import annotations

import threading

import pytest

from oms.adapters.activation import Tui
from oms.adapters.panes import TmuxPanes
from oms.errors import ConflictError
from oms.services.delivery.service import Delivery
from tests.chain import Chain
from tests.helpers import OmsCommand
from tests.integration.test_worker_send import _heard, _listening, _messages, _until


class _Held(TmuxPanes):
    """oms's panes, the first message's Enter held until the test lets it go."""

    typed = threading.Event()
    go_on = threading.Event()

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        if keys == ("Enter",) and not self.typed.is_set():
            self.typed.set()
            assert self.go_on.wait(60)
        super().send_keys(dispatch_id, *keys)


def test_a_second_message_never_joins_the_first(deliverable: Chain, oms: OmsCommand) -> None:
    dispatch_id = _listening(deliverable)
    failed: list[BaseException] = []

    def first() -> None:
        try:
            with deliverable.workspace() as ws:
                plain = Delivery.open(ws).panes
                assert isinstance(plain, TmuxPanes)
                held = _Held(plain.socket, plain.conf, plain.guard, plain.clock)
                Delivery.open(ws, activator=Tui(held)).send(dispatch_id, "one", person="ann")
        except BaseException as exc:
            failed.append(exc)
            _Held.typed.set()

    sender = threading.Thread(target=first)
    sender.start()
    try:
        assert _Held.typed.wait(60), "the first message was never typed"
        with deliverable.workspace() as ws, pytest.raises(ConflictError, match="being typed"):
            Delivery.open(ws).send(dispatch_id, "two", person="bob")
    finally:
        _Held.go_on.set()
        sender.join(60)
    assert failed == []
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"one\r"
    assert [m["text"] for m in _messages(deliverable)] == ["one"]
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    verified = oms.run("store", "verify", *roots)
    assert verified.returncode == 0, verified.stdout  # its lock's place is oms's own

"""The proxy's deadline watchdog never shuts down a descriptor its connection no longer owns.

Found beside a CPU hog on both cores: while one sandbox churned connections on its door, another
worker's request on the TCP port was answered 502 once (its upstream connection failed). The one
way to that found in the code: the watchdog took a connection past its deadline off its list, let
go of the list's lock and only then shut the connection down, and CPython reads the socket's
descriptor for `shutdown(2)` with the GIL let go. In between, the connection's handler could close
it (its sender hung up) and the process give the freed descriptor number to the next socket it
opened: another worker's upstream connection, which the late shutdown would cut. Now a connection
is shut down while it is still on the list, under the lock its handler's `disarm` takes before it
closes the connection.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

import pytest

from oms.services.proxy.guards import Deadlines

HANDLER_WAIT_S = 0.5  # how long the handler is given to close while the shutdown runs


class _Watched(socket.socket):
    """A connection that runs `during` as it is shut down."""

    during: Callable[[], None] = staticmethod(lambda: None)

    def shutdown(self, how: int) -> None:
        self.during()
        super().shutdown(how)


@pytest.fixture
def deadlines() -> tuple[Deadlines, list[float]]:
    now = [0.0]
    found = Deadlines(clock=lambda: now[0])
    found.close()  # no watchdog thread: the test calls what it would
    return found, now


@pytest.mark.parametrize("how", ["past its deadline", "to make room"])
def test_a_connection_is_not_closed_by_its_handler_while_it_is_shut_down(
    deadlines: tuple[Deadlines, list[float]], how: str
) -> None:
    found, now = deadlines
    ours, theirs = socket.socketpair()
    conn = _Watched(ours.family, ours.type, fileno=ours.detach())
    closed = threading.Event()
    closed_during: list[bool] = []

    def handler_hangs_up() -> None:  # what `Handler.handle_one_request` does, then its server
        found.disarm(conn)
        conn.close()
        closed.set()

    handler = threading.Thread(target=handler_hangs_up)

    def during() -> None:
        handler.start()
        closed_during.append(closed.wait(HANDLER_WAIT_S))

    conn.during = during
    try:
        found.arm(conn, 1.0)
        now[0] = 10.0
        if how == "past its deadline":
            assert found.expire() == 1
        else:
            assert found.evict_oldest(conn.family)
        handler.join(10)
        assert closed.is_set()
        assert closed_during == [False], (
            "the handler closed the connection (its descriptor free for another socket) while the "
            "watchdog was still shutting it down"
        )
    finally:
        conn.close()
        theirs.close()


def test_a_connection_its_handler_disarmed_is_never_shut_down(
    deadlines: tuple[Deadlines, list[float]],
) -> None:
    found, now = deadlines
    ours, theirs = socket.socketpair()
    conn = _Watched(ours.family, ours.type, fileno=ours.detach())
    shut: list[bool] = []
    conn.during = lambda: shut.append(True)
    try:
        found.arm(conn, 1.0)
        found.disarm(conn)
        now[0] = 10.0
        assert found.expire() == 0
        assert not found.evict_oldest(conn.family)
        assert shut == []
    finally:
        conn.close()
        theirs.close()

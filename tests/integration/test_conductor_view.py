"""The `oms conductor run` screen (issue 26 item 4): each worker by its ticket and title, not only
its dispatch id, in aligned columns — a wide-character or long title cut to its column, a hostile
one escaped (`cell`) — and, under it, a line that says what a running tick does, redrawn while it
runs."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import JsonObject, stable_id
from oms.cli.conductor_cmds import Doing
from oms.cli.conductor_view import cell, cells, render
from oms.domain import workers as worker_machine
from oms.limits import LIMITS
from oms.services.chain import tickets
from oms.services.conductor import doing
from oms.services.conductor.tick import Tick
from oms.services.workspace import SYSTEM_ACTOR
from oms.store.payloads import as_json
from tests.chain import Chain

SESSION = "11111111-2222-4333-8444-555555555555"
TITLES = (
    "Fix the flaky test",
    "修复不稳定的测试并且重写整个模块的日志记录和错误处理",  # wide: two cells a character
    "A very long title that goes on " * 4,
    "e\u0301te\u0301 cafe\u0301 re\u0301sume\u0301 na\u0131\u0308ve " * 3,  # combining marks
)


def _running(chain: Chain) -> list[str]:
    """A working, healthy worker for a ticket of each title; their ticket ids."""
    ids = []
    with chain.workspace() as ws:
        box = ws.store.records("worker")
        for n, title in enumerate(TITLES):
            ticket = tickets.add(ws, title, "body")
            dispatch_id = f"dsp-{n:032x}"
            dispatch: JsonObject = {
                "ticket_id": ticket.record_id,
                "session_id": SESSION,
                "role_id": "oms.command-executor",
                "provider_mode": "command",
                "worktree_id": "wt-x",
            }
            payload = worker_machine.new(dispatch_id, dispatch, updated_at=ws.now()).payload
            box.create(
                dispatch_id,
                state="working",
                payload={**as_json(payload), "health": "healthy"},
                operation_id=stable_id("view", n),
                actor=SYSTEM_ACTOR,
                observed_at=ws.now(),
            )
            ids.append(ticket.record_id)
    return ids


def test_workers_show_their_ticket_and_title_in_aligned_columns(chain: Chain) -> None:
    ids = _running(chain)
    with chain.workspace() as ws:
        screen = render(ws, Tick(ws.now()))
    lines = screen.splitlines()
    header = next(line for line in lines if line.startswith("TICKET"))
    rows = [line for line in lines if line.split(" ", 1)[0] in ids]
    assert len(rows) == len(TITLES)
    column = cells(header[: header.index("HEALTH")])
    for row, ticket_id in zip(rows, ids, strict=True):
        assert row.startswith(ticket_id)
        assert "\x1b" not in row
        at = next(i for i in range(len(row)) if cells(row[:i]) == column)  # HEALTH's cell
        assert row[at:].split()[:2] == ["healthy", "working"], row
        assert row.split()[-1].startswith("dsp-")  # the worker's id, for `oms worker log`
    assert "Fix the flaky test" in rows[0]
    assert "修复" in rows[1]
    assert "…" in rows[1]
    assert "…" in rows[2]
    assert "e\u0301te\u0301" in rows[3]


@given(st.text(max_size=80), st.integers(1, 60))
def test_a_cell_is_exactly_its_width(text: str, width: int) -> None:
    shown = cell(text, width)
    assert cells(shown) in (width, width - 1)  # a wide character never straddles the edge
    assert "\n" not in shown
    assert "\x1b" not in shown


def test_the_cell_of_a_title_cuts_wide_characters_whole() -> None:
    shown = cell("修复" * 20, LIMITS.dashboard_title_cells)
    assert shown.rstrip().endswith("…")
    assert cells(shown) == LIMITS.dashboard_title_cells


def test_what_a_running_tick_does_is_redrawn_while_it_runs() -> None:
    written: list[str] = []
    seen = threading.Event()
    wanted = "tkt-3: the advisor reviews"

    def write(text: str) -> None:
        written.append(text)
        if wanted in text:
            seen.set()

    with Doing(write, doing.said, 0.01):
        doing.now("deliver")
        doing.step(f"{wanted} dsp-1 (a model call)")
        assert seen.wait(30), written  # the thread drew it, nothing else ran a poll
        doing.now(None)
    assert any("now: deliver" in line for line in written)
    assert written[0].startswith("\r\x1b[K")

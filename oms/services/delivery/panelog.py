"""`oms worker log`: a worker's pane log (`panes/<dispatch>.log`: what its supervisor and launch
wrote — "attempt fenced", "stop gate released", the sandbox's end), read a bounded piece at a time
from where the reader left off, its lines escaped (`domain/panelog.py`)."""

from __future__ import annotations

from collections.abc import Callable

from oms.domain import hosts
from oms.domain.panelog import Line, parse
from oms.errors import NotFoundError, OtherHostError
from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.store import panefiles
from oms.store.payloads import worker_payload

TAIL = LIMITS.pane_log_tail_bytes  # what `oms worker log` shows of a log at first
PIECE = LIMITS.pane_log_piece_bytes  # the most one read takes (a line longer is cut)


def read(ws: Workspace, dispatch_id: str, offset: int | None) -> tuple[list[Line], int]:
    """The whole lines of the log from `offset` (None: its last `TAIL` bytes, from a line's start),
    at most `PIECE` bytes of them, and the offset after them. A log shorter than `offset` was
    started again: read from its start."""
    rel = panefiles.log_path(dispatch_id)
    try:
        with ws.store.state.root.log_reader(rel) as log:
            size = log.size
            if offset is None:
                start = max(0, size - TAIL)
            else:
                start = 0 if offset > size else offset
            data = log.read_at(start, min(PIECE, size - start))
    except NotFoundError:
        return [], 0 if offset is None else offset
    if offset is None and start > 0:  # the tail starts inside a line: from the next one
        cut = data.find(b"\n")
        data, start = (b"", start + len(data)) if cut < 0 else (data[cut + 1 :], start + cut + 1)
    end = data.rfind(b"\n")
    if end < 0:  # no whole line: a line longer than a piece is shown in pieces, else wait for it
        if len(data) < PIECE:
            return [], start
        return [parse(data)], start + len(data)
    return [parse(raw) for raw in data[:end].split(b"\n")], start + end + 1


def ended(ws: Workspace, dispatch_id: str) -> bool:
    """Has the worker of `dispatch_id` ended (NotFoundError: no such worker; OtherHostError:
    another host runs it and its log is that host's file — on an etcd store always, on files
    unless the state root the hosts share holds it)?"""
    worker = ws.store.records("worker").read_if_exists(dispatch_id)
    if worker is None:
        raise NotFoundError(
            f"no worker {dispatch_id}", hint="`oms status` lists the workers and their dispatch ids"
        )
    host = hosts.host_of(worker_payload(worker), ws.host())
    here = ws.store.backend is None and ws.store.state.root.exists(panefiles.log_path(dispatch_id))
    if host != ws.host() and not here:  # that host's file: on a cluster, never this state root's
        raise OtherHostError(
            f"worker {dispatch_id} runs on host {host}; its pane log is there",
            hint=f"run `oms worker log {dispatch_id}` on host {host}",
        )
    return worker_payload(worker).get("health") == "stopped"


def follow(
    ws: Workspace,
    dispatch_id: str,
    show: Callable[[Line], None],
    wait: Callable[[], None],
    *,
    offset: int | None = None,
) -> None:
    """Show the log's lines as they are written, until the worker has ended (every line written
    before its end shown): `wait` between reads (`oms worker log --follow`: a poll interval)."""
    while True:
        over = ended(ws, dispatch_id)  # asked first: what was written before the end is read next
        while True:
            lines, after = read(ws, dispatch_id, offset)
            for line in lines:
                show(line)
            if after == offset or not lines:
                offset = after
                break
            offset = after
        if over:
            return
        wait()

"""What `oms web` shows beyond the board (issue 27 item 5, ADR 0041): a worker's timeline and its
pane log, a result's diff (its `--stat` first, the diff bounded, a line when it was cut) and its
verify output, each read through the service its command calls, behind the board's token, bounded,
writing nothing; and every text an agent wrote (a diff's lines and file names, a check's output, a
pane log line) comes back escaped: markup as text, a terminal's controls and bytes that are not
UTF-8 as `\\xNN`."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from oms.limits import LIMITS
from oms.services.web import board as reading
from oms.services.web import server
from oms.services.workspace import Workspace
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.helpers import git
from tests.integration.test_web_http import get

MARKUP = "</pre><script>document.title='pwned'</script><img src=x onerror=alert(1)>"
# a check's output: markup, a screen clear, an OSC 52 clipboard write and a byte that is not UTF-8
HOSTILE_CHECK = (
    '\n[verify]\ncommands = [["sh", "-c", '
    "\"printf '%s\\\\033[2J\\\\033]52;c;aGk=\\\\007\\\\377\\\\n' '</pre><script>x</script>'\"]]\n"
)


@contextmanager
def serving(chain: Chain) -> Iterator[server.Board]:
    @contextmanager
    def opener() -> Iterator[Workspace]:
        ws = Workspace.open(str(chain.state), str(chain.repo))
        try:
            yield ws
        finally:
            ws.close()

    served = server.serve(0, opener)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()
        thread.join()


def read(b: server.Board, path: str, pick: str, status: int = 200) -> dict[str, Any]:
    answer = get(b, f"{path}?t={b.token}&id={pick}")
    assert answer.status == status, answer.read()
    assert answer.getheader("Content-Type") == "application/json"
    assert answer.getheader("X-Content-Type-Options") == "nosniff"
    doc: dict[str, Any] = json.loads(answer.read())
    return doc


def hostile_result(chain: Chain, files: dict[bytes, bytes], summary: str = MARKUP) -> Bound:
    """A completed result whose commit adds `files` (names and contents as bytes, any bytes)."""
    bound = bind(chain)
    for name, data in files.items():
        (Path(os.fsdecode(bytes(bound.worktree))) / os.fsdecode(name)).write_bytes(data)
    git("add", "-A", cwd=bound.worktree)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "w", cwd=bound.worktree)
    commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        said, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": summary, "result_commit": commit},
        )
        assert is_error is False, said
    finally:
        tools.close()
    return bound


def _inert(text: str) -> None:
    """No terminal control, no lone surrogate (a byte that was not UTF-8) left in `text`."""
    assert not [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    assert not [c for c in text if 0xD800 <= ord(c) <= 0xDFFF]


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


def test_a_result_diff_and_verify_output_escaped(chain: Chain) -> None:
    from oms.services.finishing import verify

    chain.edit_config(lambda s: s + HOSTILE_CHECK, commit=True)
    body = MARKUP.encode() + b"\n\x1b]52;c;aGk=\x07 \x1b[2J\n\xff\xfe not UTF-8\n"
    bound = hostile_result(
        chain, {b"<img src=x onerror=alert(1)>.md": body, b"\x1b[31mred\xff.md": b"red\n"}
    )
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
    with serving(chain) as b:
        shown = read(b, "/api/result", bound.dispatch_id)
        change = read(b, "/api/diff", bound.dispatch_id)
    assert shown["summary"] == MARKUP  # as text: the page draws it with textContent
    [check] = shown["verification"]["checks"]
    # (`oms result show` reads a check's output as UTF-8, a byte that is not as U+FFFD)
    assert "</pre><script>x</script>\\x1b[2J\\x1b]52;c;aGk=\\x07\ufffd\n" in check["output_tail"]
    assert change["target"] == "main"
    assert "<img src=x onerror=alert(1)>.md" in change["stat"]
    assert "2 files changed" in change["stat"]
    diff = change["diff"]
    assert f"+{MARKUP}\n" in diff
    assert "+\\x1b]52;c;aGk=\\x07 \\x1b[2J\n" in diff
    assert "+\\xff\\xfe not UTF-8\n" in diff
    assert change["truncated"] is False
    for doc in (shown, change):
        for text in _strings(doc):
            _inert(text)


def test_a_long_diff_is_cut_at_a_line_and_says_so(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The diff's first `LIMITS.web_diff_bytes` at a line's end, then a line that says it was
    cut and what shows it all; the `--stat` keeps its summary line past its own bound."""
    files = {f"f{n:03}.txt".encode(): f"line {n}\n".encode() * 50 for n in range(60)}
    bound = hostile_result(chain, files, summary="many files")
    monkeypatch.setattr(
        reading, "LIMITS", LIMITS._replace(web_diff_bytes=4096, web_diff_stat_bytes=512)
    )
    with chain.workspace() as ws:
        doc = json.loads(json.dumps(reading.diff(ws, bound.dispatch_id)))
    assert doc["truncated"] is True
    kept, said = doc["diff"].rsplit("\n... truncated:", 1)
    assert len(kept.encode()) + 1 <= 4096
    assert kept.startswith("diff --git a/f000.txt b/f000.txt\n")
    assert f"`oms result diff {bound.dispatch_id}` shows it all\n" in said
    assert "f059.txt" not in doc["diff"]
    stat = doc["stat"]
    assert len(stat.encode()) < 512 + 200
    assert stat.startswith(" f000.txt")
    assert stat.endswith("...\n 60 files changed, 3000 insertions(+)\n")


def test_a_worker_timeline_and_its_pane_log_bounded_and_escaped(chain: Chain) -> None:
    from tests.chain import accepted

    dispatch_id, _ = accepted(chain)
    log = chain.state / "panes" / f"{dispatch_id}.log"
    early = b"2026-12-02T10:00:00.000Z the first line, long gone\n"
    filler = b"2026-12-02T10:00:01.000Z filler\n" * (2 * LIMITS.pane_log_tail_bytes // 32)
    last = b"2026-12-02T10:00:02.000Z " + MARKUP.encode() + b" \x1b[2J\xff\n"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, early + filler + last)
    finally:
        os.close(fd)
    with serving(chain) as b:
        doc = read(b, "/api/worker", dispatch_id)
        missing = read(b, "/api/worker", "dsp-" + "0" * 32, status=404)
    assert doc["id"] == dispatch_id
    timeline = doc["timeline"]
    assert [e["at"] for e in timeline] == sorted(e["at"] for e in timeline)  # in order, timed
    whats = [e["what"] for e in timeline]
    assert any(w.startswith(f"dispatch {dispatch_id} v1") for w in whats), whats
    assert any("-> accepted" in w and dispatch_id in w for w in whats), whats
    lines = doc["lines"]
    assert lines[-1] == {"at": "2026-12-02T10:00:02.000Z", "text": f"{MARKUP} \\x1b[2J\\xff"}
    assert all("first line" not in ln["text"] for ln in lines)  # only its last KiB
    shown = sum(len(ln["text"]) + 26 for ln in lines)
    assert shown <= LIMITS.pane_log_tail_bytes
    assert doc["log_tail_bytes"] == LIMITS.pane_log_tail_bytes
    for text in _strings(doc):
        _inert(text)
    assert "no dispatch" in missing["error"] or "no worker" in missing["error"]


@pytest.mark.parametrize("path", ["/api/worker", "/api/result", "/api/diff", "/api/audit"])
def test_each_view_needs_the_token(chain: Chain, path: str) -> None:
    with serving(chain) as b:
        for query in ("?id=x", "?t=wrong&id=x"):
            answer = get(b, path + query)
            assert answer.status == 403
            assert answer.read() == b"forbidden: no or wrong token\n"


def test_reading_every_view_writes_nothing(chain: Chain) -> None:
    """Not one ledger entry, not one file: the views read."""
    bound = hostile_result(chain, {b"a.txt": b"a\n"}, summary="s")
    with chain.workspace() as ws:
        before = reading.marker(ws)
    files = sorted(str(p) for p in chain.state.rglob("*"))
    with serving(chain) as b:
        for path in ("/api/worker", "/api/result", "/api/diff", "/api/audit", "/api/log"):
            read(b, path, bound.dispatch_id)
    with chain.workspace() as ws:
        assert reading.marker(ws) == before
    assert sorted(str(p) for p in chain.state.rglob("*")) == files

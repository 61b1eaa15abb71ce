"""`oms web` in a real headless Chromium (ADR 0041): the page loads with the token and shows a
ticket's title; it updates within 2 s of `oms ticket add` (the server's stream of events); a hostile
title renders as text, never as markup or script; a worker's timeline and a result's diff open from
their rows, a hostile diff as text; each action works by a click (verify and merge, request changes,
cancel, send, reopen a blocked ticket, stop a worker, resume a parked one, approve a dispatch that
waits for a person) and the page shows the state it made; the page says when the server ends. The
screenshot in docs/recordings/web.png is taken here, of a board with workers and a result
(`test_the_board_with_workers_and_a_result`: OMS_RECORD=1 writes it, and beside it the digest of the
page's assets it was drawn by, which tests/unit/test_web_recording.py holds the assets to; any other
run leaves the checkout as it was: a test that writes a tracked file changes the sources the frozen
build is of, and `.ci/setup --install` would build again under the frozen tests)."""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.agent_side import bind
from tests.browser import CHROMIUM, Browser
from tests.chain import Chain
from tests.helpers import git, oms_command, scaled

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (.ci/setup installs it)")
HOSTILE = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>'


@pytest.fixture
def served(chain: Chain) -> Iterator[tuple[str, tuple[str, ...]]]:
    """`oms web` running as a person runs it: its URL, and the roots to run other commands with."""
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    add = oms_command().run(
        "ticket", "add", "--title", "Make the board readable", "--no-body", *roots
    )
    assert add.returncode == 0, add.stderr
    with _serving(roots) as url:
        yield url, roots


@contextmanager
def _serving(roots: tuple[str, ...]) -> Iterator[str]:
    oms = oms_command()
    proc = subprocess.Popen(
        [*oms.argv, "web", *roots], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stderr is not None
        line = proc.stdout.readline()
        assert line.startswith("oms web: open http://127.0.0.1:"), line + proc.stderr.read()
        yield line.split("open ", 1)[1].strip()
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def _titles(browser: Browser) -> list[str]:
    got = browser.eval(
        "JSON.stringify([...document.querySelectorAll('#queue tr:not(.empty) td:nth-child(3)')]"
        ".map(td => td.textContent))"
    )
    return list(json.loads(got))


def test_the_board_in_a_browser(served: tuple[str, tuple[str, ...]], tmp_path: Path) -> None:
    url, roots = served
    with Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.updated", timeout=20)
        assert browser.eval("document.body.dataset.live") == "live"  # the stream, not polling
        assert _titles(browser) == ["Make the board readable"]
        before = browser.eval("document.body.dataset.updated")
        start = time.monotonic()  # the change happens during the command: timed from its start
        added = oms_command().run("ticket", "add", "--title", HOSTILE, "--no-body", *roots)
        assert added.returncode == 0, added.stderr
        rows = "document.querySelectorAll('#queue tr:not(.empty)').length === 2"
        browser.wait_for(rows, timeout=2)
        took = time.monotonic() - start  # 2 s on an idle machine, times OMS_TEST_SLOWDOWN
        assert took < scaled(2), f"the page showed the new ticket after {took:.2f} s"
        print(f"web: the page showed the new ticket {took:.2f} s after `oms ticket add` began")
        assert before  # the page had drawn before the change
        assert _titles(browser) == ["Make the board readable", HOSTILE]  # as text
        assert browser.eval("document.title") == "oms board"  # nothing ran
        assert browser.eval("document.querySelectorAll('main img, main script').length") == 0
        shot = tmp_path / "web.png"
        browser.screenshot(shot)
        assert shot.read_bytes().startswith(b"\x89PNG")


def test_without_the_token_the_page_is_refused(served: tuple[str, tuple[str, ...]]) -> None:
    url, _ = served
    with Browser() as browser:
        browser.open(url.split("?", 1)[0])
        browser.wait_for("document.body && document.body.innerText", timeout=20)
        assert browser.eval("document.body.innerText").startswith("forbidden")


def test_a_hostile_summary_and_diff_stat_render_as_text(chain: Chain) -> None:
    """A result's summary and file names are the agent's: shown in the result's panel as text."""
    from tests.integration.test_review import _completed

    bound = bind(chain)
    _completed(bound, "work\n", HOSTILE)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("!!document.querySelector('#results a')", timeout=20)
        browser.eval("document.querySelector('#results a').click()")
        browser.wait_for("document.getElementById('detail').textContent.includes('summary')", 20)
        detail = browser.eval("document.getElementById('detail').textContent")
        assert f"summary: {HOSTILE}" in detail
        assert browser.eval("document.title") == "oms board"
        assert browser.eval("document.querySelectorAll('main img, main script').length") == 0


def test_a_worker_timeline_and_a_hostile_diff_in_the_browser(chain: Chain) -> None:
    """A worker's row opens its timeline and pane log; a result's link opens its verify output,
    its diff stat and its diff: the agent's file name and lines (markup, a terminal escape, a byte
    that is not UTF-8) shown as text, nothing run."""
    from tests.integration.test_web_views import hostile_result

    name = b"<img src=x onerror=\"document.title='pwned'\">.md"
    body = HOSTILE.encode() + b"\n\x1b[2J</pre>\xff\n"
    bound = hostile_result(chain, {name: body}, summary=HOSTILE)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        _click(browser, "#workers tr.pick")
        browser.wait_for(f"document.getElementById('views').dataset.shown === "
                         f"{json.dumps(bound.dispatch_id)}", timeout=20)  # fmt: skip
        timeline = str(browser.eval("document.getElementById('timeline').textContent"))
        assert f"dispatch {bound.dispatch_id} v1" in timeline, timeline
        assert "evidence dispatch-result of" in timeline, timeline
        assert timeline.index(" v0 -> proposed") < timeline.index(" v2 -> accepted")  # in order
        assert browser.eval("!!document.getElementById('panelog')")
        _click(browser, "#results a")
        browser.wait_for("!!document.getElementById('diff')", timeout=20)
        stat = str(browser.eval("document.getElementById('stat').textContent"))
        assert "1 file changed" in stat, stat
        diff = str(browser.eval("document.getElementById('diff').textContent"))
        assert f"+{HOSTILE}\n+\\x1b[2J</pre>\\xff\n" in diff, diff
        assert "onerror" in diff
        verify_said = browser.eval("document.getElementById('verify').textContent")
        assert verify_said == "not verified yet"
        assert browser.eval("document.title") == "oms board"  # nothing ran
        assert browser.eval("document.querySelectorAll('main img, main script').length") == 0


def _click(browser: Browser, selector: str) -> None:
    browser.wait_for(f"!!document.querySelector({json.dumps(selector)})", timeout=20)
    browser.eval(f"document.querySelector({json.dumps(selector)}).click()")


def _do(browser: Browser, action: str, text: str = "") -> str:
    """Type `text`, press the action's button, and wait for the answer the page shows."""
    browser.eval(f"document.getElementById('act-text').value = {json.dumps(text)}")
    browser.eval("delete document.getElementById('act-said').dataset.outcome")
    _click(browser, f"#act-buttons button[data-action={json.dumps(action)}]")
    browser.wait_for("document.getElementById('act-said').dataset.outcome", timeout=60)
    return str(browser.eval("document.getElementById('act-said').textContent"))


def _ticket_state(browser: Browser) -> str:
    return str(browser.eval("document.querySelector('#queue td:nth-child(2)').textContent"))


def test_verify_and_merge_a_result_by_clicking(chain: Chain, tmp_path: Path) -> None:
    from tests.integration.test_review import _result

    bound, _ = _result(chain)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        assert _ticket_state(browser) == "leased"
        _click(browser, "#results a")
        assert _do(browser, "verify").startswith("verified: ")
        assert _do(browser, "merge").startswith(f"merged {bound.dispatch_id} into ")
        browser.wait_for("document.querySelector('#queue td:nth-child(2)').textContent "
                         "!== 'leased'", timeout=scaled(2))  # fmt: skip
        assert _ticket_state(browser) == "done"
        browser.screenshot(tmp_path / "merged.png")
    assert "WORK.md" in git("show", "--stat", "HEAD", cwd=chain.repo)


def test_request_changes_by_clicking_keeps_a_hostile_comment_as_text(chain: Chain) -> None:
    from tests.integration.test_review import _result

    bound, _ = _result(chain)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        _click(browser, "#results a")
        said = _do(browser, "request-changes", HOSTILE)
        assert said.endswith("is open for attempt 2"), said
        browser.wait_for(f"{json.dumps('open')} === "
                         "document.querySelector('#queue td:nth-child(2)').textContent",
                         timeout=scaled(2))  # fmt: skip
        assert browser.eval("document.title") == "oms board"
        assert browser.eval("document.querySelectorAll('main img, main script').length") == 0
    with chain.workspace() as ws:
        follow = ws.store.records("ticket").read(_ticket_of(chain, bound.dispatch_id))
    carried = json.loads(json.dumps(follow.payload.get("changes_requested")))
    assert [c["text"] for c in carried["comments"]] == [HOSTILE]  # as typed, kept as text


def _ticket_of(chain: Chain, dispatch_id: str) -> str:
    with chain.workspace() as ws:
        return str(ws.store.records("dispatch").read(dispatch_id).payload["ticket_id"])


def test_cancel_a_dispatch_by_clicking(chain: Chain) -> None:
    from tests.chain import accepted

    dispatch_id, _ = accepted(chain)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        cell = "document.querySelector('#workers td:nth-child(4)').textContent"
        assert browser.eval(cell) == "accepted"
        _click(browser, "#workers tr.pick")
        assert _do(browser, "cancel") == f"{dispatch_id} is cancelled"
        browser.wait_for(f"{cell} === 'cancelled'", timeout=scaled(2))
        assert _do(browser, "cancel").startswith("refused: ")  # the reason the command gives


def test_send_a_worker_a_message_by_clicking(deliverable: Chain) -> None:
    from tests.integration.test_worker_send import _heard, _listening, _messages, _until

    dispatch_id = _listening(deliverable)
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        _click(browser, "#workers tr.pick")
        said = _do(browser, "send", "from the <b>board</b>")
        assert said.startswith(f"sent to {dispatch_id}"), said
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"from the <b>board</b>\r"
    [message] = _messages(deliverable)
    assert message["text"] == "from the <b>board</b>"


def _buttons(browser: Browser) -> list[str]:
    shown = "[...document.querySelectorAll('#act-buttons button')].map(b => b.textContent)"
    return list(json.loads(browser.eval(f"JSON.stringify({shown})")))


def test_reopen_a_blocked_ticket_by_clicking(chain: Chain) -> None:
    from oms.services.chain import tickets

    with chain.workspace() as ws:
        ticket = tickets.add(ws, "Blocked for a person", "b").record_id
        tickets.block(ws, ticket, "waiting for the login")
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        assert _ticket_state(browser) == "blocked"
        _click(browser, "#queue tr.pick")  # a blocked ticket's row is one to pick
        assert _buttons(browser) == ["reopen"]
        assert _do(browser, "reopen", "the login is fixed") == f"{ticket} is open for attempt 2"
        browser.wait_for("document.querySelector('#queue td:nth-child(2)').textContent "
                         "=== 'open'", timeout=scaled(2))  # fmt: skip
        assert browser.eval("document.querySelectorAll('#queue tr.pick').length") == 0
        assert _buttons(browser) == []  # open now: nothing to reopen (the server refuses it too)
    with chain.workspace() as ws:
        assert ws.store.records("ticket").read(ticket).actor.startswith("person:")


def test_stop_a_worker_by_clicking(deliverable: Chain) -> None:
    from tests.integration.test_delivery import _running

    dispatch_id = _running(deliverable)
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        health = "document.querySelector('#workers td:nth-child(5)').textContent"
        assert browser.eval(health) == "healthy"
        _click(browser, "#workers tr.pick")
        assert _buttons(browser) == ["send", "cancel", "stop"]  # healthy: no resume
        assert _do(browser, "stop", "wrong approach") == f"{dispatch_id} is stopped"
        browser.wait_for(f"{health} === 'stopped'", timeout=scaled(2))
        assert _buttons(browser) == ["send", "cancel"]  # stopped: nothing to stop


def test_resume_a_parked_worker_by_clicking(deliverable: Chain) -> None:
    from oms.canonical import add_ms, now
    from oms.services.delivery.service import Delivery
    from tests.integration.test_delivery import _running

    dispatch_id = _running(deliverable)
    with deliverable.workspace() as ws:  # due 1 ms from now on the real clock `oms web` runs on
        Delivery.open(ws).park(dispatch_id, "lunch", add_ms(now(), 1))
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    try:
        with _serving(roots) as url, Browser() as browser:
            browser.open(url)
            browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
            health = "document.querySelector('#workers td:nth-child(5)').textContent"
            assert browser.eval(health) == "parked"
            _click(browser, "#workers tr.pick")
            assert _buttons(browser) == ["send", "cancel", "stop", "resume"]
            assert _do(browser, "resume") == f"{dispatch_id} is healthy"
            browser.wait_for(f"{health} === 'healthy'", timeout=scaled(2))
            assert _buttons(browser) == ["send", "cancel", "stop"]  # healthy: nothing to resume
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test is over")
    with deliverable.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
    assert worker.payload["health"] == "stopped"


def test_the_board_with_workers_and_a_result(deliverable: Chain, tmp_path: Path) -> None:
    """The board docs/recordings/web.png shows: a worker running, a result verified and its diff
    open (OMS_RECORD=1 writes the screenshot, and beside it the digest of the page's assets it was
    drawn by: tests/unit/test_web_recording.py)."""
    from oms.services.delivery.service import Delivery
    from oms.services.finishing import verify
    from tests.integration.test_delivery import _running
    from tests.integration.test_review import _result
    from tests.unit.test_web_recording import DRAWN_BY, SHOT, assets_digest

    running = _running(deliverable)
    bound, _ = _result(deliverable)
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    try:
        with deliverable.workspace() as ws:
            assert verify.verify(ws, bound.dispatch_id).passed
        drawn_by = assets_digest()
        with _serving(roots) as url, Browser() as browser:
            browser.open(url)
            browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
            browser.wait_for("document.querySelectorAll('#workers tr.pick').length === 2", 20)
            _click(browser, "#results a")
            views = "document.getElementById('views')"
            browser.wait_for(
                f"{views}.dataset.shown === {json.dumps(bound.dispatch_id)}"
                f" && {views}.textContent.includes('WORK.md')",
                timeout=20,
            )
            shot = tmp_path / "web.png"
            browser.screenshot(shot)
        assert shot.read_bytes().startswith(b"\x89PNG")
        if os.environ.get("OMS_RECORD") == "1":
            shutil.copyfile(shot, SHOT)
            DRAWN_BY.write_text(f"{drawn_by}  oms/services/web/assets/*\n")
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(running, "test is over")


def test_the_page_says_when_the_server_ends(chain: Chain) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    oms = oms_command()
    proc = subprocess.Popen(
        [*oms.argv, "web", *roots], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split("open ", 1)[1].strip()
        with Browser() as browser:
            browser.open(url)
            browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
            proc.terminate()  # SIGTERM: as Ctrl-C
            browser.wait_for("document.body.dataset.live === 'ended'", timeout=20)
            assert "server ended" in browser.eval("document.getElementById('status').textContent")
            proc.communicate(timeout=30)  # it ends by itself: no second signal
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert proc.returncode == 0


def _key(browser: Browser, key: str) -> None:
    """One real key press (CDP's input events: what a keyboard sends, not a script's click)."""
    codes = {"Tab": (9, ""), "Enter": (13, "\r")}
    code, text = codes[key]
    common: dict[str, Any] = {"key": key, "code": key, "windowsVirtualKeyCode": code}
    browser.call("Input.dispatchKeyEvent", type="keyDown", text=text, **common)
    browser.call("Input.dispatchKeyEvent", type="keyUp", **common)


def test_cancel_from_the_keyboard_alone(chain: Chain) -> None:
    """Tab to a worker's row, Enter picks it and puts the keyboard in the message box; Tab to
    the cancel button, Enter presses it: no mouse."""
    from tests.chain import accepted

    dispatch_id, _ = accepted(chain)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        on_row = "document.activeElement.matches('#workers tr.pick')"
        for _ in range(10):
            if browser.eval(on_row):
                break
            _key(browser, "Tab")
        assert browser.eval(on_row), "Tab never reached the worker's row"
        _key(browser, "Enter")
        browser.wait_for("document.activeElement.id === 'act-text'", timeout=10)
        _key(browser, "Tab")
        _key(browser, "Tab")
        assert browser.eval("document.activeElement.dataset.action") == "cancel"
        _key(browser, "Enter")
        browser.wait_for("document.getElementById('act-said').dataset.outcome", timeout=60)
        said = browser.eval("document.getElementById('act-said').textContent")
        assert said == f"{dispatch_id} is cancelled"


def test_approve_a_dispatch_that_waits_for_a_person_by_clicking(chain: Chain) -> None:
    """A tick proposes a ticket whose role needs a person; its queue row is one to pick, offering
    approve and reject of that dispatch; a click approves it as the board's person, and the
    buttons go once the row waits no more (ADR 0041, amendment `approve`)."""
    from oms.services.chain import tickets
    from oms.services.conductor.tick import tick

    def needs_person(doc: dict[str, Any]) -> None:
        doc["human_approval"] = True
        doc["roles"]["oms.command-executor"]["needs_person"] = True

    chain.edit_policy(needs_person, commit=True)
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "Asks a person", "b").record_id
        tick(ws)
        [dispatch] = ws.store.latest("dispatch").records
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with _serving(roots) as url, Browser() as browser:
        browser.open(url)
        browser.wait_for("document.body.dataset.live === 'live'", timeout=20)
        _click(browser, "#queue tr.pick")  # the waiting ticket's row is one to pick
        assert _buttons(browser) == ["approve", "reject"]
        said = _do(browser, "approve", "fine by me")
        assert said == (
            f"{dispatch.record_id} approved by {getpass.getuser()}: the next tick accepts and "
            "delivers it"
        ), said
        browser.wait_for(
            "document.querySelectorAll('#act-buttons button').length === 0", timeout=scaled(2)
        )
    with chain.workspace() as ws:
        approved = ws.store.records("dispatch").read(dispatch.record_id)
        assert ws.store.records("ticket").read(ticket).state == "leased"
    assert approved.payload["approval_evidence"] is not None

"""`oms worker send` (ADR 0036): a person's message typed into a live worker's pane, recorded
first, with a real tmux server and a real command worker that keeps every byte its terminal gets
(`listen`, raw: no line discipline between tmux and the file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oms.adapters.activation import Tui, Witness
from oms.adapters.providers.base import LaunchPlan
from oms.errors import AttemptFencedError, InvalidInputError
from oms.limits import LIMITS
from oms.services.delivery.service import Delivery
from tests.agent_side import snapshot
from tests.chain import Chain, accepted, sandbox_dir, use_worker, wait_for
from tests.helpers import OmsCommand, eventually


def _heard(chain: Chain, dispatch_id: str) -> Path:
    with chain.workspace() as ws:
        session = ws.store.records("dispatch").read(dispatch_id).payload["session_id"]
    return sandbox_dir(chain.state) / "homes" / f"command-{session}" / "heard"


def _listening(chain: Chain) -> str:
    out = use_worker(chain, "listen")
    dispatch_id, event_id = accepted(chain)
    with chain.workspace() as ws:
        Delivery.open(ws).deliver(event_id)
    wait_for(out)
    heard = _heard(chain, dispatch_id)
    # `cat` has opened it: the terminal is raw from here on
    eventually(heard.exists, timeout=20, what="the listening worker starting")
    return dispatch_id


def _until(heard: Path, ending: bytes) -> bytes:
    def ended() -> bytes | None:
        data = heard.read_bytes()
        return data if data.endswith(ending) else None

    return eventually(ended, timeout=20, what=f"{heard} ending with {ending!r}")


def _messages(chain: Chain) -> list[dict[str, object]]:
    found = []
    for path in sorted((chain.state / "events").glob("*.json")):
        doc = json.loads(path.read_bytes())
        if doc["event_type"] == "worker-message":
            found.append(doc["payload"])
    return found


def _roots(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def test_a_message_reaches_the_pane_as_text_and_is_recorded(
    deliverable: Chain, oms: OmsCommand
) -> None:
    dispatch_id = _listening(deliverable)
    done = oms.run(
        "worker", "send", dispatch_id, "first line\nsecond line", "--person", "Zoë Reviewer",
        "--json", *_roots(deliverable),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    view = json.loads(done.stdout)
    assert (view["typed"], view["person"]) == ("typed", "Zoë Reviewer")
    # the newline as a line feed, the message ended by one Enter (a carriage return, raw)
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"first line\nsecond line\r"
    [said] = _messages(deliverable)
    assert said["text"] == "first line\nsecond line"
    assert said["person"] == "Zoë Reviewer"
    assert said["dispatch_id"] == dispatch_id
    log = (deliverable.state / "ledger" / "log").read_text()
    assert f"events/{view['event_id']}.json" in log
    audit = oms.run("audit", "log", *_roots(deliverable))
    assert "event worker-message" in audit.stdout
    assert 'by Zo? Reviewer: "first line second line"' in audit.stdout  # one ASCII line


def test_escape_sequences_and_controls_never_reach_the_pane(
    deliverable: Chain, oms: OmsCommand
) -> None:
    """Failing first: `send-keys -l` types an ESC, a BEL, a ^C, a CR as they come."""
    dispatch_id = _listening(deliverable)
    hostile = (
        "red \x1b[31mtext\x1b[0m \x1b]52;c;ZWNobyBwd25lZA==\x07 title\x1b]0;x\x07"
        "\x1b[200~pasted\x1b[201~ \x03\x04\x1a\x7f\u009b31m\u0085\ttab\r\nnext\rlast\x00"
    )
    with deliverable.workspace() as ws:
        Delivery.open(ws).send(dispatch_id, hostile, person="tester")
    data = _until(_heard(deliverable, dispatch_id), b"\r")
    assert data == (
        b"red [31mtext[0m ]52;c;ZWNobyBwd25lZA== title]0;x[200~pasted[201~ 31mtab\nnext\nlast\r"
    )
    assert not any(b < 0x20 and b not in (0x0A, 0x0D) for b in data)
    with deliverable.workspace() as ws:  # ^C and ^D never reached it: it still listens
        assert Delivery.open(ws).observe(dispatch_id)["pane_live"] is True


def test_a_message_that_begins_with_a_command_mark_stays_a_message(deliverable: Chain) -> None:
    dispatch_id = _listening(deliverable)
    with deliverable.workspace() as ws:
        Delivery.open(ws).send(dispatch_id, "/exit\n!rm -rf ~", person="tester")
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b" /exit\n!rm -rf ~\r"


def test_a_message_is_recorded_before_it_is_typed(deliverable: Chain) -> None:
    dispatch_id = _listening(deliverable)
    seen: list[int] = []

    class Recorded(Tui):
        def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
            seen.append(len(_messages(deliverable)))
            return super().say(plan, dispatch_id, text, witness)

    with deliverable.workspace() as ws:
        panes = Delivery.open(ws).panes
        Delivery.open(ws, activator=Recorded(panes)).send(dispatch_id, "hello", person="tester")
    assert seen == [1]


def test_a_megabyte_is_refused_and_changes_nothing(deliverable: Chain, oms: OmsCommand) -> None:
    dispatch_id = _listening(deliverable)
    big = deliverable.base / "big.txt"
    big.write_bytes(b"a" * (1024 * 1024))
    before = snapshot(deliverable.state / "events")
    for how in (("--file", str(big)), ("-",)):
        done = oms.run(
            "worker", "send", dispatch_id, *how, *_roots(deliverable),
            stdin=big.read_bytes(),
        )  # fmt: skip
        assert done.returncode == 1, done.stdout
        lines = done.stderr.splitlines()
        assert lines[0].startswith("oms: error: "), lines
        assert f"more than the {LIMITS.send_text_bytes}" in lines[0] or "more than" in lines[0]
        assert len(lines) <= 2
    assert snapshot(deliverable.state / "events") == before
    assert _heard(deliverable, dispatch_id).read_bytes() == b""
    with deliverable.workspace() as ws, pytest.raises(InvalidInputError, match="more than"):
        Delivery.open(ws).send(dispatch_id, "a" * (LIMITS.send_text_bytes + 1), person="tester")


def test_a_fenced_attempt_is_refused_and_nothing_is_typed(deliverable: Chain) -> None:
    dispatch_id = _listening(deliverable)
    deliverable.clock.advance(24 * 60)  # the lease lapsed
    with deliverable.workspace() as ws:
        with pytest.raises(AttemptFencedError, match="worker cannot be sent a message: "):
            Delivery.open(ws).send(dispatch_id, "still there?", person="tester")
    assert _messages(deliverable) == []
    assert _heard(deliverable, dispatch_id).read_bytes() == b""


def test_a_finished_attempt_is_refused(deliverable: Chain, oms: OmsCommand) -> None:
    dispatch_id = _listening(deliverable)
    with deliverable.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "over")
    done = oms.run("worker", "send", dispatch_id, "hello?", *_roots(deliverable))
    assert done.returncode == 1, done.stdout
    assert done.stderr.splitlines()[0].startswith("oms: error: worker cannot be sent a message: ")
    assert _messages(deliverable) == []

"""`[notify]` (ADR 0036; in the person's own settings, `$XDG_CONFIG_HOME/oms/notify.toml`, as
amended) through a real `oms conductor tick`: a recording command gets the
notification as JSON on its stdin (valid against schemas/notification.schema.json) with a minimal
environment, once; a command that hangs is killed at its time limit and one that floods its output
is ended at its bound, each a line of the log; the tick's notify phase never waits on them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import jsonschema
import pytest

from oms.canonical import add_ms
from oms.limits import LIMITS
from oms.process import running
from oms.services.chain import tickets
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from oms.services.finishing import finish, verify
from oms.services.notify import notices
from tests.chain import Chain, accepted, use_worker
from tests.helpers import OmsCommand, eventually
from tests.integration.test_finishing import _result

REPO = Path(__file__).resolve().parents[2]
RECORD = '#!/bin/sh\ncat >> "$1"\nenv > "$1.env"\n'
HANG = "#!/bin/sh\nexec sleep 4243\n"


@pytest.fixture(autouse=True)
def _settings_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The person's own settings home (XDG_CONFIG_HOME): a folder of the test's own."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def settings_file() -> Path:
    """Where the person's `[notify]` is read from (ADR 0036 as amended)."""
    return Path(os.environ["XDG_CONFIG_HOME"]) / "oms" / "notify.toml"


def _configure(
    chain: Chain, *commands: list[str], timeout: int = 2, on: list[str] | None = None
) -> None:
    table = (
        "[notify]\n"
        f"commands = {json.dumps([list(c) for c in commands])}\n"
        'pass_env = ["OMS_TEST_WEBHOOK"]\n'
        f"timeout_seconds = {timeout}\n"
    ) + (f"on = {json.dumps(on)}\n" if on else "")
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text(table)


def _script(chain: Chain, name: str, text: str) -> str:
    path = chain.base / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def _tick(chain: Chain, oms: OmsCommand) -> dict[str, object]:
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-api03-never-for-a-notifier",
        "OMS_TEST_WEBHOOK": "https://hooks.example.invalid/abc",
    }
    done = oms.run(
        "conductor", "tick", "--json",
        "--state-root", str(chain.state), "--config-root", str(chain.repo), env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert isinstance(report, dict)
    return report


def _phase(report: dict[str, object], name: str) -> dict[str, object]:
    phases = report["phases"]
    assert isinstance(phases, list)
    [phase] = [p for p in phases if p["phase"] == name]
    assert isinstance(phase, dict)
    return phase


def _log(chain: Chain, lines: int, timeout: float = 30.0) -> list[str]:
    log = chain.state / "notify" / "notify.log"

    def written() -> list[str] | None:
        found = log.read_text().splitlines() if log.exists() else []
        return found if len(found) >= lines else None

    return eventually(written, timeout=timeout, what=f"{lines} lines in {log}")


def _sleepers() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == b"sleep\x004243\x00":
                found.append(int(entry))
    return found


def test_a_blocked_ticket_is_notified_once_with_its_json_on_stdin(
    chain: Chain, oms: OmsCommand
) -> None:
    out = chain.base / "heard.jsonl"
    hang = _script(chain, "hang.sh", HANG)
    record = _script(chain, "record.sh", RECORD)
    _configure(chain, [hang], ["yes", "flood"], [record, str(out)])
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "Fix the «flaky» test", "It fails.")
        tickets.block(ws, ticket.record_id, "waiting for the API key")
    report = _tick(chain, oms)
    phase = _phase(report, "notify")
    assert phase["skipped"] == []
    assert len(phase["done"]) == 1, phase  # type: ignore[arg-type]
    assert isinstance(phase["ms"], int)
    assert phase["ms"] < 1000  # the tick started the commands; it waited on none (2 s to hang)
    lines = _log(chain, 3)
    hung, flooded, recorded = (line.split(": ", 1)[1] for line in lines)
    assert hung == "killed at its time limit (2s)"
    assert flooded.startswith("failed: "), flooded
    assert "more than" in flooded, flooded
    assert recorded == "ok"
    assert _sleepers() == []  # the hung command's process group is gone
    [heard] = out.read_text().splitlines()
    doc = json.loads(heard)
    schema = json.loads((REPO / "schemas" / "notification.schema.json").read_text())
    defs = json.loads((REPO / "schemas" / "defs.schema.json").read_text())
    registry = (
        __import__("referencing")
        .Registry()
        .with_resource(
            "urn:oms:schema:defs", __import__("referencing").Resource.from_contents(defs)
        )
    )
    jsonschema.Draft202012Validator(schema, registry=registry).validate(doc)
    assert (doc["kind"], doc["ticket_id"], doc["reason"]) == (
        "blocked",
        ticket.record_id,
        "waiting for the API key",
    )
    assert "\x1b" not in heard
    env = dict(
        line.split("=", 1) for line in (chain.base / "heard.jsonl.env").read_text().splitlines()
    )
    assert "ANTHROPIC_API_KEY" not in env  # a provider key it was not given
    assert env["OMS_TEST_WEBHOOK"] == "https://hooks.example.invalid/abc"  # pass_env
    assert not any(key.startswith("OMS_") and key != "OMS_TEST_WEBHOOK" for key in env)
    again = _phase(_tick(chain, oms), "notify")
    assert again["done"] == []  # notified once
    verified = oms.run("store", "verify", "--state-root", str(chain.state), cwd=chain.repo)
    assert verified.returncode == 0, verified.stdout + verified.stderr  # notify/ is oms's own
    time.sleep(0.5)  # (nothing to wait for: a second notification would have a log line)
    assert len(_log(chain, 3)) == 3


def test_without_notify_a_tick_notifies_nothing(chain: Chain, oms: OmsCommand) -> None:
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "Fix it", "It fails.")
        tickets.block(ws, ticket.record_id, "later")
    assert _phase(_tick(chain, oms), "notify")["done"] == []
    assert not (chain.state / "notify").exists()


def test_a_parked_worker_is_notified_by_the_conductor(deliverable: Chain, oms: OmsCommand) -> None:
    out = deliverable.base / "heard.jsonl"
    _configure(deliverable, [_script(deliverable, "record.sh", RECORD), str(out)], on=["parked"])
    use_worker(deliverable, "silent")
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        Delivery.open(ws).deliver(event_id)
        Delivery.open(ws).park(dispatch_id, "a person wants it to wait", add_ms(ws.now(), 600_000))
    done = _phase(_tick(deliverable, oms), "notify")["done"]
    assert isinstance(done, list)
    assert len(done) == 1, done  # the parked worker; its leased ticket is worth nothing
    assert _log(deliverable, 1)[0].endswith(": ok")
    [heard] = out.read_text().splitlines()
    doc = json.loads(heard)
    assert (doc["kind"], doc["dispatch_id"], doc["reason"]) == (
        "parked",
        dispatch_id,
        "a person wants it to wait",
    )


def test_a_merge_is_notified_once(chain: Chain) -> None:
    out = chain.base / "heard.jsonl"
    _configure(chain, [_script(chain, "record.sh", RECORD), str(out)])
    bound = _result(chain)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
        merged = finish.merge(ws, bound.dispatch_id)
        finish.merge(ws, bound.dispatch_id)  # merged already: nothing more to tell
    assert _log(chain, 1)[0].endswith(": ok")
    [heard] = out.read_text().splitlines()
    doc = json.loads(heard)
    assert (doc["kind"], doc["dispatch_id"], doc["reason"]) == (
        "merged",
        bound.dispatch_id,
        f"merged as {merged.merged}",
    )


def test_a_burst_is_claimed_a_few_a_tick_by_one_child_each(chain: Chain) -> None:
    out = chain.base / "heard.jsonl"
    _configure(chain, [_script(chain, "record.sh", RECORD), str(out)])
    many = LIMITS.notify_per_tick + 5
    with chain.workspace() as ws:
        for i in range(many):
            ticket = tickets.add(ws, f"Ticket {i}", "It fails.")
            tickets.block(ws, ticket.record_id, f"question {i}")
        first = _phase_of(conductor.tick(ws), "notify")
        _log(chain, LIMITS.notify_per_tick)  # (a look claims nothing while its child runs)
        eventually(lambda: not any(running(pid) for pid in notices._STARTED), what="its end")
        second = _phase_of(conductor.tick(ws), "notify")
        third = _phase_of(conductor.tick(ws), "notify")
    assert (len(first), len(second), len(third)) == (LIMITS.notify_per_tick, 5, 0)
    _log(chain, many)
    kinds = [json.loads(line)["kind"] for line in out.read_text().splitlines()]
    assert kinds == ["blocked"] * many


def _phase_of(report: conductor.Tick, name: str) -> list[str]:
    [phase] = [p for p in report.phases if p.name == name]
    assert phase.skipped == []
    return phase.done

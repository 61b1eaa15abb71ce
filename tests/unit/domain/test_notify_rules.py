"""`domain/notify.py`: which ticket and worker versions are worth a notice, and what a notice says
(valid against schemas/notification.schema.json); `[notify]` in the person's own settings."""

from __future__ import annotations

from typing import cast

import pytest

from oms.domain import notify as rules
from oms.domain import tickets
from oms.domain.config import parse_config
from oms.errors import ConfigError
from oms.schemas import validate
from oms.schemas.payloads import TicketPayload, WorkerPayload
from tests.helpers import T0, payload

TITLE = "Fix the «flaky» test"


def _ticket(reason: str | None) -> TicketPayload:
    new = tickets.new(
        title=TITLE,
        source="local",
        repository=None,
        content_sha256="0" * 64,
        created_at=T0,
        repository_root="/r",
        added_by="a" * 64,
    )
    return {**new.payload, "reason": reason}


@pytest.mark.parametrize(
    ("state", "reason", "kind"),
    [
        ("done", "completed", "done"),
        ("done", "merged", None),  # `oms result merge` notifies its merge itself
        ("blocked", "the agent asked a question", "blocked"),
        ("blocked", "needs a person: fix the config", "needs-a-person"),
        ("open", "needs a person: the worktree is dirty", "needs-a-person"),
        ("open", "retry after a failure", None),
        ("leased", None, None),
    ],
)
def test_ticket_notices(state: str, reason: str | None, kind: str | None) -> None:
    notice = rules.of_ticket("tkt-1", 3, state, _ticket(reason), T0)
    assert (notice.kind if notice is not None else None) == kind
    if notice is not None:
        validate("notification", notice.document(), where="notice")
        same = rules.of_ticket("tkt-1", 3, state, _ticket(reason), T0)
        assert same is not None
        assert same.notice_id == notice.notice_id
        again = rules.of_ticket("tkt-1", 4, state, _ticket(reason), T0)
        assert again is not None
        assert again.notice_id != notice.notice_id  # a version, a notice


def test_worker_notices() -> None:
    parked = cast(
        "WorkerPayload",
        payload(
            "worker",
            session_id="s" * 32,
            role_id="worker",
            health="parked",
            health_reason="quota: rests until x",
        ),
    )
    notice = rules.of_worker("dsp-1", 5, parked, TITLE, T0)
    assert notice is not None
    assert (notice.kind, notice.reason, notice.dispatch_id) == (
        "parked",
        parked["health_reason"],
        "dsp-1",
    )
    validate("notification", notice.document(), where="notice")
    assert rules.of_worker("dsp-1", 5, {**parked, "health": "healthy"}, TITLE, T0) is None
    ended: WorkerPayload = {
        **parked,
        "health": "stopped",
        "end_reason": "limit: pids",
        "end_detail": "1024 tasks",
    }
    limit = rules.of_worker("dsp-1", 6, ended, TITLE, T0)
    assert limit is not None
    assert (limit.kind, limit.reason) == ("limit", "1024 tasks")
    validate("notification", limit.document(), where="notice")
    assert rules.of_worker("dsp-1", 6, {**ended, "end_reason": "exit"}, TITLE, T0) is None


def test_merged_notice() -> None:
    notice = rules.merged("tkt-1", TITLE, "dsp-1", "a" * 40, T0)
    validate("notification", notice.document(), where="notice")
    assert notice.summary == "oms: tkt-1 'Fix the ?flaky? test' is merged"


def test_freshness() -> None:
    assert rules.fresh(T0, T0, 60)
    assert not rules.fresh("2020-01-01T00:00:00.000Z", T0, 3600)


BASE = """format = 1
[roles."r.w"]
model = "m"
transport = "command"
sandbox = "ticket-worktree-write"
argv = ["true"]
[roles."r.a"]
model = "m"
transport = "command"
sandbox = "read-only"
argv = ["true"]
[advisor]
role = "r.a"
[worker]
role = "r.w"
[pool]
max_workers = 1
[lease]
duration_minutes = 30
"""


def test_the_notify_settings_and_a_repositorys_table_that_is_ignored() -> None:
    assert parse_config(BASE.encode()).stale_notify is False
    stale = parse_config((BASE + '[notify]\ncommands = [["notify-send", "oms"]]\n').encode())
    assert stale.stale_notify is True  # ignored, never run: it moved (ADR 0036 as amended)
    found = rules.parse_settings(
        b'[notify]\ncommands = [["notify-send", "oms"]]\non = ["parked"]\n', "s"
    )
    assert found == rules.NotifyConfig((("notify-send", "oms"),), frozenset({"parked"}))
    for bad in (
        "",
        "[notify]\ncommands = []\n",
        '[notify]\ncommands = [["x"]]\non = ["everything"]\n',
        '[notify]\ncommands = ["notify-send oms"]\n',
        '[notify]\ncommands = [["x"]]\npass_env = ["A=B"]\n',
        '[notify]\ncommands = [["x"]]\ntimeout_seconds = 600\n',
        '[notify]\ncommands = [["x"]]\nshell = true\n',
        '[notify]\ncommands = [["x"]]\n[roles]\n',
        "[notify\n",
    ):
        with pytest.raises(ConfigError):
            rules.parse_settings(bad.encode(), "s")


def test_the_settings_path() -> None:
    assert rules.settings_path({"XDG_CONFIG_HOME": "/x/c", "HOME": "/h"}) == "/x/c/oms/notify.toml"
    assert rules.settings_path({"HOME": "/h"}) == "/h/.config/oms/notify.toml"

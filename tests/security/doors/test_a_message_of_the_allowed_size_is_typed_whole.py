"""A message as long as `LIMITS.send_text_bytes` allows is typed whole (SECURITY.md "Talk to an
agent"). tmux refuses a command whose arguments pass its message size ("command too long": on
tmux 3.3a a `send-keys -l` text of 16,341 bytes or more), so before the fix a message of 16,341 to
16,384 bytes — within the bound `oms worker send` checks — was recorded as sent and then never
typed, the person told only that tmux failed."""

from __future__ import annotations

import json

from oms.limits import LIMITS
from tests.chain import Chain
from tests.helpers import OmsCommand
from tests.integration.test_worker_send import _heard, _listening, _messages, _roots, _until


def test_a_message_of_the_largest_allowed_size_reaches_the_pane_whole(
    deliverable: Chain, oms: OmsCommand
) -> None:
    dispatch_id = _listening(deliverable)
    # the bound in bytes as read; 'é' is two bytes in UTF-8, so the text ends with a short line
    text = "a" * (LIMITS.send_text_bytes // 2) + "é" * (LIMITS.send_text_bytes // 4)
    assert len(text.encode("utf-8")) == LIMITS.send_text_bytes
    done = oms.run(
        "worker", "send", dispatch_id, "-", "--json", *_roots(deliverable),
        stdin=text.encode("utf-8"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["chars"] == len(text)
    heard = _until(_heard(deliverable, dispatch_id), b"\r")
    assert heard == text.encode("utf-8") + b"\r"
    [said] = _messages(deliverable)
    assert said["text"] == text

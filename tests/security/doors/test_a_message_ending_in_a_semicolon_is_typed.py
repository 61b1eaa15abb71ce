"""A message that ends in `;` is typed as recorded (SECURITY.md "Talk to an agent"). tmux reads an
argument that ends in `;` as the end of a command (`\\;` as a `;`), even after `-l --`: before the
fix "stop here;" was recorded and "stop here" typed, "a\\;" typed as "a;", and ";" typed nothing."""

from __future__ import annotations

import pytest

from oms.limits import LIMITS
from oms.services.delivery.service import Delivery
from tests.chain import Chain
from tests.integration.test_worker_send import _heard, _listening, _messages, _until


@pytest.mark.parametrize(
    "text",
    [
        "stop here;",
        "a\\;",
        ";",
        ";;\\;",
        # a piece of `send_text` ends in `;` too
        "x" * (LIMITS.tmux_text_bytes - 1) + ";" + "y",
    ],
    ids=["semicolon", "backslash-semicolon", "only-a-semicolon", "three", "at-a-piece-end"],
)
def test_a_message_ending_in_a_semicolon_is_typed_as_recorded(
    deliverable: Chain, text: str
) -> None:
    dispatch_id = _listening(deliverable)
    with deliverable.workspace() as ws:
        Delivery.open(ws).send(dispatch_id, text, person="tester")
    assert _until(_heard(deliverable, dispatch_id), b"\r") == text.encode() + b"\r"
    [said] = _messages(deliverable)
    assert said["text"] == text

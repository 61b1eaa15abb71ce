"""A message that begins with `-` is typed as text, never read as tmux's options (SECURITY.md
"Talk to an agent"): `tmux send-keys -l TEXT` parses a TEXT of `-R` as "reset the terminal" and
`-t=x: hi` as another target; before the fix tmux refused both (exit 1) after the message was
recorded, and nothing was typed."""

from __future__ import annotations

from oms.services.delivery.service import Delivery
from tests.chain import Chain
from tests.integration.test_worker_send import _heard, _listening, _until


def test_a_message_that_looks_like_an_option_is_typed(deliverable: Chain) -> None:
    dispatch_id = _listening(deliverable)
    with deliverable.workspace() as ws:
        Delivery.open(ws).send(dispatch_id, "-t=other: -R hello", person="tester")
    assert _until(_heard(deliverable, dispatch_id), b"\r") == b"-t=other: -R hello\r"

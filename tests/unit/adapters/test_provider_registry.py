"""The provider registry (docs/architecture.md "How to add a provider"): each provider is one
module of `oms/adapters/providers/` with its `PROVIDER`, and `REGISTRY` is the one table of them;
what delivery knows of a provider is read from it, and the domain's lists agree with it."""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import oms.adapters.providers as providers_pkg
from oms.adapters.providers import REGISTRY
from oms.adapters.providers.base import Provider
from oms.domain.config import WORKER_TRANSPORTS
from oms.domain.dispatches import ENGINES
from oms.domain.routing import family_of
from oms.provider_names import FINAL_STOP, HOOK_CONTRACT
from oms.services.delivery import plans
from oms.store.verify import HOME_KINDS


def test_every_provider_module_is_registered() -> None:
    modules = [
        importlib.import_module(f"oms.adapters.providers.{info.name}")
        for info in pkgutil.iter_modules(providers_pkg.__path__)
        if info.name != "base"
    ]
    found = {m.PROVIDER.transport: m.PROVIDER for m in modules}
    assert all(isinstance(p, Provider) for p in found.values())
    assert found == REGISTRY


def test_the_domain_lists_agree_with_the_registry() -> None:
    assert set(WORKER_TRANSPORTS) == set(REGISTRY)
    assert {t: p.name for t, p in REGISTRY.items()} == ENGINES
    assert {p.name: p.hook_contract for p in REGISTRY.values()} == HOOK_CONTRACT
    for transport, provider in REGISTRY.items():
        assert (family_of(transport) is None) == (provider.token_variable is None)


def test_delivery_reads_its_provider_facts_from_the_registry() -> None:
    for transport, provider in REGISTRY.items():
        assert plans.SESSION_MODE[transport] == provider.session_mode
        assert plans.PROVIDER[transport] == provider.name
        assert plans.COMPATIBLE.get(transport) == provider.compatible
        assert plans.TOKEN_VARIABLE.get(transport) == provider.token_variable
        assert plans.RAW_KEY.get(transport) == provider.raw_key
        assert plans.SURFACE[provider.native_action] == provider.surface
        assert plans.TAKES_MESSAGES[transport] == provider.takes_messages
        assert plans.PARKABLE[transport] == provider.parkable
        assert (transport in FINAL_STOP) == provider.stop_is_final  # the gate's question


def _schema(name: str) -> dict[str, Any]:
    path = Path(__file__).resolve().parents[3] / "schemas" / name
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def test_the_schemas_enums_name_every_provider() -> None:
    # a provider missing from one of these enums is refused at propose, delivery or a hook, far
    # from the registry line that added it (docs/newcomer-trials.md, trial 1)
    defs = _schema("defs.schema.json")["$defs"]
    assert set(REGISTRY) <= set(defs["transport"]["enum"])
    assert set(ENGINES.values()) == set(defs["engine"]["enum"])
    names = {p.name for p in REGISTRY.values()}
    assert set(_schema("launch-spec.schema.json")["properties"]["provider"]["enum"]) == names
    event = json.dumps(_schema("event.schema.json"))
    assert all(f'"{name}"' in event for name in names)
    journal = _schema("journal-entry.schema.json")
    surfaces = journal["properties"]["entry"]["properties"]["contact_surface"]["enum"]
    assert {p.surface for p in REGISTRY.values()} <= set(surfaces)
    modes = _schema("session.schema.json")["properties"]["payload"]["properties"]["mode"]["enum"]
    assert set(modes) == {p.session_mode for p in REGISTRY.values()}  # (codex_exec: trial 6)


def test_the_store_knows_every_provider_home() -> None:
    assert set(HOME_KINDS) == {p.name for p in REGISTRY.values()}


REPO = Path(__file__).resolve().parents[3]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_validators", REPO / "build" / "gen_validators.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_names_below_adapters_and_the_schemas_enums_are_what_the_registry_gives() -> None:
    # oms/provider_names.py and the provider enums of four schemas are generated from REGISTRY
    generator = _generator()
    assert generator.stale_providers(generator.provider_files()) == []


def test_a_provider_added_to_the_registry_alone_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # the check above can fail: a registry line without `python build/gen_validators.py` (a
    # newcomer's `fake` provider, docs/newcomer-trials.md trial 3)
    command = REGISTRY["command"]
    fake = command._replace(
        transport="fake_pane", name="fake", surface="fake-pane", session_mode="fake"
    )
    monkeypatch.setitem(REGISTRY, "fake_pane", fake)
    generator = _generator()
    given = generator.provider_files()
    assert generator.stale_providers(given) == [
        "oms/provider_names.py",
        "schemas/defs.schema.json",
        "schemas/event.schema.json",
        "schemas/journal-entry.schema.json",
        "schemas/launch-spec.schema.json",
        "schemas/session.schema.json",
    ]
    assert '"fake_pane"' in given[REPO / "schemas" / "defs.schema.json"]
    assert '"fake-pane"' in given[REPO / "schemas" / "journal-entry.schema.json"]
    assert '"fake"' in given[REPO / "oms" / "provider_names.py"]

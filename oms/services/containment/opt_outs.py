"""What of containment a role or a running worker gives up (ADR 0026), said as warnings by `oms
status` and `oms doctor`. Pure given its inputs.

By default every worker's sandbox has its own network namespace with loopback only, and a model CLI
holds only its dispatch's proxy token. A role may ask for the host's network (`network = "host"`) or
the user's raw credential (`credential = "raw"`); either is part of the approved intent
(`role_network`, `role_credential`), so a dispatch runs with what its review saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from oms.domain.config import Config
from oms.domain.dispatches import OPT_OUTS
from oms.store import Record
from oms.store.payloads import worker_payload

MEANING = {
    "role_network": "shares the host's network (every TCP service on its loopback, the internet)",
    "role_credential": "holds the user's real model credential (an agent can exfiltrate it)",
}


def role_warnings(config: Config) -> list[str]:
    """One line per configured role that opts out of containment."""
    return [
        f"role {role_id}: {', '.join(role.opt_outs)}: its workers are not contained (ADR 0026)"
        for role_id, role in sorted(config.roles.items())
        if role.opt_outs
    ]


def probe_opt_outs(config: Config) -> list[tuple[str, str]]:
    """(provider, one line) for each enabled provider whose quota probe shares the host's network,
    holding its key: the repository's committed argv, which nobody approves, could send it
    anywhere."""
    return [
        (
            provider_id,
            f"provider {provider_id}: its quota probe shares the host's network and holds its key "
            '(quota_probe_network = "host", ADR 0026)',
        )
        for provider_id, provider in sorted(config.routing.providers.items())
        if provider.enabled and provider.quota_probe and provider.quota_probe_network == "host"
    ]


def probe_warnings(config: Config) -> list[str]:
    """The lines of `probe_opt_outs`."""
    return [line for _provider, line in probe_opt_outs(config)]


def worker_warnings(workers: Iterable[Record], dispatches: Mapping[str, Record]) -> list[str]:
    """One line per worker that has not ended and runs with an opt-out its dispatch was approved
    with."""
    out = []
    for worker in workers:
        dispatch = dispatches.get(worker.record_id)
        if worker_payload(worker).get("health") == "stopped" or dispatch is None:
            continue
        payload = dispatch.payload
        given = [MEANING[f] for f, value in OPT_OUTS.items() if payload.get(f, value) != value]
        if given:
            out.append(f"worker {worker.record_id}: {'; '.join(given)}")
    return out

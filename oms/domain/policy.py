"""The role policy: which capabilities and tools each role holds. Pure.

The policy is JSON (`.oms/role-policy.json` in the config root, schema `role-policy`). Its digest is
`sha256("oms-role-policy-v1\\0" + canonical(policy))`, computed from the bytes committed at HEAD
(the caller reads those). Fail closed: a role the policy does not name has no grants; a worker
dispatch must carry exactly `repository-read` and `ticket-worktree-write`.

A role whose grant sets `needs_person` is approved by a person only (`oms dispatch approve`): an
advisor's approval, however signed, does not let its dispatch be accepted, and the conductor
proposes it and waits for the person (ADR 0043, amendment `hand`). It needs `human_approval`: a
policy that asks a person for a role and allows no person's approval is refused as it is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from oms.canonical import JsonObject, access, digest, loads_object
from oms.errors import AuthorityChangedError, ConfigError, InvalidInputError
from oms.schemas import validate

POLICY_PATH = ".oms/role-policy.json"
WORKER_CAPABILITIES = ("repository-read", "ticket-worktree-write")


@dataclass(frozen=True, slots=True)
class Grant:
    """What one role may hold."""

    capabilities: tuple[str, ...]
    tools: tuple[str, ...]
    may_review: bool
    needs_person: bool = False


@dataclass(frozen=True, slots=True)
class Policy:
    """A validated policy and its digest."""

    roles: dict[str, Grant]
    human_approval: bool
    digest: str
    raw: JsonObject


def parse_policy(data: bytes, where: str = POLICY_PATH) -> Policy:
    """Parse and validate policy bytes."""
    try:
        doc = loads_object(data)
    except InvalidInputError as exc:
        raise ConfigError(f"{where}: {exc.message}") from exc
    try:
        validate("role-policy", doc, where=where)
    except InvalidInputError as exc:
        raise ConfigError(exc.message) from exc
    roles = {
        role: Grant(
            tuple(str(c) for c in access.array(grant, "capabilities")),
            tuple(str(t) for t in access.array(grant, "tools")),
            grant["may_review"] is True,
            grant.get("needs_person") is True,
        )
        for role, grant in access.obj(doc, "roles").items()
        if isinstance(grant, dict)
    }
    asking = sorted(role for role, grant in roles.items() if grant.needs_person)
    if asking and doc["human_approval"] is not True:
        raise ConfigError(
            f"{where}: role {asking[0]} needs a person's approval (needs_person), but "
            "human_approval is false: no dispatch of it could ever be approved",
            hint='set "human_approval": true, or drop "needs_person"',
        )
    return Policy(roles, doc["human_approval"] is True, digest("role-policy", doc), doc)


def worker_capabilities(policy: Policy, role_id: str) -> list[str]:
    """The capabilities a worker dispatch for `role_id` carries: exactly the worker set, or
    refused."""
    grant = policy.roles.get(role_id)
    if grant is None:
        raise AuthorityChangedError(
            f"role {role_id} is not in the role policy (nothing is granted)"
        )
    if sorted(grant.capabilities) != sorted(WORKER_CAPABILITIES):
        raise AuthorityChangedError(
            f"role {role_id} grants {sorted(grant.capabilities)} (expected exactly "
            f"{list(WORKER_CAPABILITIES)})"
        )
    return list(WORKER_CAPABILITIES)


def role_tools(policy: Policy, role_id: str) -> tuple[str, ...]:
    """The tools the policy grants `role_id` (none when it does not name the role)."""
    grant = policy.roles.get(role_id)
    return grant.tools if grant is not None else ()


def needs_person(policy: Policy, role_id: str) -> bool:
    """Is `role_id` approved by a person only (its grant's `needs_person`)?"""
    grant = policy.roles.get(role_id)
    return grant is not None and grant.needs_person


def check_reviewer(policy: Policy, role_id: str) -> None:
    """The advisor role must be allowed to review."""
    grant = policy.roles.get(role_id)
    if grant is None or not grant.may_review:
        raise AuthorityChangedError(
            f"role {role_id} may not review dispatches under the role policy"
        )

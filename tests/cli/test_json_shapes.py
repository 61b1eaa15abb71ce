"""Every `--json` has a JSON Schema, and one object has one shape everywhere (issue 26, ADR 0007).

A command's `--json` is schemas/cli/<group>-<command>.schema.json (`oms status`:
status.schema.json); the objects several commands print (a ticket, a dispatch, a worker, a
session, a live authorisation, a worker seen from outside) are schemas/cli/objects/, each made by
one encoder (oms/services/workspace/shapes.py); any command's failure is
schemas/cli/error.schema.json. Here: the Typer app is walked and a command with `--json` and no
schema fails; every such command is run with `--json` on a real state root (`oms demo`'s, then the
chain driven by hand) and its output validated against its schema.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from oms.cli.app import app
from tests.helpers import OmsCommand, git

REPO = Path(__file__).resolve().parents[2]
CLI_SCHEMAS = REPO / "schemas" / "cli"
KINDS = ("ticket", "dispatch", "worker", "session", "authorization")
IDENTITY = {"id", "state", "version", "observed_at"}
SECRETS = {"lease_token"}


def json_paths() -> set[tuple[str, ...]]:
    """Every command with a `--json` option, as its words: ("ticket", "list")."""
    found: set[tuple[str, ...]] = set()

    def walk(command: Any, path: list[str]) -> None:  # (Typer's own vendored click types)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])
        if not hasattr(command, "commands") and any("--json" in p.opts for p in command.params):
            found.add(tuple(path))

    walk(typer.main.get_command(app), [])
    return found


def json_commands() -> set[str]:
    """Every command with a `--json` option, named as its schema file is: `ticket-list`."""
    return {"-".join(path) for path in json_paths()}


def registry() -> Registry[Any]:
    """Every schema of the repository, by its `$id` (the command schemas refer to the records')."""
    docs = [json.loads(p.read_text()) for p in (REPO / "schemas").rglob("*.schema.json")]
    return Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs)


def problems(schema_name: str, document: object) -> list[str]:
    """Why `document` is not `schemas/cli/<schema_name>.schema.json` (none: it is)."""
    schema = json.loads((CLI_SCHEMAS / f"{schema_name}.schema.json").read_text())
    validator = Draft202012Validator(schema, registry=registry())
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '.'}: {e.message[:300]}"
        for e in validator.iter_errors(document)
    ]


def test_every_json_command_has_a_schema_and_every_schema_a_command() -> None:
    commands = json_commands()
    schemas = {p.name.removesuffix(".schema.json") for p in CLI_SCHEMAS.glob("*.schema.json")}
    assert len(commands) > 50  # the walk finds them: a broken walk would pass anything
    assert sorted(commands - schemas) == []  # a --json with no schema
    assert sorted(schemas - commands - {"error"}) == []  # a schema of no command


@pytest.mark.parametrize("kind", KINDS)
def test_an_object_shape_is_its_record_less_its_secrets(kind: str) -> None:
    """A record kind's shape lists every payload field the record schema allows but its secrets,
    and requires what the record requires: a field added to a record is added to its shape."""
    record = json.loads((REPO / "schemas" / f"{kind}.schema.json").read_text())["properties"]
    payload = record["payload"]
    shape = json.loads((CLI_SCHEMAS / "objects" / f"{kind}.schema.json").read_text())
    extra = {"agent", "agent_stopped_at"} if kind == "worker" else set()
    asked = {"waits_for_person"} if kind == "dispatch" else set()  # where a view asks (status)
    assert set(shape["properties"]) == (
        (set(payload["properties"]) - SECRETS) | IDENTITY | extra | asked
    )
    assert set(shape["required"]) == (set(payload["required"]) - SECRETS) | IDENTITY | extra
    assert shape["additionalProperties"] is False


class Session:
    """Runs oms with `--json` on one state root and checks each output against its schema."""

    def __init__(self, oms: OmsCommand, env: dict[str, str], cwd: Path) -> None:
        self.oms, self.env, self.cwd = oms, env, cwd
        self.shown: dict[str, str] = {}  # command -> "ok" or "error" (the shape validated)

    def run(
        self, *args: str, fails: str | None = None, shape: str = "error", **env: str
    ) -> dict[str, Any]:
        """`oms ARGS --json`: each line of its stdout valid against the command's schema (`fails`:
        the error code it must fail with instead, in one document valid against `shape`)."""
        matches: list[tuple[str, ...]] = [p for p in json_paths() if args[: len(p)] == p]
        longest = max(matches, key=len)
        name = "-".join(longest)
        for _ in range(3):  # a record another process moved meanwhile: retried, as its hint says
            done = self.oms.run(*args, "--json", env={**self.env, **env}, cwd=self.cwd, timeout=300)
            if '"error": "version-conflict"' not in done.stdout:
                break
        lines = done.stdout.splitlines()
        assert lines, f"oms {' '.join(args)}: no output ({done.stderr[-500:]})"
        docs = [json.loads(line) for line in lines]
        if fails is not None:
            assert done.returncode == 1, done.stdout + done.stderr
            assert len(docs) == 1, done.stdout  # one document, never the output and an error
            assert docs[0]["error"] == fails, docs[0]
            assert problems(shape, docs[0]) == [], docs[0]
            self.shown.setdefault(name, "error")
            return dict(docs[0])
        assert done.returncode == 0, done.stdout + done.stderr
        for doc in docs:
            assert problems(name, doc) == [], (name, doc)
        self.shown[name] = "ok"
        return dict(docs[-1])

    def human(self, *args: str) -> None:
        """`oms ARGS` as a person reads it: no Python repr (a dict, a list, True/False/None)."""
        done = self.oms.run(*args, env=self.env, cwd=self.cwd, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        found = re.findall(r"\{'|\['|\b(?:True|False|None)\b", done.stdout)
        assert found == [], (args, done.stdout)


@pytest.fixture
def demo(oms: OmsCommand, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A state root made by `oms demo` (its output checked too); its tmux server ended after."""
    done = oms.run("demo", "--dir", str(tmp_path / "demo"), "--json", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert problems("demo", data) == [], data
    try:
        yield data
    finally:
        subprocess.run(
            ["tmux", "-S", str(data["tmux_socket"]), "kill-server"],
            capture_output=True,
            check=False,
        )


@pytest.mark.slow
def test_every_json_output_is_its_schema(
    oms: OmsCommand, demo: dict[str, Any], tmp_path: Path
) -> None:
    repo = Path(demo["repo"])
    me = {"GIT_AUTHOR_NAME": "A Person", "GIT_AUTHOR_EMAIL": "person@example.com"}
    me |= {"GIT_COMMITTER_NAME": "A Person", "GIT_COMMITTER_EMAIL": "person@example.com"}
    env = {"OMS_STATE_ROOT": demo["state_root"], "OMS_CONFIG_ROOT": str(repo), **me}
    if not os.environ.get("OMS_TEST_BINARY"):
        env["OMS_EXECUTABLE"] = str(Path(os.environ.get("VIRTUAL_ENV", "")) / "bin" / "oms")
    s = Session(oms, env, repo)
    s.shown["demo"] = "ok"  # (the fixture's)
    first, person = str(demo["dispatch_id"]), ("--person", "a-person", "--yes")

    # what the demo left, read
    for args in (("version",), ("doctor",), ("status",), ("ticket", "list"), ("dispatch", "list"),
                 ("ticket", "show", "tkt-1"), ("dispatch", "show", first), ("policy", "show"),
                 ("worker", "observe", first), ("worker", "log", first), ("pool", "show"),
                 ("provider", "show"),
                 ("proxy", "status"), ("route", "explain"), ("live", "status"),
                 ("audit", "log", "--limit", "3"), ("audit", "verify"), ("store", "verify"),
                 ("worktree", "show", "tkt-1")):  # fmt: skip
        s.run(*args)
        s.human(*args)

    # checks to verify a result with, a worker that stays silent in its pane, a provider (committed)
    config = repo / ".oms" / "config.toml"
    text = config.read_text().replace('worker.sh"]', 'worker.sh", "silent"]')
    spare = '\n[providers.spare]\nfamily = "openai"\nenabled = false\n'
    config.write_text(text + '\n[verify]\ncommands = [["true"]]\n' + spare)
    git("-c", "user.name=A Person", "-c", "user.email=p@example.com", "commit", "-qam", "verify",
        cwd=repo)  # fmt: skip

    # a second ticket driven through the chain by hand, delivered, parked, stopped, discarded
    s.run("ticket", "add", "--title", "second", "--body", "b")
    token = s.run("ticket", "lease", "tkt-2", "--worker", "w-1")["lease_token"]
    s.run("ticket", "renew", "tkt-2", OMS_LEASE_TOKEN=token)
    s.run("worktree", "create", "tkt-2")
    second = s.run("dispatch", "propose", "tkt-2", OMS_LEASE_TOKEN=token)["dispatch"]["id"]
    s.run("dispatch", "review", second)
    s.run("dispatch", "approve", second, *person, fails="authority-changed")  # no human approval
    event = s.run("dispatch", "accept", second)["delivery_event_id"]
    s.run("worker", "deliver", "--event-id", event)
    s.run("worker", "send", second, "hello")
    s.run("worker", "park", second, "--until", "2099-01-01T00:00:00.000Z")
    s.run("worker", "resume", second, fails="invalid-input")  # not due
    s.run("worker", "stop", second)
    s.run("result", "discard", second)
    s.run("ticket", "block", "tkt-2", "--reason", "stuck", OMS_LEASE_TOKEN=token)
    s.run("ticket", "reopen", "tkt-2", *person)
    s.run("ticket", "retry", "tkt-2", *person)
    proposed = []
    for ticket in ("tkt-3", "tkt-4"):  # one proposal rejected, one cancelled
        s.run("ticket", "add", "--title", ticket, "--no-body")
        token = s.run("ticket", "lease", ticket, "--worker", f"w-{ticket}")["lease_token"]
        s.run("worktree", "create", ticket)
        done = s.run("dispatch", "propose", ticket, OMS_LEASE_TOKEN=token)
        proposed.append(done["dispatch"]["id"])
    third, fourth = proposed
    s.run("dispatch", "reject", third, "--reason", "not now")
    s.run("dispatch", "cancel", fourth, "--reason", "not now")
    s.run("ticket", "expire")
    s.run("worktree", "gc")

    # the demo's result: its checks failed (one document), then verified and merged
    config.write_text(config.read_text().replace('[["true"]]', '[["false"]]'))
    git("-c", "user.name=A Person", "-c", "user.email=p@example.com", "commit", "-qam", "fails",
        cwd=repo)  # fmt: skip
    s.run("result", "verify", first, fails="verification-failed", shape="result-verify")
    config.write_text(config.read_text().replace('[["false"]]', '[["true"]]'))
    git("-c", "user.name=A Person", "-c", "user.email=p@example.com", "commit", "-qam", "passes",
        cwd=repo)  # fmt: skip
    s.run("result", "verify", first)
    s.run("result", "show", first)
    s.run("result", "diff", first)
    s.human("result", "show", first)
    s.run("result", "publish", first, *person, fails="invalid-input")  # the demo has no remote
    s.run("result", "sync", first, fails="invalid-input")
    s.run("result", "merge", first)
    s.run("result", "request-changes", first, "--comment", "x", *person, fails="conflict")

    # a GitHub issue, leased and done; live authorisation given and withdrawn
    issue = tmp_path / "issue.json"
    issue.write_text(json.dumps({"number": 7, "title": "t", "body": "b",
                                 "url": "https://github.com/o/r/issues/7"}))  # fmt: skip
    imported = s.run("ticket", "import", str(issue))["ticket"]["id"]
    issues = tmp_path / "issues.json"  # a list (`gh issue list`): the one before, and another
    other = {"number": 8, "title": "u", "body": "", "url": "https://github.com/o/r/issues/8"}
    issues.write_text(json.dumps([json.loads(issue.read_text()), other]))
    s.run("ticket", "import", str(issues))
    token = s.run("ticket", "lease", imported, "--worker", "w-2")["lease_token"]
    s.run("ticket", "done", imported, OMS_LEASE_TOKEN=token)
    s.run("live", "authorize", "--repository", "o/r", *person)
    s.run("live", "revoke", "--repository", "o/r")

    # the fleet, its providers and proxy, the store and its ledger
    s.run("pool", "scale", "--to", "1")
    s.run("provider", "rest", "spare", "--minutes", "5")
    s.run("provider", "clear", "spare")
    s.run("provider", "show")
    s.human("provider", "show")
    s.run("proxy", "start")
    s.run("proxy", "stop")
    s.run("conductor", "tick")
    s.run("conductor", "run", "--ticks", "1")
    s.run("store", "sweep")
    s.run("host", "key")
    bound = ("--bound-to", "0123456789abcdef")
    s.run("host", "release-name", "a-host", *bound, fails="config")  # names are bound on etcd only
    s.run("store", "pin-cluster", fails="config")  # the demo's [store] is the state root's
    s.run("store", "compact")
    s.run("audit", "checkpoint")
    s.run("audit", "adopt", fails="conflict")  # it has its ledger
    s.run("audit", "accept-rollback", *person, fails="conflict")  # nothing was rolled back
    s.run("status")

    # and a new repository's init
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git("init", "-q", ".", cwd=fresh)
    s.run("init", "--config-root", str(fresh), "--state-root", str(tmp_path / "fresh-state"))

    # and the fleet demo's other shape
    fleet = tmp_path / "fleet"
    ran = oms.run("demo", "--tickets", "1", "--dir", str(fleet), "--json", timeout=300)
    subprocess.run(["tmux", "-S", str(fleet / "state" / "tmux.sock"), "kill-server"],
                   capture_output=True, check=False)  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert problems("demo", json.loads(ran.stdout)) == [], ran.stdout

    assert sorted(json_commands() - set(s.shown)) == []  # every --json command was run
    only_failed = sorted(c for c, how in s.shown.items() if how == "error")
    assert only_failed == [  # whose success a demo state root cannot show
        "audit-accept-rollback",
        "audit-adopt",
        "dispatch-approve",
        "host-release-name",  # (its success: tests/security/etcd/test_a_host_name_released.py)
        "result-publish",  # (its success: tests/integration/test_publish.py, a GitHub stand-in)
        "result-request-changes",  # (its success: tests/integration/test_review.py)
        "result-sync",  # (its success: tests/integration/test_publish.py)
        "store-pin-cluster",  # (its success: test_a_cluster_the_person_did_not_pin.py)
        "worker-resume",
    ]

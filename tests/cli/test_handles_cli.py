"""Handles a person can type (issue 26 item 4), through the real `oms` (source, and frozen in CI):
a ticket's id where a dispatch or a worker is meant, unique prefixes of ids, ids completed by the
shell, `--until 2h` / `09:00`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from oms.canonical import add_ms, now, parse_ts
from tests.chain import Chain, use_worker, wait_for
from tests.cli.test_help_everywhere import _bin_dir
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _run(oms: OmsCommand, chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    return oms.run(*args, "--state-root", str(chain.state), "--config-root", str(chain.repo))


def _error(result: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) <= 2  # the error and its hint
    return result.stderr.splitlines()[0]


def test_a_ticket_or_a_prefix_names_the_dispatch(oms: OmsCommand, chain: Chain) -> None:
    ticket, _, dispatch = chain.proposed()
    for handle in (dispatch, dispatch[:9], ticket, "tkt"):
        shown = _run(oms, chain, "dispatch", "show", handle, "--json")
        assert shown.returncode == 0, (handle, shown.stderr)
        assert json.loads(shown.stdout)["dispatch"]["id"] == dispatch
    for command in ("ticket show", "worktree show"):
        shown = _run(oms, chain, *command.split(), "tk", "--json")
        assert shown.returncode == 0, (command, shown.stderr)


def test_none_or_several_is_one_line_naming_the_candidates(oms: OmsCommand, chain: Chain) -> None:
    first, _, dispatch = chain.proposed("one")
    second, _ = chain.leased_ticket("two")  # leased, no dispatch yet
    several = _run(oms, chain, "dispatch", "show", "tkt-")
    assert _error(several) == f"oms: error: 'tkt-' names 2: {first}, {second}"
    assert "hint: type more of the id" in several.stderr
    assert "no live attempt; it has no dispatch" in _error(
        _run(oms, chain, "dispatch", "show", second)
    )
    assert "no dispatch or ticket tkt-99" in _error(_run(oms, chain, "worker", "stop", "tkt-99"))
    no_result = _error(_run(oms, chain, "result", "merge", first))
    assert f"ticket {first} has no result; its dispatches: {dispatch} (proposed)" in no_result
    assert "ticket 'tkt-' names 2: tkt-1, tkt-2" in _error(
        _run(oms, chain, "ticket", "show", "tkt-")
    )
    assert "is not a valid id" in _error(_run(oms, chain, "dispatch", "show", "TKT 1"))


def test_a_worker_is_parked_observed_and_stopped_by_its_ticket(
    oms: OmsCommand, deliverable: Chain
) -> None:
    out = use_worker(deliverable)
    ticket, _, dispatch = deliverable.proposed()
    accepted = _run(oms, deliverable, "dispatch", "accept", ticket, "--json")  # review first
    assert accepted.returncode == 1
    assert _run(oms, deliverable, "dispatch", "review", ticket).returncode == 0
    event = json.loads(_run(oms, deliverable, "dispatch", "accept", ticket, "--json").stdout)
    assert event["dispatch"]["id"] == dispatch
    delivered = _run(
        oms, deliverable, "worker", "deliver", "--event-id", event["delivery_event_id"]
    )
    assert delivered.returncode == 0, delivered.stderr
    wait_for(out)
    before = now()
    parking = _run(oms, deliverable, "worker", "park", ticket, "--until", "2h", "--json")
    assert parking.returncode == 0, parking.stderr
    assert json.loads(parking.stdout)["session_state"] == "parked"
    with deliverable.workspace() as ws:
        session = ws.store.records("dispatch").read(dispatch).payload["session_id"]
        until = ws.store.records("session").read(str(session)).payload["parked_until"]
    assert isinstance(until, str)
    assert (
        parse_ts(add_ms(before, 7_200_000)) <= parse_ts(until) <= parse_ts(add_ms(now(), 7_200_000))
    )
    observed = json.loads(_run(oms, deliverable, "worker", "observe", ticket[:5], "--json").stdout)
    assert observed["session_state"] == "parked"
    stopped = _run(oms, deliverable, "worker", "stop", ticket, "--json")
    assert json.loads(stopped.stdout)["worker_health"] == "stopped"


@pytest.mark.parametrize("until", ["tomorrow", "2x", "25:00", "-2h"])
def test_an_until_it_cannot_read_names_the_forms(oms: OmsCommand, chain: Chain, until: str) -> None:
    _, _, dispatch = chain.proposed()
    line = _error(_run(oms, chain, "worker", "park", dispatch, "--until", until))
    assert f"--until {until!r} is not a time: give a duration (90m, 2h" in line
    assert "09:00" in line
    assert "--since 'soon' is not a time" in _error(
        _run(oms, chain, "audit", "log", "--since", "soon")
    )


def test_audit_log_takes_a_duration_ago(oms: OmsCommand, chain: Chain) -> None:
    chain.leased_ticket()
    recent = json.loads(_run(oms, chain, "audit", "log", "--since", "1d", "--json").stdout)
    assert recent["entries"]
    none = json.loads(_run(oms, chain, "audit", "log", "--until", "1d", "--json").stdout)
    assert none["entries"] == []


def _complete(oms: OmsCommand, chain: Chain, words: str) -> list[str]:
    """What bash offers after `words` (the last one being completed), through the script `oms
    completion bash` prints."""
    script = oms.run("completion", "bash")
    assert script.returncode == 0, script.stderr
    probe = f"source /dev/stdin; COMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}; "
    probe += '_oms_completion oms; printf "%s\\n" "${COMPREPLY[@]}"'
    env = {
        **os.environ,
        "PATH": f"{_bin_dir()}:{os.environ['PATH']}",
        "OMS_STATE_ROOT": str(chain.state),
        "OMS_CONFIG_ROOT": str(chain.repo),
    }
    done = subprocess.run(
        ["bash", "-c", probe],
        input=script.stdout,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_ticket_and_dispatch_ids(oms: OmsCommand, chain: Chain) -> None:
    ticket, _, dispatch = chain.proposed()
    chain.leased_ticket("two")
    state = sorted(p.relative_to(chain.state) for p in Path(chain.state).rglob("*"))
    assert _complete(oms, chain, "oms worker observe t") == ["tkt-1", "tkt-2"]
    assert _complete(oms, chain, "oms dispatch show d") == [dispatch]
    assert _complete(oms, chain, "oms dispatch show ''") == ["tkt-1", "tkt-2", dispatch]
    assert _complete(oms, chain, "oms result merge tkt-2") == ["tkt-2"]
    assert _complete(oms, chain, "oms ticket show tkt-1") == [ticket]
    assert _complete(oms, chain, "oms dispatch propose x") == []
    assert _complete(oms, chain, "oms audit log --ticket t") == ["tkt-1", "tkt-2"]
    assert _complete(oms, chain, "oms audit log --worker ''") == [dispatch]
    assert sorted(p.relative_to(chain.state) for p in Path(chain.state).rglob("*")) == state


def test_a_ticket_names_its_result_to_verify_and_merge(oms: OmsCommand, chain: Chain) -> None:
    from tests.integration.test_finishing import _result

    bound = _result(chain)
    with chain.workspace() as ws:
        ticket = str(ws.store.records("dispatch").read(bound.dispatch_id).payload["ticket_id"])
    verified = _run(oms, chain, "result", "verify", ticket, "--json")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["dispatch_id"] == bound.dispatch_id
    merged = _run(oms, chain, "result", "merge", ticket[:4], "--json")
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["dispatch_id"] == bound.dispatch_id
    again = _run(oms, chain, "result", "merge", ticket)  # its dispatch resolved: still its result
    assert again.stdout.startswith(f"already merged: {bound.dispatch_id}'s result"), again.stderr
    # its attempt ended (the conductor resolves a result it acted on): a look at it still takes
    # the ticket's id (the guide: "to see why an attempt went as it did, read its worker's
    # log"); before, "ticket tkt-1 has no live attempt"
    from oms.services.chain import dispatches

    with chain.workspace() as ws:
        dispatches.resolve(ws, bound.dispatch_id, "done")
    for look in ("worker observe", "dispatch show"):
        seen = _run(oms, chain, *look.split(), ticket, "--json")
        assert seen.returncode == 0, (look, seen.stderr)
        assert bound.dispatch_id in seen.stdout, (look, seen.stdout)
    logged = _run(oms, chain, "worker", "log", ticket)
    assert logged.returncode == 0, logged.stderr
    stop = _error(_run(oms, chain, "worker", "stop", ticket))  # acting needs a live attempt
    assert f"ticket {ticket} has no live attempt; its dispatches: {bound.dispatch_id}" in stop


def test_a_typo_says_which_ids_are_near(oms: OmsCommand, chain: Chain) -> None:
    ticket, _, dispatch = chain.proposed("Fix the flaky test")
    assert ticket == "tkt-1"
    said = _error(_run(oms, chain, "ticket", "show", "tkt-11"))
    assert said == "oms: error: no ticket tkt-11; did you mean tkt-1 ('Fix the flaky test')?"
    said = _error(_run(oms, chain, "ticket", "show", "tkt-l"))  # a letter l for the digit 1
    assert said == "oms: error: no ticket tkt-l; did you mean tkt-1 ('Fix the flaky test')?"
    said = _error(_run(oms, chain, "worker", "stop", "flaky"))
    assert said.endswith("did you mean tkt-1 ('Fix the flaky test')?"), said
    typo = dispatch[:6] + ("0" if dispatch[6] != "0" else "1")
    said = _error(_run(oms, chain, "dispatch", "show", typo))
    assert said.endswith(f"did you mean {dispatch} ('Fix the flaky test')?"), said

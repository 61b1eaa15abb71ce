"""The suite waits in one place: `tests.helpers.eventually` (a deadline scaled by OMS_TEST_SLOWDOWN
for a loaded machine, a failure that says what it last saw). A walk of every module under tests/
finds each loop (`while`, `for`) whose body sleeps (`time.sleep(...)`, `sleep(...)`) outside
tests/helpers.py; it fails with each one not in ALLOWED, where every entry says why its loop is not
a wait for a condition (a program the tests start that must take its time, a sleep that is the
behaviour under test on a real clock the product gives no way to inject)."""

from __future__ import annotations

import ast

from tests.helpers import REPO

TESTS = REPO / "tests"
HOME = "tests/helpers.py"  # `eventually` itself

# "path::function" (the innermost function holding the loop, "<module>" at the top) -> why
ALLOWED: dict[str, str] = {
    "tests/host_standin.py::main": (
        "a stand-in conductor of the host rig: it retries its host's lock every 0.3 s, as a real "
        "conductor ticks (a program the tests start, not a wait of theirs)"
    ),
    "tests/hosts_chaos.py::run": (
        "the chaos schedule: a random pause between two faults is the draw under test (seeded)"
    ),
    "tests/chaos_agent.py::main": (
        "the chaos fleet's agent program: its loops are what an agent does (ask, pause, ask again)"
    ),
    "tests/security/containment/test_escapes_from_a_worker_sandbox.py::_run": (
        "a sampler thread that scans /proc for a key until the test stops it: no condition awaited"
    ),
    "tests/security/exactly_once/test_kill_anywhere.py::"
    "test_a_supervisor_killed_outright_anywhere_takes_its_sandbox_and_nothing_starts_again": (
        "the random delay is the kill's moment in the supervisor's life (the property under test)"
    ),
    "tests/security/proxy/test_chunks_budgets_and_rests.py::"
    "test_concurrent_requests_are_not_a_way_past_the_token_budget": (
        "a 20 s window for 8 requests to pile up: a proxy that keeps the budget never lets all 8"
        " through, and shows no count of those it holds"
    ),
    "tests/security/etcd/test_a_hostile_member_is_bounded.py::_dribble": (
        "the hostile etcd member: dribbles its answer a byte at a time (the attack's pace)"
    ),
    "tests/security/proxy/test_doors_slots_and_held_bodies.py::_dribbler": (
        "the attacker: retries a full backlog (EAGAIN), then dribbles a byte every few seconds"
    ),
    "tests/security/proxy/test_doors_slots_and_held_bodies.py::_churner": (
        "the attacker: reopens connections as fast as the door lets it"
    ),
    "tests/security/proxy/test_doors_slots_and_held_bodies.py::"
    "test_one_sandbox_reopening_connections_cannot_stop_other_workers_traffic": (
        "the victim's requests are spread over the attack's real seconds (past its 10 s deadline)"
    ),
    "tests/security/proxy/test_bodies_and_budgets.py::do_POST": (
        "the stand-in upstream streams its answer at a model's pace (what the proxy must bear)"
    ),
    "tests/security/proxy/test_crash_accounting.py::do_POST": (
        "the stand-in upstream streams its answer at a model's pace (the kills land mid-stream)"
    ),
    "tests/security/proxy/test_crash_accounting.py::client": (
        "an agent that asks again at once, whatever happened: the load the kills land in"
    ),
    "tests/security/proxy/test_crash_accounting.py::"
    "test_fifty_kills_never_let_a_dispatch_spend_past_its_budget_by_more_than_one_answer": (
        "the random delay before each kill is where the kill lands (the property under test)"
    ),
    "tests/security/proxy/test_one_per_root.py::"
    "test_the_proxy_log_stays_under_its_cap_when_another_holds_a_door": (
        "2 s of the door loop's passes on the real clock: the log must say it once, not each pass"
    ),
}


def _sleeps(node: ast.AST) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            if isinstance(func, ast.Attribute) and func.attr == "sleep":
                return True
            if isinstance(func, ast.Name) and func.id == "sleep":
                return True
    return False


def _loops(tree: ast.AST, where: str = "<module>") -> list[tuple[str, int]]:
    """(function, line) of every sleeping loop, not counting the same loop twice when nested."""
    found: list[tuple[str, int]] = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += _loops(child, child.name)
        elif isinstance(child, ast.ClassDef):
            found += _loops(child, where)
        elif isinstance(child, (ast.While, ast.For, ast.AsyncFor)) and _sleeps(child):
            found.append((where, child.lineno))
        else:
            found += _loops(child, where)
    return found


def polling_loops() -> dict[str, list[int]]:
    """Every sleeping loop under tests/ but tests/helpers.py: "path::function" -> lines."""
    out: dict[str, list[int]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel == HOME:
            continue
        for function, line in _loops(ast.parse(path.read_text(), rel)):
            out.setdefault(f"{rel}::{function}", []).append(line)
    return out


def test_no_hand_written_polling_loop_outside_eventually() -> None:
    found = polling_loops()
    new = [f"{key} (line {', '.join(map(str, lines))})" for key, lines in found.items()]
    new = [entry for entry, key in zip(new, found, strict=True) if key not in ALLOWED]
    assert not new, (
        "a loop that sleeps waits by hand: use tests.helpers.eventually (or, when the sleep is the"
        " behaviour itself, add it to ALLOWED with the reason):\n" + "\n".join(new)
    )


def test_every_allowed_loop_still_exists() -> None:
    stale = sorted(set(ALLOWED) - set(polling_loops()))
    assert stale == [], "ALLOWED names loops that are gone: remove them"


def test_the_walk_finds_a_polling_loop() -> None:
    source = (
        "import time\n"
        "def wait(p):\n"
        "    while not p():\n"
        "        time.sleep(0.1)\n"
        "def fine(p):\n"
        "    for _ in range(3):\n"
        "        p()\n"
        "class C:\n"
        "    def m(self):\n"
        "        for _ in range(9):\n"
        "            if self.x():\n"
        "                break\n"
        "            sleep(1)\n"
    )
    assert _loops(ast.parse(source)) == [("wait", 3), ("m", 10)]

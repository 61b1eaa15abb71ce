"""Outside `oms/domain/` a state is compared with its enum, never with a bare string: a record's
state with its kind's generated StrEnum (`DispatchState.ACCEPTED`; docs/adr/0044-typed-payloads.md),
any other state with the enum that names its values (`ProxyState`, `ReviewState`, ...). A misspelt
member is a mypy error; a misspelt string (`== "acceptd"`) is always False and passes unseen.

The walk finds a comparison (`==`, `!=`, `in`, `not in`, `is`) or a `match` whose one side is a
state — `x.state`, `x.<name>_state`, `x["state"]`, `x.get("state")`, a name `state` or
`<name>_state` — and whose other side is a string literal or a tuple, list or set holding one.
`domain/` is left out: its machines are pure functions of the strings they are given, and the
enums of record kinds are defined (or re-exported) there. A payload's enum value (`health`) is
compared with its string by design (ADR 0044: it is typed `Literal[...]`), and is not a state."""

from __future__ import annotations

import ast
import functools

from tests.helpers import REPO

PACKAGE = REPO / "oms"
OUTSIDE = ("oms/domain/", "oms/schemas/")
# each (module, line text) left comparing a state with a string, with its reason: none today
LEFT: dict[tuple[str, str], str] = {}


def _is_state(node: ast.expr) -> bool:
    def named(name: str) -> bool:
        return name == "state" or name.endswith("_state")

    if isinstance(node, ast.Attribute):
        return named(node.attr)
    if isinstance(node, ast.Name):
        return named(node.id)
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and key.value == "state"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        first = node.args[0]
        return (
            node.func.attr == "get" and isinstance(first, ast.Constant) and first.value == "state"
        )
    return False


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_literal(e) for e in node.elts)
    return False


def _is_literal_pattern(pattern: ast.pattern) -> bool:
    if isinstance(pattern, ast.MatchValue):
        return _is_literal(pattern.value)
    if isinstance(pattern, ast.MatchOr):
        return any(_is_literal_pattern(p) for p in pattern.patterns)
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return _is_literal_pattern(pattern.pattern)
    return False


def literal_states(rel: str, tree: ast.Module) -> list[tuple[str, int, str]]:
    """(module, line, source) of each state compared with a bare string literal in `tree`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(map(_is_state, sides)) and any(map(_is_literal, sides)):
                out.append((rel, node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Match)
            and _is_state(node.subject)
            and any(_is_literal_pattern(case.pattern) for case in node.cases)
        ):
            out.append((rel, node.lineno, f"match {ast.unparse(node.subject)}"))
    return out


@functools.cache
def _found() -> list[tuple[str, int, str]]:
    return [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (rel := path.relative_to(REPO).as_posix()).startswith(OUTSIDE)
        for hit in literal_states(rel, ast.parse(path.read_text()))
    ]


def test_the_walk_sees_each_way_of_comparing() -> None:
    source = """
def f(rec, run, doc, demo, state, r):
    a = rec.state == "open"
    b = run.state != "running"
    c = doc["state"] in ("open", "leased")
    d = doc.get("state") not in ["done"]
    e = demo.dispatch_state == "result-received"
    g = "idle" == state
    match r.state:
        case "passed" | "failed":
            pass
    ok = (rec.state == TicketState.OPEN, rec.state in (TicketState.OPEN,), rec.health == "x")
    return a, b, c, d, e, g, ok
"""
    found = sorted(line for _, line, _ in literal_states("m.py", ast.parse(source)))
    assert found == [3, 4, 5, 6, 7, 8, 9], found


def test_states_are_compared_with_their_enum() -> None:
    found = _found()
    unexplained = sorted(h for h in found if (h[0], h[2]) not in LEFT)
    assert not unexplained, (
        "compare a state with its enum (a record's: `oms/schemas/payloads.py`, "
        f"`TicketState.DONE`; another: the enum that names its values): {unexplained}"
    )
    for entry, reason in LEFT.items():
        assert reason.strip(), f"{entry}: say why it stays"
        assert any((h[0], h[2]) == entry for h in found), f"{entry}: gone; remove it from LEFT"

"""A repository moved or renamed is told where its state root is (ADR 0032: a state root serves the
path it was made for; "a repository moved elsewhere loses ... its state root in oms, and both say
so"). Before, every command in the moved repository said only "state root .../<new>-<tag> does not
exist", hint "run `oms init`" — which made a new, empty state root beside the old one, its tickets
(and any worker still running) out of sight. Now the refusal names the state root left behind and
the path it serves, and `oms init` is the fix only for starting afresh."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.cli.test_repositories import Person, _repo, home  # noqa: F401 - `home` is a fixture
from tests.helpers import OmsCommand


def test_a_moved_repository_is_told_where_its_state_root_is(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,  # noqa: F811 - the fixture
) -> None:
    person = Person(oms, home)
    repo = _repo(tmp_path / "work" / "api")
    person.ok(repo, "init", "--commit")
    person.ok(repo, "ticket", "add", "--title", "Fix it", "--body", "x")
    state_home = home / ".local" / "state" / "oms"
    (left,) = [p for p in state_home.iterdir() if p.name.startswith("api-")]
    moved = tmp_path / "work" / "api-renamed"
    shutil.move(repo, moved)
    before = sorted(p.name for p in state_home.iterdir())
    for args in (("status",), ("ticket", "list"), ("conductor", "tick")):
        line = person.refused(moved, *args, says="does not exist")
        done = person.run(moved, *args)
        hint = done.stderr.splitlines()[1]
        assert str(left) in hint, done.stderr
        assert str(repo) in hint, done.stderr
        assert "move it back" in hint, done.stderr
        assert line.startswith("oms: error: ")
    assert sorted(p.name for p in state_home.iterdir()) == before  # nothing made
    init = person.ok(moved, "init").stdout  # afresh, on purpose: it says what it leaves behind
    assert f"left behind  {left} serves {repo}, which is gone" in init

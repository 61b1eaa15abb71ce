"""A person's name a rejection or an approval cannot keep (ADR 0041, amendment `oneactor`): the
signed verdict holds the name as typed, 1 to 128 characters, none a control character. A name
past that (10 KB, an escape sequence, a line break) was refused only when the evidence was
checked against its schema, under the dispatch's end lock, in the schema's words ("evidence/
(new): $.payload.person: … does not match '^[^\\u0000-…'"). It is now refused before any lock
or write, in one line saying what a name may be; the dispatch still waits for a person."""

from __future__ import annotations

import json

import pytest

from tests.fleet import Fleet
from tests.helpers import OmsCommand
from tests.integration.test_waits_for_a_person import _verdicts, _waiting, _where, fleet

__all__ = ["fleet"]  # (the fixture, used by name)


@pytest.mark.cli
@pytest.mark.parametrize("who", ["ann\x1b[31m", "x" * 10240, "a\nb"])
@pytest.mark.parametrize("verb", ["reject", "approve"])
def test_a_name_no_verdict_can_keep_is_refused_in_one_line(
    fleet: Fleet, oms: OmsCommand, who: str, verb: str
) -> None:
    _, dispatch_id = _waiting(fleet)
    said = ("--reason", "no") if verb == "reject" else ("--yes",)
    done = oms.run("dispatch", verb, dispatch_id, *said, "--person", who, "--json", *_where(fleet))
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr
    error = json.loads(done.stdout)
    assert error["message"].startswith("a person's name is 1 to 128 characters"), error
    assert len(error["message"]) < 300, error
    assert _verdicts(fleet, dispatch_id) == []
    with fleet.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state == "proposed"

"""A hostile ticket title in the merge commit's message (issue 27 item 7, SECURITY.md "Review
before merge"): `oms result merge` writes `Merge DSP (TICKET: title)` and the evidence it merges
by. A title is someone else's text (a GitHub issue's): on real git, `git log --format=%B` of the
merge is exactly that subject — one printable ASCII line, bounded —, a blank line and the one
`Verified:` trailer, whatever the title held: a `Signed-off-by:` or other trailer line, line
separators, a bidi override, mojibake (through `oms ticket add` as a person types it); and the
titles `ticket add` refuses (escapes, newlines, bytes that are not UTF-8 — named by their byte and
its offset —, a megabyte) are refused in one line, and, should one reach the store another way,
still make the same one line."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from oms.services.finishing import finish, verify
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import OmsCommand, git
from tests.integration.test_finishing import CHECKS

ACCEPTED = [  # titles `oms ticket add` takes (one line, no C0 control): each as a person gives it
    b"Signed-off-by: Eve <eve@evil.example>",
    b"Fix it) \n",  # (the trailing newline is the shell's; the title is stripped)
    "Fix it \u2028Signed-off-by: Eve\u0085Co-authored-by: Eve \u202e)txt.exe".encode(),
    "caf\u00c3\u00a9 \u00c3\u00bf\ufffd mojibake".encode(),  # UTF-8 that looks as if it were not
]
REFUSED = [
    "Fix it\n\nSigned-off-by: Eve <eve@evil.example>",
    "\x1b]52;c;ZXZpbA==\x07\x1b[2JFix it",
    "Fix it\rSigned-off-by: Eve",
    "x" * 1_000_000,
]


def _completed(chain: Chain, title: str) -> str:
    """The dispatch id of a completed result of a ticket titled `title`."""
    chain.edit_config(lambda s: s + CHECKS, commit=True)
    bound = bind(chain, title)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        commit = bound.commit_change("work\n")
        done, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
        assert is_error is False, done
    finally:
        tools.close()
    return bound.dispatch_id


def _shape(chain: Chain, dispatch_id: str) -> str:
    """The merge's message, checked to be its subject, a blank line and the one trailer."""
    body = git("log", "-1", "--format=%B", "main", cwd=chain.repo)
    subject, blank, trailer, *rest = body.split("\n")
    assert (blank, trailer.split(" ")[0], "".join(rest)) == ("", "Verified:", ""), body
    assert subject.startswith(f"Merge {dispatch_id} (tkt-")
    assert all(" " <= c <= "~" for c in subject), subject
    assert len(subject) <= 160
    trailers = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert [t.split(":")[0] for t in trailers] == ["Verified"], trailers
    return subject


@pytest.mark.parametrize("raw", ACCEPTED)
def test_a_hostile_title_a_person_can_give_makes_one_subject_line(
    chain: Chain, oms: OmsCommand, raw: bytes
) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    title = os.fsdecode(raw)  # as the command line gives it to `oms ticket add`
    added = subprocess.run(
        [*oms.argv, "ticket", "add", "--title", raw, "--no-body", *roots],
        capture_output=True,
        check=False,
    )
    assert added.returncode == 0, added.stderr  # a title a person can give
    dispatch_id = _completed(chain, title)  # (another ticket of that title, with a result)
    assert oms.run("result", "verify", dispatch_id, *roots).returncode == 0
    merged = oms.run("result", "merge", dispatch_id, "--json", *roots)
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["merged"] == git("rev-parse", "main", cwd=chain.repo).strip()
    _shape(chain, dispatch_id)


@pytest.mark.parametrize("title", REFUSED, ids=["trailer-lines", "escapes", "cr", "megabyte"])
def test_a_title_ticket_add_refuses_still_makes_one_subject_line(
    chain: Chain, oms: OmsCommand, title: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    if len(title) < 100_000:  # (a megabyte is no argument: the kernel refuses it first)
        added = oms.run("ticket", "add", "--title", title, "--no-body", "--json", *roots)
        assert added.returncode == 1, added.stdout  # refused, invalid input (ADR 0007)
        assert "ticket title must be 1-256 characters" in json.loads(added.stdout)["message"]
    dispatch_id = _completed(chain, "Fix the flaky test")
    monkeypatch.setattr(finish, "ticket_title", lambda *_: title)  # in the store another way
    with chain.workspace() as ws:
        assert verify.verify(ws, dispatch_id).passed
        finish.merge(ws, dispatch_id)
    _shape(chain, dispatch_id)


def test_a_title_that_is_not_utf8_is_refused_naming_its_byte(
    chain: Chain, oms: OmsCommand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`oms ticket add --title` with bytes that are not UTF-8 is refused in one line naming the
    first bad byte and its offset in the argument (it named the byte before it: the offset was
    counted in characters), and the title, got into the store another way, makes one line."""
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    raw = b"caf\xc3\xa9 \xff\xfe not UTF-8 \xc3"
    added = subprocess.run(
        [*oms.argv, "ticket", "add", "--title", raw, "--no-body", *roots],
        capture_output=True,
        check=False,
    )
    assert added.returncode == 1, added.stderr
    assert b"--title is not UTF-8 (byte 0xff at offset 6)" in added.stderr
    assert added.stderr.count(b"\n") == 2  # the line and its hint
    dispatch_id = _completed(chain, "Fix the flaky test")
    title = os.fsdecode(raw)
    monkeypatch.setattr(finish, "ticket_title", lambda *_: title)
    with chain.workspace() as ws:
        assert verify.verify(ws, dispatch_id).passed
        finish.merge(ws, dispatch_id)
    _shape(chain, dispatch_id)

"""`oms result show|diff|request-changes` as a person runs them (issue 27 item 1): the text and
`--json` (checked against schemas/cli/result-show.schema.json), the diff and `--stat`, paged only
on a terminal, escaped there too. The attacks are in tests/security/finishing/test_review.py."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import jsonschema

from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.helpers import OmsCommand, git

SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[2] / "schemas" / "cli" / "result-show.schema.json"
    ).read_text()
)
HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202e\x9b31m"
ESC = 0x1B


def _result(chain: Chain, summary: str = "Wrote it.", files: dict[str, str] | None = None) -> Bound:
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        for name, text in (files or {"WORK.md": "work\n"}).items():
            (bound.worktree / name).write_text(text)
        done, is_error = tools.call(
            "record_dispatch_result", {"status": "completed", "summary": summary}
        )
        assert is_error is False, done
    finally:
        tools.close()
    return bound


def _run(oms: OmsCommand, chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    return oms.run("result", *args, *roots)


def test_show_text_and_json(chain: Chain, oms: OmsCommand) -> None:
    bound = _result(chain, files={"WORK.md": "work\n", "b.txt": "1\n2\n"})
    shown = _run(oms, chain, "show", bound.dispatch_id)
    assert shown.returncode == 0, shown.stderr
    assert "files     2 changed, +3 -0" in shown.stdout
    assert "verify    not verified" in shown.stdout
    assert "merges    into main" in shown.stdout
    doc = json.loads(_run(oms, chain, "show", bound.dispatch_id, "--json").stdout)
    jsonschema.validate(doc, SCHEMA)
    assert doc["status"] == "completed"
    assert sorted((f["path"], f["added"]) for f in doc["files"]) == [("WORK.md", 1), ("b.txt", 2)]
    assert doc["target"]["head"] == git("rev-parse", "main", cwd=chain.repo).strip()


def test_diff_stat_and_json(chain: Chain, oms: OmsCommand) -> None:
    bound = _result(chain)
    out = _run(oms, chain, "diff", bound.dispatch_id)
    assert out.returncode == 0, out.stderr
    assert "diff --git a/WORK.md b/WORK.md" in out.stdout
    assert "+work" in out.stdout
    stat = _run(oms, chain, "diff", bound.dispatch_id, "--stat")
    assert "WORK.md | 1 +" in stat.stdout
    assert "1 file changed" in stat.stdout
    doc = json.loads(_run(oms, chain, "diff", bound.dispatch_id, "--json").stdout)
    assert doc["files"] == [{"path": "WORK.md", "added": 1, "removed": 0}]


def test_request_changes_from_a_comments_file(
    chain: Chain, oms: OmsCommand, tmp_path: Path
) -> None:
    bound = _result(chain)
    notes = tmp_path / "notes.txt"
    notes.write_text("# review\nlib.rs:1: say why\n")
    neither = _run(oms, chain, "request-changes", bound.dispatch_id, "--person", "Ada", "--yes")
    assert neither.returncode == 2
    assert "--comment TEXT or --comments FILE" in neither.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("lib.rs:1: fine\nthis is not a comment\n")
    refused = _run(
        oms, chain, "request-changes", bound.dispatch_id, "--comments", str(bad), "--yes",
        "--person", "Ada",
    )  # fmt: skip
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1
    assert "line 2" in refused.stderr
    asked = _run(
        oms, chain, "request-changes", bound.dispatch_id, "--comments", str(notes), "--yes",
        "--person", "Ada", "--json",
    )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    doc = json.loads(asked.stdout)
    assert doc["attempt"] == 2
    assert doc["changes_requested"]["comments"] == [
        {"path": "lib.rs", "line": 1, "text": "say why"}
    ]
    again = _run(
        oms, chain, "request-changes", bound.dispatch_id, "--comment", "more", "--yes",
        "--person", "Ada",
    )  # fmt: skip
    assert again.returncode == 1
    assert "latest attempt is 2" in again.stderr
    assert again.stderr.count("\n") <= 2  # one line, and its hint
    _the_ticket_shows_the_request(chain, oms, bound, doc["changes_requested"])


def _the_ticket_shows_the_request(
    chain: Chain, oms: OmsCommand, bound: Bound, asked: dict[str, object]
) -> None:
    """`oms ticket show` says what was asked of the ticket's next attempt (ADR 0039), in text and
    in `--json` (valid against schemas/cli/ticket-show.schema.json)."""
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    with chain.workspace() as ws:
        ticket = str(ws.store.records("dispatch").read(bound.dispatch_id).payload["ticket_id"])
    shown = oms.run("ticket", "show", ticket, *roots)
    assert shown.returncode == 0, shown.stderr
    commit = str(asked["result_commit"])[:12]
    assert f"changes           requested by Ada of {bound.dispatch_id} (commit {commit})" in (
        shown.stdout
    ), shown.stdout
    assert "  comment         lib.rs:1: say why" in shown.stdout
    doc = json.loads(oms.run("ticket", "show", ticket, "--json", *roots).stdout)
    assert doc["ticket"]["changes_requested"] == asked
    schemas = Path(__file__).resolve().parents[2] / "schemas"
    defs = json.loads((schemas / "defs.schema.json").read_text())["$defs"]
    schema = {"$ref": "#/$defs/changes_requested", "$defs": defs}
    jsonschema.validate(doc["ticket"]["changes_requested"], schema)


RECORDER = "import sys; open(sys.argv[1], 'wb').write(sys.stdin.buffer.read())\n"


def test_paged_on_a_terminal_only(chain: Chain, oms: OmsCommand, tmp_path: Path) -> None:
    bound = _result(chain, files={"WORK.md": f"work{HOSTILE}\n"})
    recorder = tmp_path / "pager.py"
    recorder.write_text(RECORDER)
    paged = tmp_path / "paged.out"
    env = {**os.environ, "PAGER": f"{sys.executable} {recorder} {paged}"}
    env.pop("OMS_PAGER", None)
    argv = [
        *oms.argv, "result", "diff", bound.dispatch_id,
        "--state-root", str(chain.state), "--config-root", str(chain.repo),
    ]  # fmt: skip
    piped = subprocess.run(argv, env=env, capture_output=True, check=False, timeout=60)
    assert piped.returncode == 0, piped.stderr
    assert not paged.exists()  # not a terminal: no pager
    assert b"+work" in piped.stdout
    main, side = pty.openpty()
    try:
        done = subprocess.run(
            argv, env=env, stdout=side, stderr=subprocess.PIPE, check=False, timeout=60
        )
    finally:
        os.close(side)
        os.close(main)
    assert done.returncode == 0, done.stderr
    got = paged.read_bytes()
    assert b"diff --git a/WORK.md b/WORK.md" in got
    assert b"+work\\x1b]52;c;" in got
    assert ESC not in got

"""Review before merge, attacked (issue 27 items 1 and 7, SECURITY.md "Review before merge"): what
an agent wrote — its summary, its files' contents and names, a branch name — never reaches the
terminal as a control sequence; a person's comment holding one is refused before anything is
recorded; nothing from a record reaches git as an option; and the comments reach the agent only
through read_dispatch, never the pane's prompt."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from oms.adapters import git_review
from oms.errors import InvalidInputError
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.helpers import OmsCommand, git

HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202e\x9b31m"
ESC = 0x1B


def _result(chain: Chain, summary: str, files: dict[str, str]) -> Bound:
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        for name, text in files.items():
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


def test_what_an_agent_wrote_never_reaches_the_terminal_raw(chain: Chain, oms: OmsCommand) -> None:
    name = "x\x1b]0;title\x07.txt"
    bound = _result(
        chain,
        summary=f"Done.{HOSTILE}",
        files={"WORK.md": f"work{HOSTILE}\n", name: f"{HOSTILE}\n", "--output=pwned": "x\n"},
    )
    for args in (("show",), ("show", "--json"), ("diff",), ("diff", "--stat")):
        out = _run(oms, chain, *args, bound.dispatch_id)
        assert out.returncode == 0, out.stderr
        raw = out.stdout.encode()
        if "--json" not in args:
            assert ESC not in raw, (args, out.stdout)
            assert "\u202e" not in out.stdout
            assert "\x9b" not in out.stdout
    shown = _run(oms, chain, "show", bound.dispatch_id).stdout
    assert "Done.\\x1b]52;c;cm0gLXJmIH4=\\x07" in shown
    assert not (chain.repo / "pwned").exists()
    assert not Path("pwned").exists()


def test_git_is_never_handed_an_option_from_a_record() -> None:
    for hostile in ("--output=/tmp/pwned", "-p", "HEAD", "a" * 39, "main"):
        with pytest.raises(InvalidInputError, match="not an object id"):
            git_review.diff_stream("/nonexistent", hostile, "b" * 40, lambda _c: True)
        with pytest.raises(InvalidInputError, match="not an object id"):
            git_review.numstat("/nonexistent", "b" * 40, hostile)


def test_a_hostile_target_branch_name_is_shown_escaped(chain: Chain, oms: OmsCommand) -> None:
    """The committed config allows only plain branch names in `[merge] into`; the branch checked
    out in the config root (the target without one) may be any name git takes: a bidi override."""
    branch = "main\u202egnp.exe"
    git("checkout", "-q", "-b", branch, cwd=chain.repo)
    bound = _result(chain, "Done.", {"WORK.md": "work\n"})
    shown = _run(oms, chain, "show", bound.dispatch_id)
    assert shown.returncode == 0, shown.stderr
    assert "\u202e" not in shown.stdout
    assert "into main\\u202egnp.exe" in shown.stdout
    doc = json.loads(_run(oms, chain, "show", bound.dispatch_id, "--json").stdout)
    assert doc["target"]["branch"] == branch  # JSON keeps it exact (and escapes it itself)


def test_a_hostile_comment_is_refused_before_anything_is_recorded(
    chain: Chain, oms: OmsCommand, tmp_path: Path
) -> None:
    bound = _result(chain, "Done.", {"WORK.md": "work\n"})
    notes = tmp_path / "notes.txt"
    notes.write_text(f"lib.rs:1: fine\nlib.rs:2: then {HOSTILE}\n")
    ledger = (chain.state / "ledger" / "log").read_bytes()
    for how in (("--comment", f"fix it{HOSTILE}"), ("--comments", str(notes))):
        refused = _run(
            oms, chain, "request-changes", bound.dispatch_id, *how, "--person", "Ada", "--yes"
        )
        assert refused.returncode == 1
        assert refused.stderr.count("\n") == 1, refused.stderr
        assert "control character" in refused.stderr
        assert ESC not in refused.stderr.encode()
    assert "line 2" in refused.stderr
    assert (chain.state / "ledger" / "log").read_bytes() == ledger  # nothing recorded


def test_a_path_or_name_never_becomes_an_option_of_git(chain: Chain, oms: OmsCommand) -> None:
    bound = _result(chain, "Done.", {"-p": "x\n", "--output=pwned": "y\n"})
    done = _run(oms, chain, "diff", bound.dispatch_id)
    assert done.returncode == 0, done.stderr
    assert "b/--output=pwned" in done.stdout
    assert not (chain.repo / "pwned").exists()

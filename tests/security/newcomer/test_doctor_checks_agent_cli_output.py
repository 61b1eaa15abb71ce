"""Attack (issue 15): what the agent CLIs say reaches `oms doctor`'s output only checked.

Before its fix:
* Claude Code's retirement table is found in its binary, and its `modelName` was decoded as UTF-8
  without a guard (`cli_models.claude_retirement`): a binary whose entry holds a byte that is not
  UTF-8 made doctor die with `internal error: UnicodeDecodeError` (exit 3) instead of printing its
  checks. The module's own contract: "A format this does not recognise gives no answer, never a
  false one."
* `codex debug models`' first slug went raw into the fix of the `model` line (`(fix: set model =
  "<slug>" ...)`): doctor passed the detail through `shown()` but printed `fix` as it was, so a slug
  with a newline forged a doctor line ("OK  ...") and one with ESC drove the terminal.

The CLIs here are stand-ins on PATH that print or carry the crafted data (they run no repository
code). Doctor now prints its checks whatever the table holds, and every line it prints is one of its
own, with no terminal control in it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.helpers import oms_command

CODEX = """#!/bin/sh
case "$1 $2" in
  "login status") echo "Logged in using an API key"; exit 0 ;;
  "debug models")
    printf '%s' '{"models":[{"slug":"gpt-x\\n\\u001b[32mOK  \\u001b[0m  all \
good\\u001b]0;owned\\u0007"}]}'
    exit 0 ;;
esac
exit 1
"""


def _repo(tmp_path: Path) -> tuple[Path, Path]:
    repo, state = tmp_path / "repo", tmp_path / "state"
    repo.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (
        ("init", "-q", "-b", "main"),
        ("config", "user.name", "t"),
        ("config", "user.email", "t@x"),
    ):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    done = oms_command().run("init", "--state-root", str(state), "--config-root", str(repo))
    assert done.returncode == 0, done.stderr
    subprocess.run(["git", "add", ".oms"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "oms"], cwd=repo, env=env, check=True)
    return repo, state


def _bin(tmp_path: Path, claude: bytes) -> dict[str, str]:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "codex").write_text(CODEX)
    (fake / "claude").write_bytes(claude)
    for name in ("codex", "claude"):
        (fake / name).chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": f"{fake}:{os.environ['PATH']}",
        "HOME": str(home),
        "CODEX_HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home),
        "OPENAI_API_KEY": "",
        "ANTHROPIC_API_KEY": "",
        "CODEX_API_KEY": "",
    }


CLAUDE_OK = b"#!/bin/sh\necho '{\"loggedIn\": true}'\nexit 0\n"


def test_doctor_survives_a_claude_table_entry_that_is_not_utf8(tmp_path: Path) -> None:
    repo, state = _repo(tmp_path)
    table = (
        b'# "sonnet":{modelName:"Claude Sonnet \xff\xfe",retirementDates:{firstParty:"November '
        b'30, 2020",x:1}}\n'
    )
    env = _bin(tmp_path, CLAUDE_OK + table)
    done = oms_command().run(
        "doctor", "--state-root", str(state), "--config-root", str(repo), env=env, cwd=tmp_path
    )
    assert "internal error" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), (done.returncode, done.stderr)
    assert "login oms.ticket-executor" in done.stdout  # doctor printed its checks


def test_doctor_fix_shows_no_raw_codex_slug(tmp_path: Path) -> None:
    repo, state = _repo(tmp_path)
    env = _bin(tmp_path, CLAUDE_OK)
    done = oms_command().run(
        "doctor", "--state-root", str(state), "--config-root", str(repo), env=env, cwd=tmp_path
    )
    assert "login oms.exec-advisor" in done.stdout, done.stdout + done.stderr  # the role checks ran
    assert "all good" not in done.stdout  # a slug that is no model name is not one Codex lists
    assert "\x1b" not in done.stdout, "a codex slug put a terminal escape in doctor's output"
    for line in done.stdout.splitlines():
        assert line.startswith(("OK  ", "WARN", "FAIL")), f"a line doctor did not write: {line!r}"

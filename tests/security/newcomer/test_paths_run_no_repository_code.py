"""Issue 15's new paths never run repository code (SECURITY.md, the boundary): `oms doctor`'s login
and model checks and the advisor's login check ask the real Codex CLI and Claude Code from a neutral
directory, so a hostile repository's project settings (Claude Code's `.claude/settings.json` with an
`apiKeyHelper` command, Codex's `.codex/config.toml`) are not read by the asking, even when oms runs
inside that repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.chain import Chain
from tests.helpers import oms_command


def _hostile(repo: Path, marker: Path) -> None:
    (repo / ".claude").mkdir(exist_ok=True)
    command = f"touch {marker}; echo sk-ant-from-the-repository"
    (repo / ".claude" / "settings.json").write_text(json.dumps({"apiKeyHelper": command}))
    (repo / ".codex").mkdir(exist_ok=True)
    (repo / ".codex" / "config.toml").write_text(f'notify = ["sh", "-c", "touch {marker}"]\n')
    subprocess.run(["git", "add", ".claude", ".codex"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "project settings"], cwd=repo, check=True)


def test_doctor_and_review_inside_a_hostile_repository_run_none_of_its_settings(
    chain: Chain, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    _hostile(chain.repo, marker)
    homes = {
        "CODEX_HOME": str(tmp_path / "codex"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "HOME": str(tmp_path),
    }
    for name in ("codex", "claude"):
        (tmp_path / name).mkdir()
    env = {**homes, "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": "", "CODEX_API_KEY": ""}
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    doctor = oms_command().run("doctor", *where, env=env, cwd=chain.repo)
    assert "login oms.ticket-executor" in doctor.stdout  # the checks ran
    config = chain.repo / ".oms" / "config.toml"
    text = config.read_text()
    head, marker_line, tail = text.partition('[roles."oms.exec-advisor"]')
    end = tail.find("\n[")
    config.write_text(
        head
        + marker_line
        + '\nmodel = "sonnet"\ntransport = "claude_print"\nsandbox = "read-only"\n'
        + (tail[end:] if end >= 0 else "")
    )
    subprocess.run(["git", "commit", "-q", "-am", "a Claude advisor"], cwd=chain.repo, check=True)
    _, _, dispatch_id = chain.proposed()
    review = oms_command().run("dispatch", "review", dispatch_id, *where, env=env, cwd=chain.repo)
    assert review.returncode == 1
    assert "Claude Code is not logged in" in review.stderr
    assert not marker.exists()  # nothing the repository names ran

"""docs/guide.md ("Your first real agent"), run as a new user would run it: its install step
(`./.ci/setup --install`, from this checkout, into a fresh HOME whose PATH has no oms), then
every ```sh block, in order, in one bash, with the real Codex CLI (advisor and `/goal` worker),
git, tmux and bubblewrap. The one replacement is the remote model: `https://api.openai.com/v1`
becomes a loopback mock, and the model's name one it can play, that approves as the advisor and,
as the worker, reads and acknowledges the dispatch, writes CHANGELOG.md and records the result.
`oms conductor run` runs until the ticket is done, then gets its Ctrl-C."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.model_mock import Call, ModelMock, Say, Script

REPO = Path(__file__).resolve().parents[2]
GUIDE = REPO / "docs" / "guide.md"
API = "https://api.openai.com/v1"
# The mock plays a model Codex does not know by name: for one it knows (the scaffold's gpt-6.2-sol)
# Codex loads the MCP tools by search, which the mock does not play. So the model's name is replaced
# with the address, both halves of "the remote model", right before the guide commits its config.
COMMIT_WORKER = 'git commit -q -am "oms: a Codex worker'
PLAYABLE_MODEL = 'sed -i \'s/"gpt-6.2-sol"/"test-model"/\' .oms/config.toml\n'
WAIT_DONE = """
_guide_conductor() {  # the guide's `oms conductor run`: Ctrl-C once the ticket is done (as its \
text says)
  oms conductor run & local pid=$!
  for _ in $(seq 1 480); do
    if oms ticket show tkt-1 --json | grep -q '"state": *"done"'; then break; fi
    sleep 0.5
  done
  kill -INT "$pid"; wait "$pid"
}
"""


def shell_blocks(text: str) -> list[str]:
    """The guide's ```sh blocks, in order (```text blocks are shown, not run)."""
    return re.findall(r"^```sh\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def install_command(text: str) -> str:
    """The guide's install step, the one command of its first block a test can run: the block is
    the clone (this checkout) and `./.ci/setup --install`, run here from the checkout."""
    blocks: list[str] = re.findall(r"^```text\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    clone, setup = blocks[0].splitlines()
    assert clone == "git clone <this repository> oms && cd oms"
    command = setup.split("  #", 1)[0].strip()
    assert command == "./.ci/setup --install"
    return command


class GuideModel(Script):
    """The advisor's request (it carries the advisor's instructions) gets an approval of the intent
    it names; every other request is the worker's goal run."""

    def next(self, outputs: int, results: list[tuple[str, str]], text: str) -> Call | Say:
        if "You are the oms advisor" in text:
            digest = re.findall(r'"dispatch_intent_sha256":"([0-9a-f]{64})"', text)[-1]
            verdict = (
                '{"verdict": "approve", "rationale": "A changelog line.", '
                '"dispatch_intent_sha256": "%s"}'
            )
            return Say(verdict % digest)
        step = super().next(outputs, results, text)
        assert isinstance(step, Call | Say)
        return step


@pytest.fixture
def fresh_home() -> Iterator[Path]:
    """A fresh machine's HOME, short as one is: the state root under it holds tmux's socket, whose
    path tmux takes whole (at most 107 bytes)."""
    top = Path(tempfile.mkdtemp(prefix="oms-guide-"))
    yield top / "home"
    shutil.rmtree(top, ignore_errors=True)


@pytest.mark.timeout(2400)  # the install builds oms when dist/ is not this tree's build
def test_the_guide_runs_as_written(tmp_path: Path, fresh_home: Path) -> None:
    blocks = shell_blocks(GUIDE.read_text())
    assert len(blocks) >= 8
    script = "\n".join(blocks)
    assert API in script
    assert "\noms conductor run\n" in script
    mock = ModelMock(
        GuideModel(
            [
                Call("read_dispatch", {}),
                Call("acknowledge_dispatch", {}),
                Call("exec_command", {"cmd": "printf 'Started.\\n' > CHANGELOG.md"}),
                Call(
                    "record_dispatch_result",
                    {"status": "completed", "summary": "Added CHANGELOG.md."},
                ),
                Call("update_goal", {"status": "complete"}),
                Say("Done: the dispatch has its result."),
            ]
        )
    ).start()
    home = fresh_home  # no ~/.gitconfig, no git identity anywhere (ADR 0032)
    (home / "codex").mkdir(parents=True)
    path = [p for p in os.environ["PATH"].split(":") if p and not os.access(f"{p}/oms", os.X_OK)]
    env = {
        "PATH": ":".join(path),  # no oms on it: the guide's install step puts one there
        "HOME": str(home),
        "CODEX_HOME": str(home / "codex"),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    assert COMMIT_WORKER in script
    body = (
        script.replace(API, mock.base + "/v1")
        .replace(COMMIT_WORKER, PLAYABLE_MODEL + COMMIT_WORKER)
        .replace("\noms conductor run\n", "\n_guide_conductor\n")
    )
    setup = install_command(GUIDE.read_text())
    install = subprocess.run(
        ["bash", "-c", setup],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    assert install.returncode == 0, (install.stdout + install.stderr)[-6000:]
    assert f"== {home}/.local/bin is not on your PATH" in install.stdout
    runner = tmp_path / "guide.sh"
    runner.write_text("set -euo pipefail\nset -x\n" + WAIT_DONE + body)
    proc = subprocess.Popen(
        ["bash", str(runner)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=420)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"the guide did not finish:\n{out[-6000:]}")
    finally:
        mock.stop()
        for sock in (home / ".local" / "state" / "oms").glob("*/tmux.sock"):  # the repository's own
            kill = ["tmux", "-S", str(sock), "kill-server"]
            subprocess.run(kill, capture_output=True, check=False)
    assert proc.returncode == 0, out[-6000:]
    repo = tmp_path / "my-project"
    assert (
        repo / "CHANGELOG.md"
    ).read_text() == "Started.\n"  # the agent's work, verified and merged
    argv = ["git", "log", "--format=%an <%ae> %s"]
    log = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=True)
    you = "Your Name <you@example.com>"
    assert f"{you} oms: configuration and role policy (oms init --commit)" in log.stdout
    assert log.stdout.startswith(f"{you} Merge dsp-")  # the merge is the person's, not oms's
    assert not (home / ".gitconfig").exists()
    assert "\nFAIL " not in out  # `oms doctor` found nothing to fix
    assert "store verify: ok" in out
    assert f"running     onedir binary {home}/.local/lib/oms/" in out  # the installed binary ran it

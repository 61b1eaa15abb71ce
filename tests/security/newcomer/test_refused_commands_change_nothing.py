"""Issue 10, case 6: refused commands change nothing.

`oms init` with a config root it cannot use left the state root created with its key; a GitHub
import refused for changed content still stored the new content (three refusals, three orphans that
`store verify` did not flag); `acme/..` and `acme/.` passed as repositories; a newline in a
state-root path split a finding over two lines and a 10,000-character root made `store verify` print
20 KB. Now everything is checked before anything is created, repository names follow GitHub's rules,
and paths and ids in messages are escaped and bounded."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from oms.domain.config import CONFIG_PATH
from tests.agent_side import snapshot
from tests.chain import Chain
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _one_line_refusal(result: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith("oms: error: ")
    assert len(lines) <= 2  # the error and, maybe, its hint
    return lines[0]


def _run(
    oms: OmsCommand, chain: Chain, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    return oms.run(
        *args, "--state-root", str(chain.state), "--config-root", str(chain.repo), stdin=stdin
    )


# ----------------------------------------------------------------------------------------- oms init
def test_init_with_a_missing_config_root_creates_no_state_root(
    oms: OmsCommand, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    line = _one_line_refusal(
        oms.run("init", "--state-root", str(state), "--config-root", str(tmp_path / "nowhere"))
    )
    assert "nowhere is not a folder" in line
    assert not state.exists()


def test_init_with_a_broken_config_creates_no_state_root(oms: OmsCommand, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # oms serves a repository
    (repo / ".oms").mkdir(parents=True)
    (repo / CONFIG_PATH).write_text("version = [\n")
    before = snapshot(repo)
    state = tmp_path / "state"
    line = _one_line_refusal(
        oms.run("init", "--state-root", str(state), "--config-root", str(repo))
    )
    assert "config.toml" in line
    assert not state.exists()
    assert snapshot(repo) == before


def test_init_into_a_config_root_it_cannot_write_creates_no_state_root(
    oms: OmsCommand, tmp_path: Path
) -> None:
    """Runs everywhere: as root without the capabilities that override file modes (setpriv),
    otherwise as the ordinary user the directory's mode refuses."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)  # oms serves a repository
    os.chmod(repo, 0o555)
    prefix: list[str] = []
    if os.geteuid() == 0:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]
    state = tmp_path / "state"
    done = subprocess.run(
        [*prefix, *oms.argv, "init", "--state-root", str(state), "--config-root", str(repo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = _one_line_refusal(done)
    assert "cannot create files in" in line
    assert not state.exists()
    assert os.listdir(repo) == [".git"]  # nothing made beside it


# ----------------------------------------------------------------------------------- GitHub imports
def _issue(title: str, url: str = "https://github.com/acme/widgets/issues/7") -> bytes:
    return json.dumps({"number": 7, "title": title, "body": "b", "url": url}).encode()


def test_a_refused_reimport_stores_nothing(oms: OmsCommand, chain: Chain) -> None:
    assert _run(oms, chain, "ticket", "import", "-", stdin=_issue("First title")).returncode == 0
    before = snapshot(chain.state)
    for n in range(3):
        line = _one_line_refusal(
            _run(oms, chain, "ticket", "import", "-", stdin=_issue(f"Changed title {n}"))
        )
        assert "imported before with different content" in line
    assert snapshot(chain.state) == before
    verified = oms.run("store", "verify", "--state-root", str(chain.state), "--json")
    assert json.loads(verified.stdout)["findings"] == []


def test_store_verify_notes_content_no_ticket_names(oms: OmsCommand, chain: Chain) -> None:
    """What an interrupted create leaves (content stored, the record never written) is reported."""
    assert _run(oms, chain, "ticket", "import", "-", stdin=_issue("First title")).returncode == 0
    with chain.workspace() as ws:
        ticket_id = ws.store.records("ticket").ids()[0]
        sha = str(ws.store.records("ticket").read(ticket_id).payload["content_sha256"])
        content = ws.store.ticket_content.get(ticket_id, sha)
        orphan = ws.store.ticket_content.put({**content, "title": "Never recorded"})
    report = json.loads(
        oms.run("store", "verify", "--state-root", str(chain.state), "--json").stdout
    )
    assert report["ok"] is True  # a crash can leave it: a note, not a failure
    assert report["findings"] == [
        {
            "path": f"tickets/{ticket_id}/{orphan}.json",
            "problem": (
                "no version of its ticket names this content (an interrupted create or import)"
            ),
            "severity": "note",
        }
    ]


BAD_REPOSITORIES = {
    "acme/..": "'..' is not a repository name",
    "acme/.": "'.' is not a repository name",
    "acme/widgets.git": "ending in .git or .wiki",
    "acme/widgets.wiki": "ending in .git or .wiki",
    "-acme/widgets": "the owner must be",
    "acme-/widgets": "the owner must be",
    "ac--me/widgets": "the owner must be",
    "a" * 40 + "/widgets": "the owner must be",
    "acme/" + "w" * 101: "the name must be",
    "acme/wid gets": "the name must be",
}


@pytest.mark.parametrize("repository", list(BAD_REPOSITORIES))
def test_repository_names_follow_githubs_rules(
    oms: OmsCommand, chain: Chain, repository: str
) -> None:
    before = snapshot(chain.state)
    url = f"https://github.com/{repository}/issues/7"
    imported = _one_line_refusal(_run(oms, chain, "ticket", "import", "-", stdin=_issue("t", url)))
    authorized = _one_line_refusal(
        _run(
            oms,
            chain,
            "live",
            "authorize",
            "--repository",
            repository,
            "--person",
            "Alice",
            "--yes",
        )
    )
    expected = _run(
        oms, chain, "ticket", "import", "-", "--repository", repository, stdin=_issue("t")
    )
    for line in (authorized, _one_line_refusal(expected)):
        assert BAD_REPOSITORIES[repository] in line
    if " " not in repository:  # a URL with a space is not a URL at all
        assert BAD_REPOSITORIES[repository] in imported
    assert snapshot(chain.state) == before


def test_a_valid_repository_is_still_accepted(oms: OmsCommand, chain: Chain) -> None:
    """The control: GitHub's own odd-but-valid names pass (dots and underscores inside,
    `.github`)."""
    for n, repository in enumerate(["acme/.github", "a-b-c/x_y.z", "A1/-"], start=1):
        url = f"https://github.com/{repository}/issues/{n}"
        done = _run(
            oms,
            chain,
            "ticket",
            "import",
            "-",
            stdin=json.dumps({"number": n, "title": "t", "body": "", "url": url}).encode(),
        )
        assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------------------ shown paths and ids
def test_a_newline_in_the_state_root_stays_on_one_line(oms: OmsCommand, tmp_path: Path) -> None:
    state = tmp_path / "new\nline\x1b[31m"
    state.mkdir(mode=0o755)
    done = oms.run("store", "verify", "--state-root", str(state))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == "FAIL  .: mode 0755 is open to others (expected 0700)"
    assert lines[-1].startswith("store verify: 1 problem in ")
    assert "new\\nline\\x1b[31m" in lines[-1]
    assert len(lines) == 2
    assert "\x1b" not in done.stdout + done.stderr
    init = oms.run("init", "--state-root", str(state), "--config-root", str(tmp_path / "nowhere"))
    assert init.stderr.count("\n") <= 2
    assert "\x1b" not in init.stderr


@pytest.mark.parametrize("exists", [True, False])
def test_a_very_long_state_root_gives_a_bounded_report(
    oms: OmsCommand, tmp_path: Path, exists: bool
) -> None:
    """A root of 10,000 characters (too long to exist), or one of ~3,900 (as long as a path can be)
    that verify refuses: either way a report of a few hundred bytes."""
    if exists:
        state = tmp_path.joinpath(*["d" * 190] * 20)
        state.mkdir(parents=True, mode=0o755)
        assert len(str(state)) > 3_800
    else:
        state = tmp_path / ("x/" * 5_000)
        assert len(str(state)) > 9_600
    done = oms.run("store", "verify", "--state-root", str(state))
    assert done.returncode == 1
    assert len(done.stdout + done.stderr) < 1_000
    as_json = oms.run("store", "verify", "--state-root", str(state), "--json")
    assert as_json.returncode == 1
    assert len(as_json.stdout) < 1_000

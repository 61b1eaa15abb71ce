"""Repositories kept apart (issue 26, ADR 0032), as a person meets them: several real repositories
side by side in one folder, a fresh HOME, real git, the oms command as a real process.

A state root serves one repository (by default each has its own), every ticket records the
repository it was added in, worktrees of two repositories never share a path, oms finds the
repository's top from a subdirectory as git does and refuses outside one with the fix; and a machine
where git knows no one can still follow the guide (`oms init --commit --author`)."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY_ENV, OmsCommand

pytestmark = pytest.mark.cli

# The fresh HOME's defaults: no XDG variable set (the suite points them at a file), so the state
# root is oms's default under HOME.
XDG = ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "OMS_STATE_ROOT")
NO_IDENTITY = (*GIT_IDENTITY_ENV, "GIT_CONFIG_GLOBAL")  # (the suite pins one: `isolate_home`)
Done = subprocess.CompletedProcess[str]


class Person:
    """Runs oms and git as a person at a fresh machine would: in `cwd`, with a fresh HOME."""

    def __init__(self, oms: OmsCommand, home: Path, state: Path | None = None) -> None:
        self.oms = oms
        self.home = home
        self.env = {"HOME": str(home)} | ({"OMS_STATE_ROOT": str(state)} if state else {})
        self.unset = XDG if state is None else XDG[:-1]

    def run(self, cwd: Path, *args: str, unset: tuple[str, ...] = ()) -> Done:
        return self.oms.run(*args, cwd=cwd, env=self.env, unset=self.unset + unset)

    def ok(self, cwd: Path, *args: str) -> Done:
        done = self.run(cwd, *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def refused(self, cwd: Path, *args: str, says: str) -> str:
        """`args` exits 1 with one line (and its hint) that says `says`; that line."""
        done = self.run(cwd, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        lines = done.stderr.splitlines()
        assert lines, done
        assert lines[0].startswith("oms: error: "), done.stderr
        assert len(lines) <= 2, done.stderr  # one line, and its hint
        assert all(line.startswith("  hint: ") for line in lines[1:]), done.stderr
        assert says in lines[0], (args, done.stderr)
        assert "Traceback" not in done.stderr + done.stdout
        return lines[0]


def _repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    for key, value in (("user.name", "Dev"), ("user.email", "dev@example.com")):  # its person
        subprocess.run(["git", "config", key, value], cwd=path, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "start"], cwd=path, check=True)
    return path


@pytest.fixture
def home() -> Iterator[Path]:
    """A fresh HOME, short as one is: a state root under it holds tmux's socket, whose path tmux
    takes whole (`Limits.tmux_socket_path_bytes`)."""
    top = Path(tempfile.mkdtemp(prefix="oms-home-"))
    (top / "home").mkdir()
    yield top / "home"
    shutil.rmtree(top, ignore_errors=True)


def _show(person: Person, cwd: Path, ticket: str) -> dict[str, object]:
    doc = json.loads(person.ok(cwd, "ticket", "show", ticket, "--json").stdout)
    found = doc.get("ticket", doc)
    assert isinstance(found, dict)
    return found


def test_each_repository_has_its_own_state_root_tickets_and_worktrees(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,
) -> None:
    """Two repositories side by side, each with the defaults: neither sees the other's ticket, and
    their worktrees (both `tkt-1`) never collide."""
    work = tmp_path / "work"
    person = Person(oms, home)
    roots, trees = {}, {}
    for name in ("api", "web"):
        repo = _repo(work / name)
        init = json.loads(person.ok(repo, "init", "--commit", "--json").stdout)
        assert init["repository_root"] == str(repo.resolve())
        roots[name] = Path(init["state_root"])
        added = person.ok(repo, "ticket", "add", "--title", f"Fix {name}", "--body", "x", "--json")
        assert json.loads(added.stdout)["ticket"]["id"] == "tkt-1"  # each repository's first
        person.ok(repo, "ticket", "lease", "tkt-1", "--worker", "w1")
        created = json.loads(person.ok(repo, "worktree", "create", "tkt-1", "--json").stdout)
        trees[name] = Path(created["worktree"]["worktree_root"])
    state_home = home / ".local" / "state" / "oms"
    assert roots["api"] != roots["web"]
    assert {p.parent for p in roots.values()} == {state_home}
    apart = {n: (work / "oms-worktrees" / n / "tkt-1").resolve() for n in ("api", "web")}
    assert trees == apart
    for name in ("api", "web"):
        shown = _show(person, work / name, "tkt-1")
        assert shown["title"] == f"Fix {name}"


def test_one_state_root_serves_one_repository(oms: OmsCommand, tmp_path: Path, home: Path) -> None:
    """Two repositories and one state root named for both ($OMS_STATE_ROOT): the second is refused
    by every command, in one line naming the repository the state root serves; nothing is made."""
    work = tmp_path / "work"
    api, web = _repo(work / "api"), _repo(work / "web")
    person = Person(oms, home, state=tmp_path / "state")
    person.ok(api, "init", "--commit")
    person.ok(api, "ticket", "add", "--title", "Fix the API", "--body", "x")
    serves = f"serves the repository {api.resolve()}"
    before = sorted(p.name for p in web.iterdir())
    person.refused(web, "init", "--commit", says=serves)
    assert sorted(p.name for p in web.iterdir()) == before  # no .oms/: a refused init makes nothing
    for args in (
        ("ticket", "show", "tkt-1"),
        ("ticket", "lease", "tkt-1", "--worker", "w1"),
        ("ticket", "list"),
        ("ticket", "add", "--title", "Fix the web", "--body", "x"),
        ("worktree", "create", "tkt-1"),
        ("dispatch", "propose", "tkt-1"),
        ("status",),
        ("conductor", "tick"),
    ):
        person.refused(web, *args, says=serves)
    assert _show(person, api, "tkt-1")["state"] == "open"  # untouched


def test_a_ticket_keeps_to_its_repository_even_if_its_state_root_forgets(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,
) -> None:
    """The ticket's own record names its repository: with the state root's `repository.json` gone
    (a state root that names none is bound by the next `oms init`), another repository is still
    refused that ticket, by every command and by the conductor."""
    work = tmp_path / "work"
    api, web = _repo(work / "api"), _repo(work / "web")
    state = tmp_path / "state"
    person = Person(oms, home, state=state)
    person.ok(api, "init", "--commit")
    person.ok(api, "ticket", "add", "--title", "Fix the API", "--body", "x")
    assert _show(person, api, "tkt-1")["repository_root"] == str(api.resolve())
    (state / "repository.json").unlink()
    person.refused(api, "status", says="names no repository")  # with the fix: `oms init` there
    person.ok(web, "init", "--commit")  # binds it to web
    belongs = f"ticket tkt-1 belongs to the repository {api.resolve()}"
    person.refused(web, "ticket", "show", "tkt-1", says=belongs)
    person.refused(web, "ticket", "lease", "tkt-1", "--worker", "w1", says=belongs)
    person.refused(web, "worktree", "create", "tkt-1", says=belongs)
    tick = json.loads(person.ok(web, "conductor", "tick", "--json").stdout)
    fill = next(p for p in tick["phases"] if p["phase"] == "fill")
    assert any(belongs in line for line in fill["skipped"]), fill
    assert not fill["done"]


def test_commands_find_the_top_from_a_subdirectory(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,
) -> None:
    repo = _repo(tmp_path / "work" / "api")
    deep = repo / "src" / "deep"
    deep.mkdir(parents=True)
    person = Person(oms, home)
    person.ok(deep, "init", "--commit")
    assert not (deep / ".oms").exists()  # not a nested .oms/ in the user's tree
    listed = ["git", "ls-files"]
    tracked = subprocess.run(listed, cwd=repo, capture_output=True, text=True, check=True)
    assert sorted(tracked.stdout.split()) == [".oms/config.toml", ".oms/role-policy.json"]
    person.ok(deep, "ticket", "add", "--title", "From below", "--body", "x")
    assert _show(person, repo, "tkt-1")["repository_root"] == str(repo.resolve())
    doctor = person.run(deep, "doctor")
    line = next(line for line in doctor.stdout.splitlines() if line.startswith("OK    repository"))
    assert line.endswith(str(repo.resolve()))


def test_outside_a_repository_oms_refuses_with_the_fix(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    person = Person(oms, home)
    fix = "run oms inside your git repository (`git init` makes one), or name it: --config-root"
    add = ("ticket", "add", "--title", "x", "--body", "y")
    for args in (("init",), ("init", "--commit"), add, ("status",)):
        done = person.run(outside, *args)
        assert done.returncode == 1, done
        said = [f"oms: error: {outside} is not in a git repository", f"  hint: {fix}"]
        assert done.stderr.splitlines() == said
    assert list(home.iterdir()) == []  # nothing made: no state root
    assert list(outside.iterdir()) == []  # no .oms/
    doctor = person.run(outside, "doctor")
    assert doctor.returncode == 1
    line = next(line for line in doctor.stdout.splitlines() if line.startswith("FAIL  repository"))
    assert f"{outside} is not in a git repository  (fix: {fix})" in line


def _git_guesses_an_identity(home: Path, repo: Path) -> bool:
    """Whether git on this machine makes up an identity with none configured (a host name with a
    domain gives it an email): then there is no 'machine with no identity' to test here."""
    env = {k: v for k, v in os.environ.items() if k not in NO_IDENTITY} | {"HOME": str(home)}
    argv = ["git", "var", "GIT_AUTHOR_IDENT"]
    return subprocess.run(argv, cwd=repo, env=env, capture_output=True, check=False).returncode == 0


def test_a_machine_with_no_git_identity_says_who_once(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,
) -> None:
    """No git identity anywhere (a fresh HOME, no variables): `oms init --commit` says what to do
    before it makes anything; `--author` commits as that person and keeps them in the repository's
    git config, where git's own next commit finds them."""
    repo = tmp_path / "work" / "api"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)  # (no commit)
    if _git_guesses_an_identity(home, repo):
        pytest.skip("git guesses an identity on this machine (its host name has a domain)")
    person = Person(oms, home)
    bare = person.run(repo, "init", "--commit", unset=NO_IDENTITY)
    assert bare.returncode == 1, bare
    assert bare.stderr.startswith("oms: error: git does not know who you are")
    assert '--author "Your Name <you@example.com>"' in bare.stderr
    assert not (repo / ".oms").exists()
    assert not (home / ".local").exists()  # no state root either
    ada = "Ada Lovelace <ada@example.com>"
    done = person.run(repo, "init", "--commit", "--author", ada, unset=NO_IDENTITY)
    assert done.returncode == 0, done.stderr
    assert f"git identity {ada} (kept in the repository's git config)" in done.stdout

    def git(*args: str) -> str:
        env = {k: v for k, v in os.environ.items() if k not in NO_IDENTITY} | {"HOME": str(home)}
        argv = ["git", *args]
        out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    scaffold = "oms: configuration and role policy (oms init --commit)"
    assert git("log", "-1", "--format=%an <%ae> | %cn <%ce> | %s") == f"{ada} | {ada} | {scaffold}"
    assert git("config", "--local", "user.name") == "Ada Lovelace"
    git("commit", "-q", "--allow-empty", "-m", "the person's own next commit")  # works now
    assert not (home / ".gitconfig").exists()  # the person's global config is theirs alone
    person.refused(repo, "init", "--commit", "--author", "Ada", says="is not 'Your Name <you@")


def test_a_state_root_too_long_for_tmux_is_refused_before_anything_is_made(
    oms: OmsCommand,
    tmp_path: Path,
    home: Path,
) -> None:
    """tmux takes its socket's path whole into an AF_UNIX address: a state root whose
    `tmux.sock` would not fit could never start a pane, so `oms init` says so at once."""
    repo = _repo(tmp_path / "api")
    long = tmp_path / ("x" * 120)
    person = Person(oms, home, state=long)
    person.refused(repo, "init", says="is too long: its tmux socket's path would be")
    assert not long.exists()
    assert not (repo / ".oms").exists()


def _answer_on_a_tty(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    answers: dict[bytes, str],
) -> tuple[int, str]:
    """Run `argv` on a pseudo-terminal, typing each answer once its prompt appears."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen, pending = b"", dict(answers)
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
        for prompt in [p for p in pending if p in seen]:
            os.write(master, pending.pop(prompt).encode() + b"\n")
    os.close(master)
    return proc.wait(timeout=60), seen.decode("utf-8", "replace")


def test_on_a_terminal_init_asks_who_you_are(oms: OmsCommand, tmp_path: Path, home: Path) -> None:
    repo = tmp_path / "api"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    if _git_guesses_an_identity(home, repo):
        pytest.skip("git guesses an identity on this machine (its host name has a domain)")
    kept = {k: v for k, v in os.environ.items() if k not in (*NO_IDENTITY, *XDG)}
    env = kept | {"HOME": str(home)}
    answers = {b"Your name": "Grace Hopper", b"Your email": "grace@example.com"}
    code, said = _answer_on_a_tty([*oms.argv, "init", "--commit"], repo, env, answers)
    assert code == 0, said
    assert "git does not know who you are yet" in said
    argv = ["git", "log", "-1", "--format=%an <%ae>"]
    log = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=True)
    assert log.stdout.strip() == "Grace Hopper <grace@example.com>"

"""Git, without running repository code (ADR 0009 "Delivery"; SECURITY.md attack case 25).

An agent can write a repository's `.git/config` (worktrees share it). `git status`, `diff` and
checkout run `core.fsmonitor`, `filter.*` and hook commands from that config. So oms:

* uses object-level commands (`rev-parse`, `cat-file`, `ls-files`, `for-each-ref`, `worktree list`,
  `merge-base`) that run none of them;
* reads the repository's own config files with `git config --file … --no-includes` and refuses a
  repository that sets any key in `DANGEROUS` before it runs anything that checks files out;
* always passes `-c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat`, literal
  pathspecs, no prompts, and an allow-listed environment (`oms.process.child_env`).

Parsers of git output are pure functions (`parse_*`); the calls are thin.

An agent's worktree is never where host-side git runs (docs/adr/0024): `git` refuses a `repo` inside
a linked worktree unless this process is a tree job (`fsio/trees.refuse_agent_tree`). On the host
oms asks the main repository what it records of a worktree (`linked_worktree`: its admin dir, HEAD
and branch, never read through the worktree); everything that reads the worktree's files runs in a
tree job (`adapters/tree_work.py`), with the functions below.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from oms.errors import (
    CheckoutChangedError,
    NotARepositoryError,
    OmsError,
    ProcessFailedError,
    UnsafeRepositoryError,
    reason_line,
    shown,
)
from oms.fsio.outside import read_user_file
from oms.fsio.trees import agent_tree_of, refuse_agent_tree
from oms.limits import LIMITS
from oms.process import Completed, child_env, run

HARDENING = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    # a submodule (or a repository an agent nests) has a config of its own
    "submodule.recurse=false",
    "-c",
    "diff.ignoreSubmodules=all",
    "-c",
    "status.submoduleSummary=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
    "-c",
    # oms never fetches: a promisor remote's lazy fetch (or any transport) cannot start
    "protocol.allow=never",
    "--no-pager",
    "--literal-pathspecs",
)
# The user's global and system git config are not read either: a filter or diff driver the user
# configured (`git lfs install` writes one) would run on files an agent left, named by an
# agent-written `.gitattributes` (the escape suite made the user's `filter.lfs` run as the user on
# the host).
GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
    "GIT_ASKPASS": "/bin/false",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_NO_LAZY_FETCH": "1",  # (git 2.44+; older git is held by protocol.allow=never)
}
# Keys (lowercased, subsection as `*`) whose value is a command git may run.
DANGEROUS = (
    re.compile(r"core\.(fsmonitor|hookspath|pager|editor|sshcommand|askpass|alternaterefscommand)"),
    re.compile(r"filter\..+\.(clean|smudge|process)"),
    re.compile(r"diff\..+\.(textconv|command)"),
    re.compile(r"diff\.external"),
    re.compile(r"merge\..+\.driver"),
    re.compile(r"include\.path|includeif\..+\.path"),
    re.compile(r"gpg\.(program|.+\.program)"),
    re.compile(r"sequence\.editor|uploadpack\.packobjectshook|credential\..*helper"),
    re.compile(
        r"remote\..+\.(uploadpack|receivepack|vcs)|core\.gitproxy"
    ),  # commands a transport would run
)


@dataclass(frozen=True, slots=True)
class Worktree:
    """One entry of `git worktree list --porcelain`."""

    path: str
    head: str | None
    branch: str | None  # short name, None when detached or bare


def git(
    repo: str,
    *args: str,
    check: bool = True,
    timeout: float = LIMITS.git_timeout_s,
    max_output: int = LIMITS.git_output_bytes,
    stdin: bytes | None = None,
    index: str | None = None,
) -> Completed:
    """Run hardened git in `repo` (`index`: a private index file in place of the worktree's own);
    refused in an agent's worktree outside a tree job."""
    refuse_agent_tree(repo, "run git")
    env = child_env(GIT_ENV if index is None else {**GIT_ENV, "GIT_INDEX_FILE": index})
    argv = ("git", "-C", repo, *HARDENING, *args)
    return run(argv, env=env, timeout=timeout, max_output=max_output, check=check, stdin=stdin)


# ------------------------------------------------------------------ pure parsers
def parse_config_list(out: bytes) -> list[tuple[str, str]]:
    """`git config --list -z`: NUL-separated entries, key and value split by the first newline."""
    entries = []
    for item in out.split(b"\x00"):
        if not item:
            continue
        key, _, value = item.partition(b"\n")
        entries.append((key.decode("utf-8", "replace"), value.decode("utf-8", "replace")))
    return entries


def dangerous_keys(entries: list[tuple[str, str]]) -> list[str]:
    """The keys of `entries` that name a command git could run."""
    return sorted({key for key, _ in entries if any(p.fullmatch(key.lower()) for p in DANGEROUS)})


def parse_worktree_list(out: bytes) -> list[Worktree]:
    """`git worktree list --porcelain -z`."""
    found: list[Worktree] = []
    path: str | None = None
    head: str | None = None
    branch: str | None = None
    for field in [*out.split(b"\x00"), b""]:
        if not field:
            if path is not None:
                found.append(Worktree(path, head, branch))
            path = head = branch = None
            continue
        text = field.decode("utf-8", "surrogateescape")
        name, _, value = text.partition(" ")
        if name == "worktree":
            path = value
        elif name == "HEAD":
            head = value
        elif name == "branch":
            branch = value.removeprefix("refs/heads/")
    return found


def parse_ls_files_stage(out: bytes) -> list[tuple[str, str, int, str]]:
    """`git ls-files -s -z`: (mode, object id, stage, path) per entry."""
    entries = []
    for item in out.split(b"\x00"):
        if not item:
            continue
        meta, _, path = item.partition(b"\t")
        mode, obj, stage = meta.decode("ascii").split(" ")
        entries.append((mode, obj, int(stage), path.decode("utf-8", "surrogateescape")))
    return entries


def blob_id(data: bytes, object_format: str) -> str:
    """The object id git gives `data` as a blob."""
    header = b"blob %d\x00" % len(data)
    algo = hashlib.sha256 if object_format == "sha256" else hashlib.sha1
    return algo(header + data).hexdigest()


# ------------------------------------------------------------------ probes
def toplevel(path: str) -> str:
    """The real path of the working tree containing `path`."""
    try:
        out = git(path, "rev-parse", "--show-toplevel").text()
    except ProcessFailedError as exc:
        raise CheckoutChangedError(
            f"{path} is not a usable git working tree ({exc.message})",
            hint="run oms inside the git repository it works on (cd there, or pass --config-root)",
        ) from exc
    return os.path.realpath(out)


def repository_top(path: str) -> str:
    """The top level of the git working tree that holds `path`, found as git finds it (`rev-parse
    --show-toplevel` run there: `path`, then each parent), as a real path (ADR 0032).
    `NotARepositoryError` with git's reason where there is none; a folder inside a linked worktree
    (a ticket's, an agent's) is refused before git runs there (docs/adr/0024)."""
    where = shown(path)
    if not os.path.isdir(path):
        raise NotARepositoryError(f"{where} is not a folder")
    tree = agent_tree_of(path)
    if tree is not None:
        raise NotARepositoryError(
            f"{where} is in the linked worktree {shown(tree)}, not a repository's own working tree",
            hint="run oms in the repository the worktree belongs to",
        )
    done = git(path, "rev-parse", "--show-toplevel", check=False)
    top = done.stdout.decode("utf-8", "surrogateescape").removesuffix("\n")
    if done.returncode != 0 or not top:
        said = reason_line(done.stderr)
        if "not a git repository" in said:
            raise NotARepositoryError(f"{where} is not in a git repository")
        said = said or "git said nothing"
        raise NotARepositoryError(f"{where} is not in a usable git working tree ({said})")
    return os.path.realpath(top)


def git_dirs(repo: str) -> tuple[str, str]:
    """(the repository's own git dir, the common dir shared by its worktrees), absolute."""
    lines = git(repo, "rev-parse", "--absolute-git-dir", "--git-common-dir").text().splitlines()
    git_dir = lines[0]
    common = lines[1] if os.path.isabs(lines[1]) else os.path.normpath(os.path.join(repo, lines[1]))
    return git_dir, common


def object_format(repo: str) -> str:
    """`sha1` or `sha256`."""
    return git(repo, "rev-parse", "--show-object-format").text() or "sha1"


def resolve_commit(repo: str, rev: str) -> str | None:
    """The commit `rev` names, or None."""
    done = git(
        repo, "rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}", check=False
    )
    return done.text() if done.returncode == 0 and done.text() else None


def current_branch(repo: str) -> str | None:
    """The branch checked out in `repo`, or None when detached."""
    done = git(repo, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return done.text() if done.returncode == 0 else None


def branch_exists(repo: str, branch: str) -> bool:
    """True if `refs/heads/<branch>` exists."""
    return (
        git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", check=False).returncode
        == 0
    )


def worktrees(repo: str) -> list[Worktree]:
    """Every worktree of the repository."""
    return parse_worktree_list(git(repo, "worktree", "list", "--porcelain", "-z").stdout)


def is_ancestor(repo: str, ancestor: str, commit: str) -> bool:
    """True if `ancestor` is an ancestor of (or equal to) `commit`."""
    done = git(repo, "merge-base", "--is-ancestor", ancestor, commit, check=False)
    if done.returncode not in (0, 1):
        raise ProcessFailedError(done.argv, done.returncode, done.stderr)
    return done.returncode == 0


def committed_blob(repo: str, path: str, rev: str = "HEAD") -> tuple[str, bytes] | None:
    """(object id, bytes) of `path` at `rev`, or None if it is not there (or not a file). No filters
    run; one git process (`cat-file --batch`)."""
    return committed_blobs(repo, (path,), rev)[path]


def committed_blobs(
    repo: str, paths: tuple[str, ...], rev: str = "HEAD"
) -> dict[str, tuple[str, bytes] | None]:
    """`committed_blob` for several paths, read by one git process (one `cat-file --batch`)."""
    if any("\n" in p for p in paths) or "\n" in rev:
        raise ValueError("a path or revision with a newline cannot be asked for")
    asked = "".join(f"{rev}:{p}\n" for p in paths).encode()
    out = git(
        repo,
        "cat-file",
        "--batch",
        stdin=asked,
        max_output=len(paths) * (LIMITS.git_blob_bytes + 256),
    ).stdout
    found: dict[str, tuple[str, bytes] | None] = {}
    for path in paths:
        header, _, out = out.partition(b"\n")
        fields = header.split(b" ")
        if len(fields) != 3 or not fields[2].isdigit():
            found[path] = None  # "<name> missing" (no content follows)
            continue
        size = int(fields[2])
        if len(out) < size + 1 or out[size : size + 1] != b"\n":
            raise CheckoutChangedError(
                f"git cat-file returned {len(out)} bytes for an object of {size}"
            )
        content, out = out[:size], out[size + 1 :]
        found[path] = (
            (fields[0].decode("ascii"), content) if fields[1] == b"blob" else None
        )  # a tree: not a file
    return found


def index_entries(repo: str, path: str) -> list[tuple[str, str, int, str]]:
    """The index entries for exactly `path`."""
    return parse_ls_files_stage(git(repo, "ls-files", "-s", "-z", "--", path).stdout)


def repository_config(repo: str, gitdir: str | None = None) -> list[tuple[str, str]]:
    """The entries of the repository's own config files (not the user's), read without running
    anything: the common dir's `config` and the `config.worktree` of `repo`'s own git dir, or of
    `gitdir` (a linked worktree's, as `linked_worktree` names it: read from the main repository,
    never through the worktree)."""
    git_dir, common = git_dirs(repo)
    entries: list[tuple[str, str]] = []
    worktree_config = os.path.join(gitdir or git_dir, "config.worktree")
    for path in dict.fromkeys((os.path.join(common, "config"), worktree_config)):
        if os.path.isfile(path):
            entries += parse_config_list(
                git(repo, "config", "--file", path, "--no-includes", "--list", "-z").stdout
            )
    return entries


SHOWN_CONFIG = re.compile(
    r"core\.(repositoryformatversion|filemode|ignorecase|precomp"
    r"oseunicode|symlinks)|extensions\.[a-z0-9]+"
)
# Never shown (ADR 0029): `extensions.worktreeConfig`, with which git inside a sandbox would read
# the worktree's `config.worktree` (its admin dir is in the view), a second config file oms did not
# write; `core.ignoreCase`, which a repository made on a case-insensitive disk carries and with
# which `git status` would not list (so a salvage would not keep) an untracked file whose name
# differs from a tracked one in case alone (the disks oms runs on tell case apart).
NOT_SHOWN = frozenset({"extensions.worktreeconfig", "core.ignorecase"})


def sandbox_config(entries: list[tuple[str, str]]) -> str:
    """The repository config a worker's sandbox shows in its place (pure): only what git needs to
    read the repository (format version, extensions such as the object format, file-system quirks),
    never remotes, credentials, hooks or anything else the user keeps there — nor per-worktree
    config: git inside reads this file and no other (so no repository setting reaches a tree job,
    ADR 0029)."""
    sections: dict[str, list[str]] = {}
    for key, value in entries:
        lowered = key.lower()
        if SHOWN_CONFIG.fullmatch(lowered) is None or lowered in NOT_SHOWN:
            continue
        if any(c in value for c in '\n\r"\\\x00'):
            continue
        section, _, name = lowered.partition(".")
        sections.setdefault(section, []).append(f'\t{name} = "{value}"')
    sections.setdefault("core", []).append("\tbare = false")
    return "".join(
        f"[{section}]\n" + "\n".join(lines) + "\n" for section, lines in sections.items()
    )


def refuse_unsafe_config(repo: str, gitdir: str | None = None) -> list[tuple[str, str]]:
    """Raise `UnsafeRepositoryError` if the repository's config (with `gitdir`'s `config.worktree`:
    a linked worktree's) names a command git could run; else its entries."""
    entries = repository_config(repo, gitdir)
    keys = dangerous_keys(entries)
    if keys:
        raise UnsafeRepositoryError(
            f"repository {repo} config sets {', '.join(keys)}, which would run code"
        )
    return entries


def add_worktree(repo: str, path: str, branch: str, base: str) -> None:
    """`git worktree add -b <branch> <path> <base>`, hooks and fsmonitor disabled (config checked
    first)."""
    refuse_unsafe_config(repo)
    git(repo, "worktree", "add", "--quiet", "-b", branch, path, base, timeout=120.0)


def readd_worktree(repo: str, path: str, branch: str) -> None:
    """`git worktree add <path> <branch>`: a worktree made again on its existing branch, where the
    old one is gone (hooks and fsmonitor disabled, the config checked first)."""
    refuse_unsafe_config(repo)
    git(repo, "worktree", "add", "--quiet", path, branch, timeout=120.0)


def forget_worktree(repo: str, path: str) -> None:
    """Drop the registration of a worktree whose folder is gone (`git worktree remove --force`:
    its admin dir; git refuses a locked one)."""
    git(repo, "worktree", "remove", "--force", path, timeout=120.0)


def staged(repo: str, gitdir: str, head: str) -> bool:
    """Does the index in a linked worktree's admin dir `gitdir` hold anything `head` does not
    (staged changes)? Read in the main repository (`diff-index --cached`: the index against the
    tree, no file of the worktree); an index that cannot be compared counts as holding something."""
    index = os.path.join(gitdir, "index")
    if not os.path.lexists(index):
        return False
    done = git(repo, "diff-index", "--cached", "--quiet", head, "--", index=index, check=False)
    return done.returncode != 0


def status_entries(repo: str) -> list[bytes]:
    """`git status --porcelain=v2 -z` entries, untracked included (call only after
    `refuse_unsafe_config`).

    Submodules are never entered (`--ignore-submodules=all`): git would run `status` inside each
    with that repository's own config — clean filters, fsmonitor — which oms never checked (an agent
    that nests a repository in its worktree could make oms run its code on the host). A nested
    repository shows as an untracked `path/` entry; `nested_repositories` finds them."""
    out = git(
        repo,
        "--no-optional-locks",
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=all",
    ).stdout
    return [entry for entry in out.split(b"\x00") if entry]


def ignored_paths(repo: str) -> list[str]:
    """The ignored paths in the worktree (an ignored directory once, as `dir/`; a nested repository
    the same way; empty directories not). `status` never lists them, yet what an earlier attempt
    left there is loaded by what runs next: instructions and skills an agent CLI reads at any depth
    (`AGENTS.md`, `CLAUDE.md`, `.agents/skills/`, ...), a `.pyc` or `node_modules/` the approved
    program imports. Call after `refuse_unsafe_config`."""
    out = git(
        repo, "--no-optional-locks", "ls-files", "-z", "--others", "--ignored",
        "--exclude-standard", "--directory", "--no-empty-directory",
    ).stdout  # fmt: skip
    return [entry.decode("utf-8", "surrogateescape") for entry in out.split(b"\x00") if entry]


@dataclass(frozen=True, slots=True)
class Linked:
    """A linked worktree as its main repository records it (`linked_worktree`)."""

    worktree: str  # its real path
    gitdir: str  # <common>/worktrees/<name>
    common: str  # the repository's own `.git`
    head: str | None
    branch: str | None


def linked_worktree(repository: str, worktree: str) -> Linked:
    """What `repository` records of its linked worktree `worktree`, never asking git inside it: the
    worktree must be listed by `git worktree list` (its HEAD and branch come from there), and have
    its admin dir `<repository>/.git/worktrees/<name>` whose back-pointer (`gitdir`) names
    `<worktree>/.git` (read from the admin dir, which only oms and the user write). That the
    worktree's own `.git` points back is checked inside the tree job (`adapters/tree_work.py`),
    where git reads it."""
    own = os.path.join(repository, ".git")
    if not os.path.isdir(own) or os.path.islink(own):
        what = "has no .git directory of its own (not a main worktree)"
        raise CheckoutChangedError(f"{repository} {what}")
    common = os.path.realpath(own)
    real = os.path.realpath(worktree)
    listed = [w for w in worktrees(repository) if w.path != repository]
    listed = [w for w in listed if os.path.realpath(w.path) == real]
    if not listed:
        raise CheckoutChangedError(f"worktree {worktree} is not one git lists for {repository}")
    admin = os.path.join(common, "worktrees")
    back = os.path.join(real, ".git").encode("utf-8", "surrogateescape")
    names = sorted(os.listdir(admin)) if os.path.isdir(admin) else []
    for name in names:
        try:
            pointer_path = os.path.join(admin, name, "gitdir")
            pointer = read_user_file(pointer_path, LIMITS.gitdir_pointer_bytes)
            pointer = pointer.strip()
        except OmsError:
            continue
        if os.path.normpath(pointer) == back:
            gitdir = os.path.join(admin, name)
            return Linked(real, gitdir, common, listed[0].head, listed[0].branch)
    raise CheckoutChangedError(f"worktree {worktree} has no git dir in {admin} that names it")


def parse_status_paths(entries: list[bytes]) -> list[str]:
    """The paths `git status --porcelain=v2 -z` entries name for staging (pure): changed, renamed
    (both names), unmerged and untracked files — never a submodule (`S…` entries) nor an untracked
    repository (`? path/`), which oms does not commit."""
    paths: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        kind = entry[:2]
        if kind in (b"1 ", b"2 ", b"u "):
            fields = entry.split(b" ", {b"1 ": 8, b"2 ": 9, b"u ": 10}[kind])
            if len(fields) < 3 or fields[2].startswith(b"S"):
                if kind == b"2 ":
                    i += 1  # its original path follows
                continue
            paths.append(fields[-1].decode("utf-8", "surrogateescape"))
            if kind == b"2 " and i < len(entries):
                paths.append(entries[i].decode("utf-8", "surrogateescape"))
                i += 1
        elif kind == b"? " and not entry.endswith(b"/"):
            paths.append(entry[2:].decode("utf-8", "surrogateescape"))
    return paths


def gitlinks(repo: str, rev: str | None = None, *, index: str | None = None) -> set[str]:
    """Paths recorded as gitlinks (mode 160000): in the index (or the private `index`), or in the
    tree of `rev`."""
    if rev is None:
        out = git(repo, "ls-files", "-s", "-z", index=index).stdout
        entries = (e for e in out.split(b"\x00") if e)
        return {
            e.split(b"\t", 1)[1].decode("utf-8", "replace")
            for e in entries
            if e.startswith(b"160000 ")
        }
    out = git(repo, "ls-tree", "-r", "-z", "--full-tree", rev).stdout
    entries = (e for e in out.split(b"\x00") if e)
    return {
        e.split(b"\t", 1)[1].decode("utf-8", "replace") for e in entries if e.startswith(b"160000 ")
    }


def submodules_moved(repo: str) -> list[str]:
    """Gitlinks of HEAD whose checked-out submodule is not at the recorded commit (or cannot be
    read).

    Compared at object level: `rev-parse HEAD` inside each submodule (hardened: no fsmonitor, no
    hooks; it runs no filter), never `status` in it, which would run the submodule's own config."""
    moved: list[str] = []
    for path in sorted(gitlinks(repo, "HEAD")):
        recorded = git(
            repo, "rev-parse", "--verify", "-q", "--end-of-options", f"HEAD:{path}", check=False
        ).text()
        inside = os.path.join(repo, path)
        if not os.path.lexists(os.path.join(inside, ".git")):
            continue  # not checked out: nothing there to differ
        done = git(inside, "rev-parse", "--verify", "-q", "HEAD", check=False)
        if done.returncode != 0 or done.text() != recorded:
            moved.append(path)
    return moved


def nested_repositories(repo: str) -> list[str]:
    """Untracked repositories inside `repo`'s working tree (git lists each as `path/`, never
    entering it)."""
    out = git(repo, "ls-files", "-z", "--others").stdout
    return [
        entry.decode("utf-8", "replace") for entry in out.split(b"\x00") if entry.endswith(b"/")
    ]


def reset_hard(repo: str, commit: str) -> None:
    """`reset --hard <commit>` of a clean tree (call only after `refuse_unsafe_config`)."""
    git(repo, "reset", "-q", "--hard", commit, timeout=120.0)


OMS_IDENTITY = ("oms", "oms@localhost.invalid")


def init_repository(path: str) -> None:
    """`git init -b main` a new repository (for `oms demo`)."""
    git(path, "init", "--quiet", "--initial-branch", "main")


def commit_all(repo: str, message: str, author: tuple[str, str] = OMS_IDENTITY) -> str:
    """Stage every changed and untracked file (not a submodule, not a repository) and commit it as
    `author` (name, email); returns the new HEAD. The config is checked first (filters, fsmonitor,
    hooks); hooks never run; nothing is signed; no submodule is entered."""
    refuse_unsafe_config(repo)
    name, email = author
    identity = (
        "-c",
        f"user.name={name}",
        "-c",
        f"user.email={email}",
        "-c",
        "commit.gpgsign=false",
    )
    born = resolve_commit(repo, "HEAD") is not None
    before = gitlinks(repo, "HEAD") if born else set()
    paths = parse_status_paths(status_entries(repo))
    if (
        paths
    ):  # named one by one: `add --all` would run `status` inside every submodule, with its config
        listed = b"".join(p.encode("utf-8", "surrogateescape") + b"\x00" for p in paths)
        git(
            repo,
            "add",
            "--all",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            stdin=listed,
            timeout=120.0,
        )
    added = sorted(gitlinks(repo) - before)
    # a repository appeared after it was looked for (an agent can race the check): never commit it
    if added:
        git(
            repo, "read-tree", *(("HEAD",) if born else ("--empty",))
        )  # plumbing: no checkout, filter, hook
        raise CheckoutChangedError(
            f"the worktree holds a git repository at "
            f"{added[0][:200]}; oms commits files, not repositories"
        )
    git(repo, *identity, "commit", "--quiet", "--no-verify", "--message", message, timeout=120.0)
    head = resolve_commit(repo, "HEAD")
    if head is None:
        raise ProcessFailedError(("git", "commit"), 1, b"no HEAD after commit")
    return head


# A person as git shows one: `Name <email>` (what `--author` takes; no `<`, `>`, control character).
_PERSON = re.compile(r"\s*([^<>\x00-\x1f\x7f]*[^<>\s\x00-\x1f\x7f])\s*<([^<>\s\x00-\x1f\x7f]+)>\s*")
_IDENT = re.compile(r"(.*) <([^<>]*)> [0-9]+ [+-][0-9]{4}")  # `git var GIT_AUTHOR_IDENT`
# What git reads for an identity besides its config (`git var`), kept for that one call.
IDENTITY_ENV = (
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "EMAIL",
)


def parse_person(text: str) -> tuple[str, str] | None:
    """(name, email) of `Name <email>`, or None when it is not one (at most 256 characters)."""
    found = _PERSON.fullmatch(text) if len(text) <= LIMITS.git_person_chars else None
    return None if found is None else (found.group(1), found.group(2))


def known_person(repo: str) -> tuple[str, str] | None:
    """Who git would say commits in `repo` — its author identity, as `git var GIT_AUTHOR_IDENT`
    gives it from the environment and every config git reads, the user's global one included (only
    read: nothing it names runs) — or None when git does not know (it would refuse to commit)."""
    refuse_agent_tree(repo, "run git")
    drop = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")
    env = child_env({k: v for k, v in GIT_ENV.items() if k not in drop}, keep=IDENTITY_ENV)
    argv = ("git", "-C", repo, *HARDENING, "var", "GIT_AUTHOR_IDENT")
    done = run(argv, env=env, timeout=30.0, check=False)
    found = _IDENT.fullmatch(done.text()) if done.returncode == 0 else None
    if found is None or not found.group(1).strip() or not found.group(2).strip():
        return None
    return found.group(1), found.group(2)


def keep_person(repo: str, person: tuple[str, str]) -> None:
    """Set `user.name` and `user.email` in the repository's own git config (`git config --local`:
    what git itself asks a person to set), where git and oms find them next time."""
    for key, value in zip(("user.name", "user.email"), person, strict=True):
        git(repo, "config", "--local", key, value)


def as_person(person: tuple[str, str]) -> tuple[str, ...]:
    """git's options to commit as `person` (name, email), unsigned."""
    name, email = person
    return ("-c", f"user.name={name}", "-c", f"user.email={email}", "-c", "commit.gpgsign=false")


def commit_paths(
    repo: str,
    paths: tuple[str, ...],
    message: str,
    person: tuple[str, str],
) -> str:
    """Commit exactly `paths` (added first; nothing else that is staged) as `person` (name, email),
    no hook run, nothing signed; the new HEAD. (`oms init --commit`: the person asked for it.)"""
    refuse_unsafe_config(repo)
    git(repo, "add", "--", *paths)
    argv = ("commit", "--quiet", "--no-verify", "--message", message, "--", *paths)
    git(repo, *as_person(person), *argv)
    head = resolve_commit(repo, "HEAD")
    if head is None:
        raise ProcessFailedError(("git", "commit"), 1, b"no HEAD after commit")
    return head


def move_branch(repo: str, branch: str, new: str, old: str) -> None:
    """Point `refs/heads/<branch>` at `new` only if it is still `old` (atomic; `repo`: the main
    repository)."""
    if git(repo, "update-ref", f"refs/heads/{branch}", new, old, check=False).returncode != 0:
        what = "moved while oms recorded its result; it was left as it was"
        raise CheckoutChangedError(f"branch {branch} {what}")


def follow_branch(repo: str, gitdir: str, old: str, new: str) -> None:
    """Bring a linked worktree's index from `old` to `new` once oms moved its branch (`read-tree -m
    -i`: the index alone, from the main repository's objects into `<gitdir>/index`; no file of the
    worktree is read or written, entries that did not change keep what git knew of them)."""
    index = os.path.join(gitdir, "index")
    if git(repo, "read-tree", "-m", "-i", old, new, index=index, check=False).returncode != 0:
        git(repo, "read-tree", new, index=index)  # an index not at `old`: the tree of `new` alone


def keep_ref(repo: str, ref: str, commit: str) -> None:
    """Point `ref` at `commit` (so a reset never makes work unreachable)."""
    git(repo, "update-ref", ref, commit)

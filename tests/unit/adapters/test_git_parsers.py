"""Pure parsers of git output: round trips against generated input, and the danger list."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.adapters import git

keys = st.from_regex(r"[a-z]{1,8}(\.[A-Za-z0-9 _-]{1,8})?\.[a-z]{1,8}", fullmatch=True)
values = st.text(alphabet=st.characters(blacklist_characters="\x00", codec="utf-8"), max_size=30)


@given(st.lists(st.tuples(keys, values), max_size=10))
def test_config_list_round_trip(entries: list[tuple[str, str]]) -> None:
    raw = b"".join(f"{k}\n{v}".encode() + b"\x00" for k, v in entries)
    assert git.parse_config_list(raw) == entries


@pytest.mark.parametrize(
    ("key", "dangerous"),
    [
        ("core.fsmonitor", True),
        ("CORE.FSMONITOR", True),
        ("filter.lfs.smudge", True),
        ("filter.x.process", True),
        ("diff.x.textconv", True),
        ("include.path", True),
        ("includeif.gitdir:/x.path", True),
        ("core.hookspath", True),
        ("credential.helper", True),
        ("gpg.ssh.program", True),
        ("merge.ours.driver", True),
        ("core.autocrlf", False),
        ("user.name", False),
        ("filter.lfs.required", False),
        ("remote.origin.url", False),
    ],
)
def test_danger_list(key: str, dangerous: bool) -> None:
    assert bool(git.dangerous_keys([(key, "x")])) is dangerous


@given(
    st.lists(
        st.tuples(
            st.text(alphabet="abc/ -_.", min_size=1, max_size=20).map(lambda s: "/" + s),
            st.one_of(st.none(), st.from_regex(r"[0-9a-f]{40}", fullmatch=True)),
            st.one_of(st.none(), st.from_regex(r"[a-z]{1,5}(/[a-z0-9-]{1,8})?", fullmatch=True)),
        ),
        max_size=5,
    )
)
def test_worktree_list_round_trip(items: list[tuple[str, str | None, str | None]]) -> None:
    raw = b""
    for path, head, branch in items:
        raw += f"worktree {path}".encode() + b"\x00"
        if head:
            raw += f"HEAD {head}".encode() + b"\x00"
        raw += (f"branch refs/heads/{branch}" if branch else "detached").encode() + b"\x00"
        raw += b"\x00"
    parsed = git.parse_worktree_list(raw)
    assert [(w.path, w.head, w.branch) for w in parsed] == items


@given(st.binary(max_size=200))
def test_blob_id_matches_git(data: bytes) -> None:
    assert git.blob_id(data, "sha1") == hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()  # noqa: S324


def test_blob_id_and_index_against_real_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f").write_bytes(b"hello\n\x00binary")
    subprocess.run(["git", "add", "f"], cwd=tmp_path, check=True)
    oid = subprocess.run(
        ["git", "hash-object", "f"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert git.blob_id((tmp_path / "f").read_bytes(), "sha1") == oid
    [(mode, obj, stage, path)] = git.index_entries(str(tmp_path), "f")
    assert (mode, obj, stage, path) == ("100644", oid, 0, "f")


@given(st.binary(max_size=300))
def test_parsers_never_crash_on_garbage(data: bytes) -> None:
    git.parse_config_list(data)
    git.parse_worktree_list(data)
    try:
        git.parse_ls_files_stage(data)
    except (ValueError, UnicodeDecodeError):
        pass  # ls-files output is produced by git itself; malformed input is reported by the caller


def test_the_sandbox_sees_only_the_config_git_needs() -> None:
    entries = [
        ("core.repositoryformatversion", "1"),
        ("core.fileMode", "true"),
        ("extensions.objectFormat", "sha256"),
        ("remote.origin.url", "https://user:token@example.com/r.git"),
        ("http.extraHeader", "Authorization: Bearer secret"),
        ("core.hooksPath", "/tmp/evil"),
        ("credential.helper", "store"),
        ("user.email", "me@example.com"),
        ("extensions.weird", 'a"b'),
        ("extensions.worktreeConfig", "true"),  # git inside would read the worktree's own config
        ("core.ignoreCase", "true"),  # `git status` would hide a name that differs in case alone
    ]
    shown = git.sandbox_config(entries)
    assert shown == (
        '[core]\n\trepositoryformatversion = "1"\n\tfilemode = "true"\n\tbare = false\n'
        '[extensions]\n\tobjectformat = "sha256"\n'
    )
    secrets = ["token", "Bearer", "hooks", "credential", "me@example.com", "weird"]
    secrets += ["worktreeconfig", "ignorecase"]
    for secret in secrets:
        assert secret not in shown


_paths = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\x00/ "), min_size=1, max_size=12
)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "u", "?", "!", "?repo"]), st.booleans(), _paths, _paths
        ),
        max_size=12,
    )
)
def test_status_paths_are_every_file_and_never_a_submodule_or_repository(
    items: list[tuple[str, bool, str, str]],
) -> None:
    entries: list[bytes] = []
    expected: list[str] = []
    for kind, submodule, path, orig in items:
        sub = "SC.." if submodule else "N..."
        if kind == "1":
            entries.append(f"1 .M {sub} 100644 100644 100644 {'a' * 40} {'b' * 40} {path}".encode())
            expected += [] if submodule else [path]
        elif kind == "2":
            entries += [
                f"2 R. {sub} 100644 100644 100644 {'a' * 40} {'b' * 40} R100 {path}".encode(),
                orig.encode(),
            ]
            expected += [] if submodule else [path, orig]
        elif kind == "u":
            entry = (
                f"u UU {sub} 100644 100644 100644 100644 {'a' * 40} {'b' * 40} {'c' * 40} {path}"
            )
            entries.append(entry.encode())
            expected += [] if submodule else [path]
        elif kind == "?":
            entries.append(f"? {path}".encode())
            expected.append(path)
        elif kind == "?repo":
            entries.append(f"? {path}/".encode())  # an untracked repository: never staged
        else:
            entries.append(f"! {path}".encode())  # ignored: never staged
    assert git.parse_status_paths(entries) == expected


def test_status_paths_keep_spaces_in_names() -> None:
    entry = (
        f"1 .M N... 100644 100644 100644 {'a' * 40} {'b' * 40} dir/a file with spaces.txt".encode()
    )
    assert git.parse_status_paths([entry, b"? new file.txt"]) == [
        "dir/a file with spaces.txt",
        "new file.txt",
    ]


@given(
    st.lists(st.binary(max_size=300), min_size=1, max_size=4, unique=True),
    st.data(),
)
def test_several_committed_blobs_read_by_one_process_equal_one_by_one(
    contents: list[bytes], data: st.DataObject
) -> None:
    """`committed_blobs` (one `cat-file --batch`) answers exactly what `committed_blob` answers path
    by path: files of any bytes (newlines included), a missing path, a directory (a tree: not a
    file)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        names = [f"d/f{i} x.txt" for i in range(len(contents))]
        for name, content in zip(names, contents, strict=True):
            (repo / name).parent.mkdir(exist_ok=True)
            (repo / name).write_bytes(content)
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
        env = {
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        }
        subprocess.run(
            ["git", "-C", str(repo), "commit", "-q", "-m", "x"],
            check=True,
            env={**env, "PATH": "/usr/bin:/bin"},
        )
        asked = tuple(data.draw(st.permutations([*names, "missing.txt", "d"])))
        together = git.committed_blobs(str(repo), asked)
        assert together == {path: git.committed_blob(str(repo), path) for path in asked}
        for name, content in zip(names, contents, strict=True):
            found = together[name]
            assert found is not None
            assert found[1] == content
        assert together["missing.txt"] is None
        assert together["d"] is None

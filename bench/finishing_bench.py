"""Finishing-work benchmark (issue 14, ADR 0021): what a salvage costs against `git status` of the
same worktree, and what the sandbox adds to a check against running it directly.

    .venv/bin/python bench/finishing_bench.py [--samples 20] [--files 10,1000,10000]

Salvage: a repository with `--files` changed or untracked files; `salvage_git.snapshot` (private
index, the files read by oms and written by one `git fast-import`, write-tree, commit-tree) against
`git status --porcelain` of the same tree, interleaved; and the same salvage of an agent's linked
worktree as oms runs it, in its tree job (docs/adr/0024: bubblewrap, `oms worker tree-job`). Checks:
`true` run directly, and in the check sandbox (`adapters/check_sandbox.py`), interleaved. Prints
medians and ratios; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, pin_scratch_git, print_ratio, table, time_interleaved
from oms.adapters import bwrap, git, salvage_git, seccomp, tree_job
from oms.adapters.check_sandbox import check_argv
from oms.process import child_env, data_fd, run_bounded


def _repo(path: Path, files: int) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    for i in range(files // 2):
        (path / f"t{i}.txt").write_text(f"tracked {i}\n")
    subprocess.run(["git", "-C", str(path), "add", "-A"], check=True)
    commit = ["git", "-C", str(path), "commit", "-q", "--allow-empty", "-m", "base"]
    subprocess.run(commit, check=True)
    for i in range(files // 2):
        (path / f"t{i}.txt").write_text(f"changed {i}\n")
    for i in range(files - files // 2):
        sub = path / f"new{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"u{i}.txt").write_text(f"untracked {i}\n")


def _worktree(base: Path, files: int) -> tuple[Path, Path]:
    """A repository and a linked worktree of it holding `files` changed or untracked files."""
    names = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
    env = {**os.environ, **dict(zip(names, ("b", "b@x", "b", "b@x"), strict=True))}
    repo, wt = base / "main", base / "wt"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    for i in range(files // 2):
        (repo / f"t{i}.txt").write_text(f"tracked {i}\n")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    commit = ["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "base"]
    subprocess.run(commit, check=True, env=env)
    add = ["git", "-C", str(repo), "worktree", "add", "-q", "-b", "w", str(wt)]
    subprocess.run(add, check=True, env=env)
    for i in range(files // 2):
        (wt / f"t{i}.txt").write_text(f"changed {i}\n")
    for i in range(files - files // 2):
        sub = wt / f"new{i % 10}"
        sub.mkdir(exist_ok=True)
        (sub / f"u{i}.txt").write_text(f"untracked {i}\n")
    return repo, wt


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--files", default="10,1000,10000")
    args = parser.parse_args()
    pin_scratch_git()
    rows = []
    ratios: list[tuple[str, float, str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for files in (int(n) for n in args.files.split(",")):
            repo = Path(tmp) / f"r{files}"
            _repo(repo, files)
            status = ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"]
            cases = {
                "git status": lambda status=status: subprocess.run(
                    status, capture_output=True, check=True
                ),
                "salvage": lambda repo=repo: salvage_git.snapshot(str(repo), "bench"),
            }
            got = time_interleaved(cases, args.samples)
            base, took = median_ms(got["git status"]), median_ms(got["salvage"])
            rows.append(
                [
                    f"salvage, {files} changed files",
                    f"{base:.1f}",
                    f"{took:.1f}",
                    f"{took / base:.2f}",
                ]
            )
            case = f"salvage, {files} changed files"
            ratios.append((case, took, "git status of the same tree", base))
            main_repo, wt = _worktree(Path(tmp) / f"w{files}", files)
            linked = git.linked_worktree(str(main_repo), str(wt))
            job = {"head": linked.head, "message": "bench"}
            status = ["git", "-C", str(wt), "status", "--porcelain", "--untracked-files=all"]

            def look(status: list[str] = status) -> None:
                subprocess.run(status, capture_output=True, check=True)

            cases = {
                "git status": look,
                "tree job": lambda repo=main_repo, linked=linked, job=job: tree_job.run_job(
                    "salvage", str(repo), linked, job, writable=("objects",)
                ),
            }
            got = time_interleaved(cases, args.samples)
            base, took = median_ms(got["git status"]), median_ms(got["tree job"])
            ratio = f"{took / base:.2f}"
            rows.append([f"salvage in its tree job, {files}", f"{base:.1f}", f"{took:.1f}", ratio])
            case = f"salvage in its tree job, {files} changed files"
            ratios.append((case, took, "git status of the same worktree", base))
        checkout = Path(tmp) / "checkout"
        checkout.mkdir()
        filter_fd = data_fd(seccomp.encode(seccomp.program(os.uname().machine)))
        sandboxed = check_argv(
            bwrap.locate(), bwrap.host(), str(checkout), (), ("true",), filter_fd
        )
        env = child_env()

        def in_sandbox() -> None:
            os.lseek(
                filter_fd, 0, os.SEEK_SET
            )  # bubblewrap reads the filter from where the offset is
            run_bounded(sandboxed, env=env, timeout=30, max_output=1024, pass_fds=(filter_fd,))

        cases = {
            "direct": lambda: run_bounded(["/bin/true"], env=env, timeout=30, max_output=1024),
            "sandboxed": in_sandbox,
        }
        got = time_interleaved(cases, args.samples)
        base, took = median_ms(got["direct"]), median_ms(got["sandboxed"])
        rows.append(["a check (`true`)", f"{base:.1f}", f"{took:.1f}", f"{took / base:.2f}"])
        case = "a check (`true`) in the check sandbox"
        ratios.append((case, took, "`/bin/true` run directly", base))
    print(table(["case (median ms)", "baseline", "oms", "ratio"], rows))
    print(
        "baselines: `git status --porcelain --untracked-files=all` "
        "of the same tree; `/bin/true` run directly"
    )
    print()
    for case, took, baseline, base in ratios:
        print_ratio(case, took, baseline, base)


if __name__ == "__main__":
    main()

"""Pushing a result's branch and opening its pull request (`oms result publish`, ADR 0040).

Git pushes the exact result commit (an object id) to `refs/heads/<branch>` on a named remote;
GitHub is reached through the real `gh` CLI, its REST API only (`gh api`), the request's body as
JSON on stdin. Every name that reaches an argv is checked first (`check_remote`, `check_repo`,
`check_branch`) and comes after `--end-of-options` (git) or `--` (gh), so a hostile branch name,
title or summary cannot become an option; titles and bodies never reach an argv at all. No shell.

The push allows only the `https`, `ssh` and `file` transports (never `ext::`, which runs a
command). The user's own git configuration is read for the push (its credential helper), the
repository's is refused first if it names a command (`git.refuse_unsafe_config`).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from oms.adapters import git
from oms.adapters.git import GIT_ENV, HARDENING
from oms.canonical import JsonObject
from oms.canonical.strict_json import loads_foreign
from oms.errors import InvalidInputError, ProcessError, ProcessFailedError, reason_line
from oms.fsio.trees import refuse_agent_tree
from oms.limits import LIMITS
from oms.process import child_env, run, which

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
_BRANCH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}")
# What `gh` may see of the person's environment: its host, token, configuration and TLS roots.
GH_KEEP = (
    "GH_HOST",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "GH_CONFIG_DIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTPS_PROXY",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
)
PUSH_PROTOCOLS = (
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.https.allow=always",
    "-c",
    "protocol.ssh.allow=always",
    "-c",
    "protocol.file.allow=always",
)


def check_remote(name: str) -> str:
    """A remote's name as oms passes it to git: letters, digits, `_.-`, not led by `-`."""
    if not _NAME.fullmatch(name):
        raise InvalidInputError(f"{name[:100]!r} is not a remote name oms passes to git")
    return name


def check_repo(name: str) -> str:
    """`OWNER/NAME` of a GitHub repository, each part as GitHub allows it."""
    owner, _, repo = name.partition("/")
    if not (_NAME.fullmatch(owner) and _NAME.fullmatch(repo.removesuffix(".git"))):
        raise InvalidInputError(
            f"{name[:200]!r} is not a GitHub repository (OWNER/NAME)",
            hint="pass --github-repo OWNER/NAME",
        )
    return f"{owner}/{repo.removesuffix('.git')}"


def check_branch(name: str) -> str:
    """A branch name oms pushes to or asks a pull request into (no `-` first, no `..`, no `:`)."""
    if not _BRANCH.fullmatch(name) or ".." in name or name.endswith((".lock", "/", ".")):
        raise InvalidInputError(f"{name[:200]!r} is not a branch name oms publishes")
    return name


def check_labels(names: list[str]) -> list[str]:
    """The labels a person asks a pull request to carry: at most `LIMITS.publish_labels`, each one
    line of 1-50 characters (GitHub's bound) with no control character; sent as JSON values, never
    as arguments. Duplicates dropped, the order kept."""
    if len(names) > LIMITS.publish_labels:
        raise InvalidInputError(
            f"{len(names)} labels: a pull request gets at most {LIMITS.publish_labels}"
        )
    for name in names:
        if not 1 <= len(name) <= 50 or name != name.strip() or not name.isprintable():
            raise InvalidInputError(
                f"{name[:60]!r} is not a label oms sets (1-50 printable characters)",
                hint="name a label as GitHub shows it, e.g. --label bug",
            )
    return list(dict.fromkeys(names))


def github_of(url: str) -> tuple[str, str] | None:
    """(host, OWNER/NAME) of a remote URL that names a GitHub repository (`https://host/o/r.git`,
    `ssh://git@host/o/r.git`, `git@host:o/r.git`), or None."""
    m = re.fullmatch(r"(?:https|ssh)://(?:[^@/]+@)?([^/:]+)(?::\d+)?/([^/]+/[^/]+?)/?", url)
    if m is None:
        m = re.fullmatch(r"[A-Za-z0-9_.-]+@([^/:]+):([^/]+/[^/]+?)/?", url)
    if m is None:
        return None
    try:
        return m.group(1), check_repo(m.group(2))
    except InvalidInputError:
        return None


def remote_url(repo: str, remote: str) -> str:
    """The URL `remote` is configured with in `repo` (read from git's object-level config)."""
    found = git.git(
        repo, "config", "--get", "--end-of-options", f"remote.{remote}.url", check=False
    )
    if found.returncode != 0 or not found.text():
        raise InvalidInputError(
            f"the repository has no remote {remote!r}",
            hint="add one (`git remote add`) or --remote",
        )
    return found.text()


def push(repo: str, remote: str, commit: str, branch: str) -> None:
    """Push `commit` to `refs/heads/<branch>` on `remote` (never forced: a branch that moved
    elsewhere is refused by the remote, in one line)."""
    refuse_agent_tree(repo, "push")
    env = child_env(
        {k: v for k, v in GIT_ENV.items() if k not in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")},
        keep=("SSH_AUTH_SOCK",),
    )
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        raise InvalidInputError(f"{commit[:80]!r} is not an object id")
    argv = (
        "git",
        "-C",
        repo,
        *HARDENING,
        *PUSH_PROTOCOLS,
        "push",
        "--porcelain",
        "--no-verify",
        "--end-of-options",
        check_remote(remote),
        f"{commit}:refs/heads/{check_branch(branch)}",
    )
    try:
        run(argv, env=env, timeout=LIMITS.process_timeout_s, max_output=1024 * 1024)
    except ProcessFailedError as exc:
        raise ProcessError(
            f"git push to {remote} refused {branch}: {reason_line(exc.stderr)}",
            hint="see git's reason; oms never force-pushes",
        ) from exc


@dataclass(frozen=True, slots=True)
class PullRequest:
    """A pull request as GitHub answers it."""

    number: int
    url: str
    state: str
    draft: bool = False


def _pr(doc: object) -> PullRequest:
    if not isinstance(doc, dict) or not isinstance(doc.get("number"), int):
        raise ProcessError("gh answered without a pull request")
    return PullRequest(
        doc["number"],
        str(doc.get("html_url", "")),
        str(doc.get("state", "")),
        doc.get("draft") is True,
    )


class GitHub:
    """`gh api` for one repository, on one host (None: gh's own default, or GH_HOST)."""

    def __init__(self, repo: str, host: str | None) -> None:
        self.repo = check_repo(repo)
        self.host = host

    def _api(self, method: str, path: str, body: JsonObject | None = None) -> object:
        gh = which("gh")
        if gh is None:
            from oms.errors import ToolNotFoundError

            raise ToolNotFoundError(
                "gh is not installed", hint="install it (Debian: apt install gh)"
            )
        extra = {"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}
        if self.host is not None and self.host != "github.com":
            extra["GH_HOST"] = self.host
        env = child_env(extra, keep=GH_KEEP)
        argv = [gh, "api", "--method", method]
        if body is not None:
            argv += ["--input", "-"]
        argv += ["--", f"repos/{self.repo}/{path}"]
        data = None if body is None else json.dumps(body).encode()
        try:
            done = run(argv, env=env, stdin=data, max_output=LIMITS.publish_output_bytes)
        except ProcessFailedError as exc:
            raise ProcessError(
                f"gh api {method} {self.repo}: {reason_line(exc.stderr)}",
                hint="`gh auth status` says whether gh is logged in to that host",
            ) from exc
        try:
            return loads_foreign(done.stdout or b"null")
        except ValueError as exc:
            raise ProcessError(f"gh answered {method} {path} with no JSON") from exc

    def open_for(self, branch: str) -> PullRequest | None:
        """The open pull request from `branch` (of this repository), if there is one."""
        owner = self.repo.split("/")[0]
        head = urllib.parse.quote(f"{owner}:{check_branch(branch)}", safe="")
        found = self._api("GET", f"pulls?head={head}&state=open")
        if not isinstance(found, list) or not found:
            return None
        return _pr(found[0])

    def create(
        self, *, branch: str, base: str, title: str, body: str, draft: bool = False
    ) -> PullRequest:
        """Open a pull request of `branch` into `base` (`draft`: as a draft)."""
        doc: JsonObject = {
            "head": check_branch(branch),
            "base": check_branch(base),
            "title": title,
            "body": body,
            "draft": draft,
        }
        return _pr(self._api("POST", "pulls", doc))

    def label(self, number: int, labels: list[str]) -> None:
        """Add `labels` to pull request `number` (those it has already are kept once)."""
        doc: JsonObject = {"labels": list(check_labels(labels))}
        self._api("POST", f"issues/{int(number)}/labels", doc)

    def update(self, number: int, *, base: str, title: str, body: str) -> PullRequest:
        """Set an open pull request's title, body and base."""
        doc: JsonObject = {"base": check_branch(base), "title": title, "body": body}
        return _pr(self._api("PATCH", f"pulls/{int(number)}", doc))

    def _pages(self, path: str, items: Callable[[object], list[object]]) -> list[object]:
        """Every item of a listing GitHub answers a page at a time (`items` takes a page's out of
        its answer): `PER_PAGE` a page until a short one, at most `LIMITS.publish_pages` pages."""
        found: list[object] = []
        for page in range(1, LIMITS.publish_pages + 1):
            got = items(self._api("GET", f"{path}?per_page={PER_PAGE}&page={page}"))
            found += got
            if len(got) < PER_PAGE:
                break
        return found

    def checks(self, commit: str) -> list[Check]:
        """The check runs GitHub has of `commit` (every page)."""
        if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
            raise InvalidInputError(f"{commit[:80]!r} is not an object id")
        runs = self._pages(f"commits/{commit}/check-runs", _check_runs)
        return parse_checks({"check_runs": runs})

    def review_comments(self, number: int) -> list[ReviewComment]:
        """The review comments on pull request `number` (every page)."""
        return parse_review_comments(self._pages(f"pulls/{int(number)}/comments", _listed))

    def reviews(self, number: int) -> list[Review]:
        """The reviews of pull request `number` (every page): each one's own body, on no line."""
        return parse_reviews(self._pages(f"pulls/{int(number)}/reviews", _listed))


PER_PAGE = 100  # the most GitHub answers a page with


def _check_runs(doc: object) -> list[object]:
    runs = doc.get("check_runs") if isinstance(doc, dict) else None
    return list(runs) if isinstance(runs, list) else []


def _listed(doc: object) -> list[object]:
    return list(doc) if isinstance(doc, list) else []


@dataclass(frozen=True, slots=True)
class Check:
    """One check run on a commit, as GitHub reports it."""

    name: str
    status: str
    conclusion: str | None


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """One review comment on a pull request: on a line of a file, or on the whole (path None);
    `association`: how GitHub says its author is associated with the repository (its
    `author_association`: OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...; empty: not said)."""

    author: str
    body: str
    path: str | None
    line: int | None
    association: str = ""
    commit: str = ""  # the commit it was made on (`original_commit_id`; empty: not said)

    @property
    def from_writer(self) -> bool:
        """Whether its author may write to the repository (an owner, a member of its
        organisation, a collaborator): anyone else may comment on a public repository."""
        return self.association in WRITE_ACCESS

    def of(self, commit: str) -> bool:
        """Whether it was said of `commit` (or GitHub did not say of which): a pull request keeps
        the comments on every commit it held, a follow-up's result among them."""
        return not self.commit or self.commit == commit

    def carried_for(self, commit: str) -> bool:
        """Whether a request for changes of the result `commit` carries it: its author may write,
        and it was said of that commit."""
        return self.from_writer and self.of(commit)


WRITE_ACCESS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})  # `author_association`s that write


class ReviewState(StrEnum):
    """A pull request review's `state`, as GitHub says it."""

    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    COMMENTED = "COMMENTED"
    DISMISSED = "DISMISSED"
    PENDING = "PENDING"


ASKING = frozenset({ReviewState.CHANGES_REQUESTED, ReviewState.COMMENTED})  # states that ask


@dataclass(frozen=True, slots=True)
class Review:
    """One review of a pull request, its own body (its line comments are `ReviewComment`s):
    `state` as GitHub says it (a `ReviewState`'s value, kept as the string GitHub sent),
    `association` its author's `author_association` (empty: not said)."""

    author: str
    state: str
    body: str
    association: str = ""
    commit: str = ""  # the commit it reviewed (`commit_id`; empty: not said)

    @property
    def from_writer(self) -> bool:
        """Whether its author may write to the repository (as `ReviewComment.from_writer`)."""
        return self.association in WRITE_ACCESS

    def of(self, commit: str) -> bool:
        """Whether it reviewed `commit` (or GitHub did not say which): as `ReviewComment.of`."""
        return not self.commit or self.commit == commit

    def carried_for(self, commit: str) -> bool:
        """Whether a request for changes of the result `commit` carries it (`carried`, and it
        reviewed that commit)."""
        return self.carried and self.of(commit)

    @property
    def asks(self) -> bool:
        """Whether it asks for something: submitted requesting changes or commenting, with a
        body (an approval, a dismissed or pending review, an empty body ask nothing)."""
        return self.state in ASKING and bool(self.body.strip())

    @property
    def carried(self) -> bool:
        """Whether a request for changes carries it: it asks, and its author may write."""
        return self.asks and self.from_writer


def _text(doc: dict[str, object], key: str) -> str:
    value = doc.get(key)
    return value if isinstance(value, str) else ""


def parse_checks(doc: object) -> list[Check]:
    """`GET commits/SHA/check-runs`: its `check_runs`, what is not a check skipped."""
    runs = doc.get("check_runs") if isinstance(doc, dict) else None
    found = []
    for run_ in runs if isinstance(runs, list) else []:
        if isinstance(run_, dict):
            conclusion = run_.get("conclusion")
            found.append(
                Check(
                    _text(run_, "name")[:200],
                    _text(run_, "status")[:40],
                    conclusion[:40] if isinstance(conclusion, str) else None,
                )
            )
    return found


def parse_review_comments(doc: object) -> list[ReviewComment]:
    """`GET pulls/N/comments`: each comment's author, body, path, line, author association and the
    commit it was made on."""
    found = []
    for c in doc if isinstance(doc, list) else []:
        if isinstance(c, dict):
            user = c.get("user")
            line = c.get("line")
            path = c.get("path")
            found.append(
                ReviewComment(
                    _text(user, "login")[:100] if isinstance(user, dict) else "",
                    _text(c, "body"),
                    path if isinstance(path, str) and path else None,
                    line if isinstance(line, int) and line > 0 else None,
                    _text(c, "author_association")[:40],
                    _text(c, "original_commit_id")[:64],
                )
            )
    return found


def parse_reviews(doc: object) -> list[Review]:
    """`GET pulls/N/reviews`: each review's author, state, body, author association and the
    commit it reviewed."""
    found = []
    for r in doc if isinstance(doc, list) else []:
        if isinstance(r, dict):
            user = r.get("user")
            found.append(
                Review(
                    _text(user, "login")[:100] if isinstance(user, dict) else "",
                    _text(r, "state")[:40],
                    _text(r, "body"),
                    _text(r, "author_association")[:40],
                    _text(r, "commit_id")[:64],
                )
            )
    return found

"""`oms result publish DSP` (issue 27 item 4, ADR 0040): a verified result's branch pushed to the
repository's remote and its pull request opened, or updated when one is open already (never a
second one), through `adapters/github.py`. Only with passing verification evidence of that exact
result commit on the target's head as it is now (`domain/finishing.merge_refusal`, as for merge).
GitHub contact: disclosed in the `live-contact` journal first, refused unless a person authorised
the repository (`oms live authorize`); then journaled (a `result-published` event) with the
person's name, the remote, the branch, the commit and the pull request. What it sends — base,
title, body, labels, draft — is computed once (`propose`), shown to the person, and that very value
is sent (`send`); its digest is in the journal's entry and the event (`approved_sha256`).

On an etcd cluster (ADR 0043, amendment `github`) a result is published and sent back only on the
host whose clone holds its branch (`verify.refuse_another_hosts`, before a lock or a key), and the
ticket's finishing lock is a lease: before each contact that could open a pull request (the push,
the create or update) the sender asks the cluster whether the lock is still its own
(`ProcessingLock.confirm`), so a sender paused past its lease, whose lock another publish took,
sends nothing more; the `result-published` event carries the lock's fence. A publish whose contact
landed but whose event did not (its lease lapsed or revoked, the cluster lost) recorded nothing;
the next publish finds the pull request it opened (`open_for`, the files' rule) and updates it,
never a second one."""

from __future__ import annotations

from dataclasses import dataclass

from oms.adapters import git, github
from oms.canonical import JsonObject, access, stable_id
from oms.canonical.digest import digest
from oms.domain import finishing
from oms.domain import review as rules
from oms.errors import ConflictError, InvalidInputError, one_line
from oms.limits import LIMITS
from oms.services.chain import live
from oms.services.finishing import review, verify
from oms.services.finishing.finish import refuse_sent_back, ticket_lock, ticket_title
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.outbox import ProcessingLock
from oms.store.payloads import dispatch_payload

PUBLISHED = "result-published"  # the event a publish leaves (the person's name)
APPROVED_DOMAIN = "publish-approved"  # the digest of what a person approved (`Proposal.sent`)
PASSED = ("success", "neutral", "skipped")  # a check run's conclusions that ask nothing


def _github(repo: str, remote: str, github_repo: str | None) -> tuple[str | None, str]:
    """The GitHub host (None: gh's own) and OWNER/NAME of `remote` (or `github_repo`)."""
    url = github.remote_url(repo, remote)
    named = github.github_of(url)
    if github_repo is not None:
        return (named[0] if named is not None else None), github.check_repo(github_repo)
    if named is None:
        raise InvalidInputError(
            f"remote {remote} ({one_line(url, 200)}) names no GitHub repository",
            hint="pass --github-repo OWNER/NAME",
        )
    return named


@dataclass(frozen=True, slots=True)
class Proposal:
    """What one publish sends, computed once (`propose`): a person is shown this value, approves
    it, and `send` sends this very value — never one computed again after the answer."""

    dispatch_id: str
    ticket_id: str
    commit: str
    evidence: str  # the verification evidence the body cites
    remote: str
    branch: str
    base: str
    host: str | None
    github_repo: str
    title: str
    body: str
    labels: tuple[str, ...] = ()
    draft: bool = False

    def sent(self) -> JsonObject:
        """What is pushed and sent to GitHub, as the approved digest covers it."""
        return {
            "github_repo": self.github_repo,
            "remote": self.remote,
            "branch": self.branch,
            "commit": self.commit,
            "base": self.base,
            "title": self.title,
            "body": self.body,
            "labels": list(self.labels),
            "draft": self.draft,
        }

    @property
    def digest(self) -> str:
        """The digest of what a person approved (`sent`), kept in the event and the journal."""
        return digest(APPROVED_DOMAIN, self.sent())


@dataclass(frozen=True, slots=True)
class Published:
    """A publish: what was pushed where, and the pull request it opened or updated."""

    remote: str
    branch: str
    commit: str
    base: str
    github_repo: str
    number: int
    url: str
    created: bool
    event_id: str
    labels: tuple[str, ...] = ()
    draft: bool = False
    title: str = ""
    body: str = ""
    approved_sha256: str = ""


def publish(
    ws: Workspace,
    dispatch_id: str,
    *,
    person: str,
    remote: str = "origin",
    base: str | None = None,
    github_repo: str | None = None,
    labels: tuple[str, ...] = (),
    draft: bool = False,
) -> Published:
    """`propose` then `send`, for a caller that approved the publish without seeing it (`--yes`,
    `--person` off a terminal): what was sent is in what this returns."""
    found = propose(
        ws, dispatch_id, remote=remote, base=base, github_repo=github_repo, labels=labels,
        draft=draft,
    )  # fmt: skip
    return send(ws, found, person=person)


def propose(
    ws: Workspace,
    dispatch_id: str,
    *,
    remote: str = "origin",
    base: str | None = None,
    github_repo: str | None = None,
    labels: tuple[str, ...] = (),
    draft: bool = False,
) -> Proposal:
    """What publishing the verified result of `dispatch_id` would send, refused as the publish
    itself would be (not verified on the target's head, sent back): its pull request into `base`
    (default: the branch it would merge into), titled by its ticket, the result's summary its
    body, carrying `labels`; `draft` opens it as a draft (a pull request open already stays as it
    is: GitHub's REST API cannot turn one into a draft). Refused too without the repository's
    live authorisation, and (on a cluster) on another host than the result's. Nothing is written
    or contacted."""
    verify.refuse_another_hosts(ws, dispatch_id)
    labels = tuple(github.check_labels(list(labels)))
    remote = github.check_remote(remote)
    dispatch, result, found, target = _checked(ws, dispatch_id)
    payload = dispatch_payload(dispatch)
    commit = access.text(result, "result_commit")
    branch = github.check_branch(payload["worktree_branch"])
    base = github.check_branch(base or target.branch)
    host, gh_repo = _github(ws.config_root, remote, github_repo)
    live.required(ws, gh_repo)  # refused before a person is asked (and again as it is sent)
    ticket_id = payload["ticket_id"]
    title = one_line(f"{ticket_id}: {ticket_title(ws, ticket_id)}", 256)
    body = str(result.get("summary", ""))[: LIMITS.publish_body_chars]
    body += f"\n\n---\n{dispatch_id} at {commit}, verified (evidence {found})"
    return Proposal(
        dispatch_id, ticket_id, commit, found, remote, branch, base, host, gh_repo, title, body,
        labels, draft,
    )  # fmt: skip


def _checked(ws: Workspace, dispatch_id: str) -> tuple[Record, JsonObject, str, verify.Target]:
    """The dispatch, its result, the passing evidence's id and the target, or why it is not
    published."""
    dispatch, result = verify.completed_result(ws, dispatch_id)
    payload = dispatch_payload(dispatch)
    git.refuse_unsafe_config(ws.config_root)
    commit = access.text(result, "result_commit")
    target = verify.target_of(ws, finishing.parse(ws.config().raw))
    refuse_sent_back(ws, dispatch_id, payload, "published")  # nor pushed: as merge
    found = verify.latest(ws, dispatch_id)
    why = finishing.merge_refusal(
        evidence=None if found is None else found[1],
        result_commit=commit,
        target=target.branch,
        target_head=target.head,
        mode=target.mode,
    )
    if why is not None:
        raise ConflictError(
            f"{dispatch_id} is not published: {why}", hint=f"oms result verify {dispatch_id}"
        )
    assert found is not None  # noqa: S101 - merge_refusal says why when there is none
    return dispatch, result, found[0], target


def send(ws: Workspace, approved: Proposal, *, person: str) -> Published:
    """Push and open (or update) the pull request exactly as `approved` says, under the ticket's
    finishing lock (`finish.ticket_lock`), as a merge and a request for changes; refused, nothing
    sent, unless the result is still published as it was proposed (sent back since, verified
    again, its evidence no longer passing), or (on a cluster) on another host than the result's,
    before the lock is taken."""
    verify.refuse_another_hosts(ws, approved.dispatch_id)
    with ticket_lock(ws, approved.ticket_id) as held:
        return _send(ws, approved, person, held)


def _send(ws: Workspace, approved: Proposal, person: str, held: ProcessingLock) -> Published:
    dispatch, result, found, _ = _checked(ws, approved.dispatch_id)
    payload = dispatch_payload(dispatch)
    github.check_remote(approved.remote)  # (names checked again: a proposal is a plain value)
    github.check_branch(approved.base)
    github.check_labels(list(approved.labels))
    if (payload["ticket_id"], payload["worktree_branch"]) != (approved.ticket_id, approved.branch):
        raise InvalidInputError(f"that publish is not of {approved.dispatch_id}'s result")
    if access.text(result, "result_commit") != approved.commit or found != approved.evidence:
        raise ConflictError(
            f"{approved.dispatch_id} changed since its publish was shown (verified again): "
            "nothing sent",
            hint=f"oms result publish {approved.dispatch_id}, and approve what it shows",
        )
    sent = approved.digest
    live.disclose(  # GitHub contact: journaled first, only under a person's live authorisation
        ws,
        approved.github_repo,
        operation="result-publish",
        surface="gh",
        subject_id=approved.dispatch_id,
        request=live.dispatch_request(dispatch) | {"approved_sha256": sent},
    )
    repo = ws.config_root
    branch, base = approved.branch, approved.base
    held.confirm()  # (etcd: the lease still ours, asked before each contact that writes)
    github.push(repo, approved.remote, approved.commit, branch)
    hub = github.GitHub(approved.github_repo, approved.host)
    pr = hub.open_for(branch)
    created = pr is None
    held.confirm()
    if pr is None:
        pr = hub.create(
            branch=branch, base=base, title=approved.title, body=approved.body,
            draft=approved.draft,
        )  # fmt: skip
    else:
        pr = hub.update(pr.number, base=base, title=approved.title, body=approved.body)
    if approved.labels:
        hub.label(pr.number, list(approved.labels))
    who = one_line(person, 128)
    now = ws.now()
    event_id = stable_id("evt-published", approved.dispatch_id, approved.commit, pr.number, now)
    ws.store.events.create(
        event_id,
        PUBLISHED,
        now,
        {
            "ticket_id": approved.ticket_id,
            "dispatch_id": approved.dispatch_id,
            "person": who,
            "commit": approved.commit,
            "remote": approved.remote,
            "branch": branch,
            "base": base,
            "github_repo": approved.github_repo,
            "pull_request": pr.number,
            "url": pr.url[:2048],
            "created": created,
            "labels": list(approved.labels),
            "draft": pr.draft,
            "title": approved.title,
            "approved_sha256": sent,
        },
    )
    return Published(
        approved.remote,
        branch,
        approved.commit,
        base,
        approved.github_repo,
        pr.number,
        pr.url,
        created,
        event_id,
        approved.labels,
        pr.draft,
        approved.title,
        approved.body,
        sent,
    )


@dataclass(frozen=True, slots=True)
class Synced:
    """A pull request's checks, review comments and reviews, and the follow-up they became (if
    asked)."""

    github_repo: str
    number: int
    url: str
    commit: str
    checks: tuple[github.Check, ...]
    comments: tuple[github.ReviewComment, ...]
    requested: review.Requested | None
    reviews: tuple[github.Review, ...] = ()


def _clean(text: str, cap: int) -> str:
    """Text GitHub returned, as a comment may hold it: control characters a space, bounded."""
    return "".join(" " if rules.unsafe_char(c) and c != "\t" else c for c in text).strip()[:cap]


def as_comments(
    checks: tuple[github.Check, ...],
    comments: tuple[github.ReviewComment, ...],
    reviews: tuple[github.Review, ...] = (),
    *,
    commit: str,
) -> tuple[rules.Comment, ...]:
    """What a request for changes of the result `commit` carries of its pull request: each
    finished check (of `commit`) that did not pass, each review that requests changes or comments
    with a body (on no line), each review comment (on its line when it has one) — the reviews and
    comments only of someone who may write to the repository (anyone may comment on a public
    repository, and what is carried becomes the agent's prompt), and only those said of `commit`
    (a follow-up publishes to the same pull request, which keeps what was said of the results
    before it: carried again, each round asked again for what was done), at most
    `review_comments`."""
    cap = LIMITS.review_comment_chars
    found = [
        rules.Comment(
            _clean(f"CI check {c.name or '?'} ended {c.conclusion or 'without a result'}", cap)
        )
        for c in checks
        if c.status == "completed" and c.conclusion not in PASSED
    ]
    for r in reviews:
        if r.carried_for(commit):
            changes = r.state == github.ReviewState.CHANGES_REQUESTED
            asking = ", requesting changes" if changes else ""
            found.append(
                rules.Comment(
                    _clean(f"{r.author or 'a reviewer'} reviewed on GitHub{asking}: {r.body}", cap)
                )
            )
    for c in comments:
        if not c.carried_for(commit):
            continue
        text = _clean(f"{c.author or 'a reviewer'} on GitHub: {c.body}", cap)
        path = _clean(c.path or "", LIMITS.review_path_chars) or None
        if path is None or c.line is None:
            found.append(rules.Comment(text))
        else:
            found.append(rules.Comment(text, path, c.line))
    return tuple(found[: LIMITS.review_comments])


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def sync(
    ws: Workspace,
    dispatch_id: str,
    *,
    remote: str = "origin",
    github_repo: str | None = None,
    person: str | None = None,
) -> Synced:
    """Read the open pull request of `dispatch_id`'s branch: its result commit's check runs, its
    reviews and its review comments; with `person`, send the result back with them
    (`review.request_changes`: the ticket's follow-up attempt carries them) — on a cluster, only
    on the host whose clone holds the result's branch, refused before any contact
    (`verify.refuse_another_hosts`); reading it is any host's."""
    dispatch, result = verify.completed_result(ws, dispatch_id)
    if person is not None:
        verify.refuse_another_hosts(ws, dispatch_id)
    repo = ws.config_root
    git.refuse_unsafe_config(repo)
    remote = github.check_remote(remote)
    commit = access.text(result, "result_commit")
    branch = github.check_branch(dispatch_payload(dispatch)["worktree_branch"])
    host, gh_repo = _github(repo, remote, github_repo)
    live.disclose(
        ws,
        gh_repo,
        operation="result-sync",
        surface="gh",
        subject_id=dispatch_id,
        request=live.dispatch_request(dispatch),
    )
    hub = github.GitHub(gh_repo, host)
    pr = hub.open_for(branch)
    if pr is None:
        raise ConflictError(
            f"{gh_repo} has no open pull request of {branch}",
            hint=f"oms result publish {dispatch_id}",
        )
    checks = tuple(hub.checks(commit))
    comments = tuple(hub.review_comments(pr.number))
    reviews = tuple(hub.reviews(pr.number))
    requested = None
    if person is not None:
        found = as_comments(checks, comments, reviews, commit=commit)
        if not found:
            raise ConflictError(
                f"pull request #{pr.number} asks nothing: no failed check, no review or review "
                f"comment of someone who may write to {gh_repo} on {commit[:12]}"
                f"{_left_out(comments, reviews, commit)}",
                hint=f"oms result merge {dispatch_id}, or request changes yourself",
            )
        requested = review.request_changes(ws, dispatch_id, found, person=person)
    return Synced(gh_repo, pr.number, pr.url, commit, checks, comments, requested, reviews)


def _left_out(
    comments: tuple[github.ReviewComment, ...], reviews: tuple[github.Review, ...], commit: str
) -> str:
    """What was left out: " (2 comments and 1 review from someone without write access are not
    carried; 1 review made on an earlier commit is not carried)"."""
    parts = []
    for why, c_out, r_out in (
        (
            "from someone without write access",
            sum(1 for c in comments if not c.from_writer),
            sum(1 for r in reviews if r.asks and not r.from_writer),
        ),
        (
            "made on an earlier commit",
            sum(1 for c in comments if c.from_writer and not c.of(commit)),
            sum(1 for r in reviews if r.carried and not r.of(commit)),
        ),
    ):
        said = [_count(n, what) for n, what in ((c_out, "comment"), (r_out, "review")) if n]
        if said:
            one = len(said) == 1 and said[0].startswith("1 ")
            parts.append(f"{' and '.join(said)} {why} {'is' if one else 'are'} not carried")
    return f" ({'; '.join(parts)})" if parts else ""

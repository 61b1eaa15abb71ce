"""`oms result show|diff|request-changes|verify|merge|publish|sync|discard DSP`: reviewing a
dispatch's result (issue 27, ADR 0039; `services/finishing/review.py`), finishing it without losing
work (issue 14, ADR 0021; `services/finishing/verify.py`, `services/finishing/finish.py`),
publishing it as a pull request and reading it back (issue 27, ADR 0040;
`services/finishing/publish.py`)."""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    complete_dispatch,
    confirm_person,
    emit,
    workspace,
)

if TYPE_CHECKING:
    from oms.process import Pager
    from oms.services.finishing import publish
    from oms.services.finishing.review import Shown

app = typer.Typer(
    help=(
        "A dispatch's result: review it (show, diff, request changes), verify it in a sandbox, "
        "merge it or publish it as a pull request, or discard it (archived first).\n\n"
        "Example: oms result merge tkt-3"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)
DispatchArg = Annotated[
    str,
    typer.Argument(
        help="The dispatch whose result it is (or a unique prefix of its id), or a ticket: its "
        "one result.",
        metavar="DISPATCH|TICKET",
        show_default=False,
        autocompletion=complete_dispatch,
    ),
]


@app.command("show")
def show_cmd(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """A result as you review it: ticket, summary, the files it changes against the branch it would
    merge into, its verification and that output, salvage refs. Read from git objects only.

    Examples:

    \b
      oms result show tkt-3        (the ticket's one result)
      oms result show dsp-3fa2 --json
    """
    from oms.services.chain import handles
    from oms.services.finishing import review

    with workspace(state_root_, config_root_, etcd=True) as ws:  # git and records (ADR 0043)
        shown_ = review.show(ws, handles.dispatch(ws, dispatch, handles.Want.RESULT))
    if json_out:
        emit(shown_.to_json())
        return
    _print_shown(shown_)


def _print_shown(s: Shown) -> None:
    from oms.canonical import access
    from oms.domain.review import for_terminal, what_runs_line

    doc = s.to_json()
    out: list[str] = [
        f"dispatch  {doc['dispatch_id']} ({doc['dispatch_state']}), attempt {doc['attempt']}",
        f"ticket    {doc['ticket_id']}: {doc['ticket_title']}",
        f"branch    {doc['branch']}",
        f"result    {doc['status']}"
        + (f" at {str(doc['result_commit'])[:12]}" if doc["result_commit"] else ""),
    ]
    runs = what_runs_line(list(s.what_runs))
    if runs is not None:
        out.append(f"runs      {runs}")
    target = s.change
    if target is not None:
        out.append(
            f"merges    into {target.target.branch} ({target.target.head[:12]}, "
            f"{target.target.mode})"
        )
        if target.conflict:
            out.append(f"conflict  {target.conflict}; the diff is since their merge base")
    out.append("summary")
    out.extend("    " + line for line in str(doc["summary"] or "").splitlines()[:200])
    if s.changes_requested is not None:
        out.append(f"follows   changes requested by {s.changes_requested['person']}")
    if target is not None:
        added = sum(f.added or 0 for f in s.files)
        removed = sum(f.removed or 0 for f in s.files)
        out.append(f"files     {s.files_total} changed, +{added} -{removed}")
        for f in s.files:
            counts = "binary" if f.added is None else f"+{f.added} -{f.removed}"
            out.append(f"    {counts:>14}  {f.path}")
        if s.files_total > len(s.files):
            out.append(f"    ... and {s.files_total - len(s.files)} more")
    v = s.verification
    if v is None:
        out.append("verify    not verified (`oms result verify`)")
    else:
        state = "passed" if v["passed"] else "failed"
        if v["passed"] and not v["current"]:
            state += f", but {v['stale']}"
        out.append(f"verify    {state} (evidence {str(v['evidence'])[:12]})")
        for check in access.array(v, "checks"):
            c = check if isinstance(check, dict) else {}
            argv = " ".join(str(a) for a in access.array(c, "argv"))[:100]
            out.append(f"    exit {c.get('exit_code')}  {argv}")
            out.extend("        " + ln for ln in str(c.get("output_tail")).splitlines()[-20:])
    out.extend(f"salvage   {k['ref']} ({str(k['commit'])[:12]})" for k in s.salvage)
    typer.echo(for_terminal("\n".join(out)))


@app.command("diff")
def diff_cmd(
    dispatch: DispatchArg,
    stat: Annotated[bool, typer.Option("--stat", help="Files and counts only.")] = False,
    no_pager: Annotated[
        bool,
        typer.Option("--no-pager", help="Never page (default: $PAGER or less, on a terminal)."),
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The result's diff against the branch it would merge into (the tree the merge would make),
    streamed as git writes it, paged on a terminal, control characters escaped.

    Examples:

    \b
      oms result diff dsp-3fa2
      oms result diff tkt-3 --stat
    """
    from oms.domain.review import Escaper, for_terminal
    from oms.services.chain import handles
    from oms.services.finishing import review

    if json_out:
        with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043)
            shown_ = review.show(ws, handles.dispatch(ws, dispatch, handles.Want.RESULT))
        doc = shown_.to_json()
        emit({k: doc[k] for k in ("ok", "dispatch_id", "target", "files", "files_total")})
        return
    escaper = Escaper()
    pager = _pager() if not no_pager and sys.stdout.isatty() else None
    out = sys.stdout.buffer

    def write(data: bytes) -> bool:
        if not data:
            return True
        if pager is not None:
            return pager.write(data)
        try:
            out.write(data)
            out.flush()
        except BrokenPipeError:  # `| head`: the reader has what it wanted
            return False
        return True

    try:
        with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043)
            dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
            change = review.diff(ws, dispatch, lambda chunk: write(escaper.feed(chunk)), stat=stat)
        write(escaper.end())
    finally:
        if pager is not None:
            pager.close()
    if change.conflict:
        said = for_terminal(change.conflict)
        typer.echo(f"oms: {said}; this is the change since their merge base", err=True)


def _pager() -> Pager | None:
    """$OMS_PAGER, else $PAGER, else `less -FRX` (argv, never a shell); none when it is `cat` or
    empty, or not installed."""
    from oms.errors import ToolNotFoundError
    from oms.process import child_env, start_pager

    said = os.environ.get("OMS_PAGER", os.environ.get("PAGER", "less -FRX"))
    try:
        argv = shlex.split(said)
    except ValueError:
        argv = ["less", "-FRX"]
    if not argv or argv == ["cat"]:
        return None
    try:
        return start_pager(argv, env=child_env(keep=("TERM", "LESS", "LV", "COLUMNS", "LINES")))
    except ToolNotFoundError:
        return None


@app.command("request-changes")
def request_changes_cmd(
    dispatch: DispatchArg,
    comment: Annotated[
        str | None, typer.Option("--comment", help="A comment on the result as a whole.")
    ] = None,
    comments: Annotated[
        str | None,
        typer.Option("--comments", help="A file of `path:line: text` comments, one a line."),
    ] = None,
    person: Annotated[
        str | None,
        typer.Option("--person", help="Who asks (needed off a terminal; kept in the ledger)."),
    ] = None,
    yes: YesOpt = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Send the result back with your comments: its ticket's next attempt is a follow-up on the
    same branch, its read_dispatch carrying the comments and the previous summary, proposed,
    reviewed and accepted like any dispatch. Only the latest attempt's unmerged completed result.

    Examples:

    \b
      oms result request-changes dsp-3fa2 --comment "also handle an empty list"
      oms result request-changes dsp-3fa2 --comments notes  (lines: path:line: text)
    """
    from oms.domain import review as rules
    from oms.errors import UsageError
    from oms.fsio.outside import read_user_file
    from oms.limits import LIMITS
    from oms.services.chain import handles
    from oms.services.finishing import review

    if (comment is None) == (comments is None):
        raise UsageError("give --comment TEXT or --comments FILE (one of them)")
    found = (
        (rules.comment(comment),)
        if comment is not None
        else rules.parse_comments(read_user_file(str(comments), LIMITS.review_comments_bytes))
    )
    who, _ = confirm_person(
        person, question=f"Request changes of {dispatch} as yourself?", expect=dispatch, yes=yes
    )
    with workspace(state_root_, config_root_, etcd=True) as ws:  # under a lease (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = review.request_changes(ws, dispatch, found, person=who)
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "ticket_id": done.ticket.record_id,
                "attempt": done.attempt,
                "event_id": done.event_id,
                "changes_requested": done.carried,
            }
        )
        return
    typer.echo(
        f"{done.ticket.record_id} is open for attempt {done.attempt}, a follow-up of {dispatch} "
        f"with {len(found)} comment(s)"
    )
    typer.echo("next: the conductor takes it at its next tick (`oms conductor run`)")


@app.command("verify")
def verify_cmd(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run the committed [verify] checks against the tree a merge would make; sign the outcome (exit
    1: failed).

    Examples:

    \b
      oms result verify tkt-3      (the ticket's one result)
      oms result verify dsp-3fa2
    """
    from oms.errors import VerificationFailedError
    from oms.services.chain import handles
    from oms.services.finishing import verify

    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `results`)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = verify.verify(ws, dispatch, progress=lambda line: typer.echo(line, err=True))
    doc = {
        "ok": done.passed,
        "dispatch_id": dispatch,
        "passed": done.passed,
        "evidence": done.ref,
        "commit": done.commit,
        "target": done.target.branch,
        "base": done.target.head,
        "mode": done.target.mode,
        "tree": done.tree,
        "checks": [r.evidence() for r in done.ran],
    }
    failed = None
    if not done.passed:
        where = "its checks' evidence (`checks`)" if json_out else "the output above"
        failed = VerificationFailedError(
            f"the checks of {dispatch} failed", hint=f"see {where}; nothing merged"
        )
    if json_out:  # one document: the outcome, with the error when it failed
        emit(doc | (failed.to_json() if failed else {}))
        if failed:
            raise typer.Exit(1)
        return
    for r in done.ran:
        outcome = (
            "passed"
            if r.passed
            else ("timed out" if r.exit_code is None else f"exit {r.exit_code}")
        )
        typer.echo(f"{outcome:<10} {r.duration_ms / 1000:7.1f}s  {' '.join(r.argv)[:100]}")
        if not r.passed and r.output:
            tail = r.output[-2000:].decode("utf-8", "replace").rstrip()
            typer.echo("\n".join("    " + line for line in tail.splitlines()[-20:]))
    typer.echo(
        f"{'verified' if done.passed else 'failed'}: {done.commit[:12]} into "
        f"{done.target.branch} ({done.target.head[:12]}), evidence {done.ref[:12]}"
    )
    if failed:
        raise failed


@app.command("merge")
def merge_cmd(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Merge a verified result into the target branch (only the verified tree, on the verified
    base). The merge commit is yours: git's identity (user.name, user.email), as `git merge` makes
    it.

    Example:

    \b
      oms result merge tkt-3
    """
    from oms.services.chain import handles
    from oms.services.finishing import finish

    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `results`)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = finish.merge(ws, dispatch)
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "target": done.target,
                "base": done.base,
                "merged": done.merged,
                "mode": done.mode,
                "evidence": done.ref,
                "already_merged": done.already,
                "changes_what_runs": list(done.what_runs),
            }
        )
        return
    from oms.domain.review import for_terminal, what_runs_line

    runs = what_runs_line(list(done.what_runs))
    if runs is not None:
        typer.echo(for_terminal(f"this merge {runs}"))
    if done.already:
        typer.echo(f"already merged: {dispatch}'s result is in {done.target} ({done.merged[:12]})")
        return
    typer.echo(
        f"merged {dispatch} into {done.target}: "
        f"{done.base[:12]} -> {done.merged[:12]} ({done.mode})"
    )


# the options `publish` and `sync` share
GithubRepoOpt = Annotated[
    str | None,
    typer.Option(
        "--github-repo", help="OWNER/NAME on GitHub (default: read from the remote's URL)."
    ),
]
YesOpt = Annotated[bool, typer.Option("--yes", help="No typed confirmation (needs --person).")]


@app.command("publish")
def publish_cmd(
    dispatch: DispatchArg,
    remote: Annotated[
        str, typer.Option("--remote", help="The git remote the branch is pushed to.")
    ] = "origin",
    base: Annotated[
        str | None,
        typer.Option(
            "--base", help="The branch the pull request asks into (default: [merge] into)."
        ),
    ] = None,
    github_repo: GithubRepoOpt = None,
    label: Annotated[
        list[str] | None,
        typer.Option("--label", help="A label the pull request carries (again for more)."),
    ] = None,
    draft: Annotated[
        bool, typer.Option("--draft", help="Open the pull request as a draft.")
    ] = False,
    person: Annotated[
        str | None,
        typer.Option("--person", help="Who publishes (needed off a terminal; kept in the ledger)."),
    ] = None,
    yes: YesOpt = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Push a verified result's branch to the remote and open its pull request through `gh`
    (title: the ticket; body: the result's summary; --label, --draft). On a terminal it shows
    the base, title, body, labels and draft first and sends exactly that once you confirm; with
    --person/--yes, --json shows what was sent. A second publish updates
    the open pull request (adding labels; a draft stays as it was), never opens another. Only a
    result verified on the target's current head.

    Examples:

    \b
      oms result publish tkt-3
      oms result publish tkt-3 --label bug --draft
      oms result publish dsp-3fa2 --remote fork --base main --github-repo me/proj
    """
    from oms.services.chain import handles
    from oms.services.finishing import publish

    asked = dispatch  # what the person types to confirm: as they named it
    with workspace(state_root_, config_root_, etcd=True) as ws:  # what is sent, computed once
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        proposal = publish.propose(
            ws, dispatch, remote=remote, base=base, github_repo=github_repo,
            labels=tuple(label or []), draft=draft,
        )  # fmt: skip
    who, _ = confirm_person(  # shown, then approved (or --person/--yes: in the output)
        person,
        question=f"{_shown(proposal)}\nPublish {dispatch} to GitHub as shown, as yourself?",
        expect=asked,
        yes=yes,
    )
    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `github`)
        done = publish.send(ws, proposal, person=who)  # that very value, not computed again
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "remote": done.remote,
                "branch": done.branch,
                "commit": done.commit,
                "base": done.base,
                "github_repo": done.github_repo,
                "pull_request": done.number,
                "url": done.url,
                "created": done.created,
                "event_id": done.event_id,
                "labels": list(done.labels),
                "draft": done.draft,
                "title": done.title,
                "body": done.body,
                "approved_sha256": done.approved_sha256,
            }
        )
        return
    from oms.domain.review import for_terminal

    said = ("opened draft" if done.draft else "opened") if done.created else "updated"
    typer.echo(
        for_terminal(
            f"pushed {done.commit[:12]} to {done.remote} {done.branch}; {said} pull request "
            f"#{done.number} into {done.base}: {done.url} (sent: {done.approved_sha256[:16]})"
        )
    )


def _shown(proposal: publish.Proposal) -> str:
    """What a publish sends, as its confirmation shows it: escaped (`for_terminal`: a hostile
    title or summary puts no terminal control on the screen), the body bounded
    (`Limits.publish_shown_chars`: what is left out is counted)."""
    from oms.domain.review import for_terminal
    from oms.limits import LIMITS

    cap = LIMITS.publish_shown_chars
    body = proposal.body[:cap]
    rest = len(proposal.body) - len(body)
    lines = [
        f"pull request of {proposal.branch} ({proposal.commit[:12]}) to {proposal.github_repo} "
        f"(pushed to {proposal.remote})",
        f"  base:   {proposal.base}",
        f"  title:  {proposal.title}",
        f"  labels: {', '.join(proposal.labels) or '(none)'}",
        f"  draft:  {'yes' if proposal.draft else 'no'}"
        + (" (a pull request open already stays as it is)" if proposal.draft else ""),
        "  body:",
        *(f"  | {line}" for line in body.split("\n")),
    ]
    if rest:
        lines.append(f"  ... and {rest} more characters of the body (`oms result show`)")
    lines.append(f"  sha256 of all that is sent: {proposal.digest}")
    return for_terminal("\n".join(lines))


@app.command("sync")
def sync_cmd(
    dispatch: DispatchArg,
    request_changes: Annotated[
        bool,
        typer.Option(
            "--request-changes",
            help="Send the result back with the failed checks, reviews and review comments.",
        ),
    ] = False,
    remote: Annotated[
        str, typer.Option("--remote", help="The git remote the branch was pushed to.")
    ] = "origin",
    github_repo: GithubRepoOpt = None,
    person: Annotated[
        str | None,
        typer.Option("--person", help="Who asks for changes (kept in the ledger)."),
    ] = None,
    yes: YesOpt = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Read a published result's pull request: the result commit's checks, its reviews and the
    review comments. With --request-changes they become a request for changes (`oms result
    request-changes`): the ticket's follow-up attempt carries them.

    Examples:

    \b
      oms result sync tkt-3
      oms result sync dsp-3fa2 --request-changes --person "$USER"
    """
    from oms.services.chain import handles
    from oms.services.finishing import publish

    who = None
    if request_changes:
        who, _ = confirm_person(
            person, question=f"Request changes of {dispatch} as yourself?", expect=dispatch, yes=yes
        )
    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `github`)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = publish.sync(ws, dispatch, remote=remote, github_repo=github_repo, person=who)
    asked = done.requested
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "github_repo": done.github_repo,
                "pull_request": done.number,
                "url": done.url,
                "commit": done.commit,
                "checks": [
                    {"name": c.name, "status": c.status, "conclusion": c.conclusion}
                    for c in done.checks
                ],
                "comments": [
                    {
                        "author": c.author,
                        "association": c.association,
                        "commit": c.commit,
                        "carried": c.carried_for(done.commit),
                        "body": c.body,
                        "path": c.path,
                        "line": c.line,
                    }
                    for c in done.comments
                ],
                "reviews": [
                    {
                        "author": r.author,
                        "association": r.association,
                        "state": r.state,
                        "commit": r.commit,
                        "carried": r.carried_for(done.commit),
                        "body": r.body,
                    }
                    for r in done.reviews
                ],
                "requested": None
                if asked is None
                else {
                    "ticket_id": asked.ticket.record_id,
                    "attempt": asked.attempt,
                    "event_id": asked.event_id,
                },
            }
        )
        return
    from oms.domain.review import for_terminal

    out = [f"pull request #{done.number} of {done.github_repo}: {done.url}"]
    out += [f"check     {c.name}: {c.conclusion or c.status}" for c in done.checks]
    for r in done.reviews:
        who = _reviewer(r.author, r.from_writer, r.of(done.commit))
        first = r.body.splitlines()[0] if r.body.strip() else ""
        out.append(f"review    {who} {r.state}: {first}"[:300])
    for c in done.comments:
        where = f" {c.path}:{c.line}" if c.path else ""
        who = _reviewer(c.author, c.from_writer, c.of(done.commit))
        out.append(f"comment   {who}{where}: {c.body.splitlines()[0] if c.body else ''}"[:300])
    if asked is not None:
        out.append(
            f"{asked.ticket.record_id} is open for attempt {asked.attempt}, a follow-up of "
            f"{dispatch}"
        )
    typer.echo(for_terminal("\n".join(out)))


def _reviewer(author: str, writer: bool, current: bool) -> str:
    """A review's or comment's author, and why it is not carried when it is not."""
    if not writer:
        return f"{author} (no write access: not carried)"
    return author if current else f"{author} (on an earlier commit: not carried)"


@app.command("discard")
def discard_cmd(
    dispatch: DispatchArg,
    reason: Annotated[
        str, typer.Option("--reason", help="Why (kept in the discard evidence).")
    ] = "discarded",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Archive the dispatch's branch under refs/oms/archive/, then remove its worktree and
    branch.

    Example:

    \b
      oms result discard tkt-3 --reason 'superseded by tkt-4'
    """
    from oms.services.chain import handles
    from oms.services.finishing import finish

    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `results`)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = finish.discard(ws, dispatch, reason)
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "archive_ref": done.archive_ref,
                "commit": done.commit,
                "bundle": done.bundle,
                "removed": list(done.removed),
                "kept": list(done.kept),
                "evidence": done.ref,
            }
        )
        return
    typer.echo(
        f"archived {done.commit[:12]} at {done.archive_ref}"
        + (f" and {done.bundle}" if done.bundle else "")
    )
    for line in done.removed:
        typer.echo(f"removed  {line}")
    for line in done.kept:
        typer.echo(f"kept     {line}")

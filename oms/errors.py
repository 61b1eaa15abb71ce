"""The one exception tree of oms.

Every error oms raises on purpose derives from `OmsError`. Each carries a one-line message
(lowercase, "(got X, expected Y)" where it helps) and a `diagnostics()` text that says what happened
and what to do. Only the CLI turns these into exit codes (`oms/cli/boundary.py`); nothing else calls
`sys.exit`.

This module imports nothing from oms: every layer may raise these.
"""

from __future__ import annotations

import re
from typing import ClassVar

_UNPRINTABLE = re.compile(r"[^\x20-\x7e]")
MESSAGE_LIMIT = 512  # the longest message or reason oms stores or prints


def one_line(text: str, limit: int = MESSAGE_LIMIT, *, default: str = "") -> str:
    """Squash `text` to one printable ASCII line of at most `limit` characters (`default` when
    nothing is left). The one helper for every message and every reason oms stores (a stop, park,
    cancel or end reason, an exit's detail): no line break, no terminal control, bounded."""
    flat = _UNPRINTABLE.sub(lambda m: " " if m.group() in "\r\n\t" else "?", text).strip()
    flat = re.sub(r" {2,}", " ", flat)
    if len(flat) > limit:
        flat = flat[: limit - 3] + "..."
    return flat or default


_SHOWN_MAX = 160


def shown(value: str, limit: int = _SHOWN_MAX) -> str:
    """A path or id as a message shows it: printable ASCII with everything else escaped (`\\n`,
    `\\x1b`, `\\u00e9`, a backslash doubled: one line, unambiguous, no terminal control) and at most
    `limit` characters, the middle elided as `...`."""
    out = value.encode("unicode_escape").decode("ascii")
    if len(out) > limit:
        keep = (limit - 3) // 2
        out = out[:keep] + "..." + out[len(out) - (limit - 3 - keep) :]
    return out


class OmsError(Exception):
    """Root of the oms error tree: a bounded one-line message plus a remediation hint."""

    hint: ClassVar[str] = ""
    code: ClassVar[str] = "error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(one_line(message))
        self.message = one_line(message)
        self._hint = one_line(hint) if hint is not None else self.hint

    @property
    def remedy(self) -> str:
        """The hint for this instance (the class default unless one was given)."""
        return self._hint

    def diagnostics(self) -> str:
        """What happened and what to do about it, for people."""
        if self._hint:
            return f"{self.message}\nhint: {self._hint}"
        return self.message

    def to_json(self) -> dict[str, str]:
        """The machine form used by `--json` output."""
        out = {"error": self.code, "message": self.message}
        if self._hint:
            out["hint"] = self._hint
        return out


class UsageError(OmsError):
    """A command was called with arguments it cannot use (exit 2)."""

    code = "usage"


class InvalidInputError(OmsError):
    """Untrusted input (an id, a path, a document) failed validation."""

    code = "invalid-input"


# ----------------------------------------------------------------------------- fsio
class FsioError(OmsError):
    """A file operation under a guarded root was refused or failed."""

    code = "fsio"


class PathRejectedError(FsioError):
    """A relative path failed the lexical grammar (`..`, absolute, empty, NUL, too long)."""

    code = "path-rejected"


class PathEscapeError(FsioError):
    """Resolution met a symlink, a non-directory or left the root: treated as an attack."""

    code = "path-escape"
    hint = "something replaced part of the oms state root with a link; run `oms store verify`"


class NotFoundError(FsioError):
    """The named file or directory does not exist."""

    code = "not-found"


class AlreadyExistsError(FsioError):
    """A no-replace create met an existing name; nothing was overwritten."""

    code = "already-exists"


class UnsafeFileError(FsioError):
    """A file is not a private regular file owned by us (type, link count, owner or mode)."""

    code = "unsafe-file"
    hint = "oms only trusts regular files with one link, owned by you and private (0600/0700)"


class FileTooLargeError(FsioError):
    """A bounded read found more bytes than allowed."""

    code = "too-large"


class ResourcesShortError(FsioError):
    """The host refused a descriptor or memory for a file operation now (EMFILE, ENFILE, ENOMEM):
    nothing is wrong with the file; retrying later may succeed."""

    code = "resources-short"
    hint = "too many files are open (or memory is short) now: retry, or raise `ulimit -n`"


class LockHeldError(FsioError):
    """A lock file is held by a live process."""

    code = "lock-held"
    hint = "another oms process is working on this; retry when it finishes"

    def __init__(
        self, message: str, *, hint: str | None = None, holder_pid: int | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.holder_pid = holder_pid  # the live holder's pid, when the lock names one


# ----------------------------------------------------------------------------- canonical / schemas
class CanonicalJsonError(InvalidInputError):
    """Bytes are not JSON of the oms record profile (ASCII keys, safe integers, no floats, ...)."""

    code = "bad-json"


class InvalidIdError(InvalidInputError):
    """An identifier does not match its grammar."""

    code = "bad-id"


class AmbiguousIdError(InvalidInputError):
    """A handle (an id's prefix, or a ticket where a dispatch is meant) names more than one."""

    code = "ambiguous-id"
    hint = "type more of the id, or the whole id"


class SchemaValidationError(InvalidInputError):
    """A document does not satisfy its JSON Schema."""

    code = "schema"


# ----------------------------------------------------------------------------- store
class StoreError(OmsError):
    """The versioned store refused an operation or found damage."""

    code = "store"


class StateRootError(StoreError):
    """The state root is missing, not initialised, or not safe to use."""

    code = "state-root"
    hint = "run `oms init` (and `oms doctor` to see what is wrong)"


class RecordNotFoundError(StoreError):
    """No record, event, receipt or evidence exists under that id."""

    code = "record-not-found"


class VersionConflictError(StoreError):
    """A transition lost the race for version N+1 (or expected a stale version)."""

    code = "version-conflict"
    hint = "re-read the record and retry the transition"

    def __init__(self, kind: str, record_id: str, expected: int | None, actual: int | None) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{kind} {record_id} changed under us (got version {actual}, expected {expected})"
        )


class OperationConflictError(VersionConflictError):
    """An operation id that already produced a version was asked for a different transition.

    A kind of version conflict: a writer that re-reads and decides again is right either way."""

    code = "operation-conflict"
    hint = (
        "another writer already used this operation id for a different change: re-read the record"
    )

    def __init__(self, kind: str, record_id: str, operation_id: str, version: int) -> None:
        self.operation_id = operation_id
        self.expected = None
        self.actual = version
        StoreError.__init__(
            self,
            f"{kind} {record_id}: operation {operation_id} already "
            f"produced version {version} with a different change",
        )


class IllegalTransitionError(StoreError):
    """A state machine refused a transition."""

    code = "illegal-transition"

    def __init__(self, kind: str, state: str, event: str, *, hint: str | None = None) -> None:
        self.state = state
        self.event = event
        super().__init__(f"{kind} cannot {event} from state {state}", hint=hint)


class IntegrityError(StoreError):
    """Stored bytes do not match their name, digest, chain or canonical form."""

    code = "integrity"
    hint = "the state root was modified outside oms; run `oms store verify` for a full report"


class SignatureError(IntegrityError):
    """Evidence failed Ed25519 verification against the state key."""

    code = "signature"


class ConflictError(StoreError):
    """An immutable object already exists with different content."""

    code = "conflict"


class AuthorityChangedError(StoreError):
    """The stored records no longer authorise this step (policy, lease, intent, approval,
    worktree...)."""

    code = "authority-changed"
    hint = "the dispatch must be proposed and reviewed again under the current records"


class AttemptFencedError(AuthorityChangedError):
    """An attempt's lease or live authorisation lapsed: nothing its hooks or bridge ask for changes
    state."""

    code = "attempt-fenced"
    hint = "the work in the worktree is kept; a new lease and dispatch start the next attempt"


class LeaseError(StoreError):
    """A lease token is wrong, or the lease expired or belongs to someone else."""

    code = "lease"


class EtcdError(StoreError):
    """An etcd member answered a call with an error (ADR 0043)."""

    code = "etcd"


class EtcdAnswerTooLargeError(EtcdError):
    """One answer over `Limits.etcd_response_bytes` (a range asks again for fewer keys)."""


class EtcdUnavailableError(EtcdError):
    """No etcd endpoint answered within its deadline (ADR 0043)."""

    code = "etcd-unavailable"
    hint = (
        "start the cluster or fix `[store] endpoints` in .oms/config.toml; "
        "`etcdctl endpoint health` says which members answer"
    )


class CheckoutChangedError(OmsError):
    """A worktree is not exactly the planned checkout (or its repository config could run code)."""

    code = "checkout-changed"


class LeftoversError(CheckoutChangedError):
    """A worktree holds changed or untracked files an earlier attempt (or a person) left: a new
    attempt's launch salvages them and restores the recorded commit first (ADR 0029)."""

    code = "leftovers"


class WorktreeNeedsPersonError(CheckoutChangedError):
    """A ticket's worktree is in a state oms will not change on its own (gone with its branch,
    broken by hand, holding what it cannot keep): the ticket waits for a person, never retried
    (ADR 0029)."""

    code = "worktree-needs-person"
    hint = "look at the worktree as the reason says; the ticket waits (blocked) for a new one"


class UnsafeRepositoryError(OmsError):
    """A repository's own configuration would make git run code oms does not control."""

    code = "unsafe-repository"
    hint = (
        "remove the listed keys from the repository's .git/config or the worktree's"
        " config.worktree (agents can write them), then retry"
    )


class NotARepositoryError(OmsError):
    """oms was run where no git repository is: it works for the repository it runs in (ADR
    0032)."""

    code = "not-a-repository"
    hint = "run oms inside your git repository (`git init` makes one), or name it: --config-root"


class GitIdentityError(OmsError):
    """oms would commit as the person (`oms init --commit`, a merge), and git does not know who
    they are (ADR 0032)."""

    code = "git-identity"
    hint = (
        'git config --global user.name "Your Name" && '
        "git config --global user.email you@example.com "
        "(without --global: this repository only), then run the command again"
    )


class OtherRepositoryError(OmsError):
    """A state root or a ticket belongs to another repository than the one oms runs in (ADR
    0032)."""

    code = "other-repository"


class OtherHostError(OmsError):
    """A worker runs on another host: only that host's conductor and commands act on its pane
    (ADR 0043, amendment `hosts`)."""

    code = "other-host"


class HostNameTakenError(OmsError):
    """This host's name is bound on the etcd store to another state key: two state roots never act
    under one host name (ADR 0043, amendment `hostname`)."""

    code = "host-name-taken"


# What only a person can put right: a launch or a new attempt refused for one of these blocks its
# ticket at once (the reason says what is wrong), never retried into quarantine (ADR 0029).
WAITS_FOR_PERSON = (WorktreeNeedsPersonError, UnsafeRepositoryError)


class AdvisorError(OmsError):
    """The advisor did not produce a valid verdict for this intent."""

    code = "advisor"


# ----------------------------------------------------------------------------- config
class ConfigError(OmsError):
    """The oms configuration or role policy is missing or invalid."""

    code = "config"


class ClusterNotPinnedError(ConfigError):
    """The committed `[store]` names an etcd cluster the person has not pinned for this state root
    (`oms store pin-cluster`; ADR 0043, amendment `clusterpin`): refused before any connection."""

    code = "cluster-not-pinned"


class NoProviderError(ConfigError):
    """No configured provider can serve the role now (all excluded: see `oms route explain`)."""

    code = "no-provider"
    hint = (
        "see `oms route explain --role <role>`: every provider's reason, and when a cooldown ends"
    )


class PolicyNotTrackedError(ConfigError):
    """The role policy in the working tree is not the one committed at HEAD."""

    code = "policy-not-tracked"
    hint = (
        "commit .oms/role-policy.json (the policy digest is "
        "taken from HEAD, never from an edited file)"
    )


# ----------------------------------------------------------------------------- processes
class ProcessError(OmsError):
    """A child process could not be started, timed out, or failed."""

    code = "process"


class ToolNotFoundError(ProcessError):
    """An external tool (git, tmux, codex, claude) is not on PATH."""

    code = "tool-not-found"


class ProcessTimeoutError(ProcessError):
    """A child process exceeded its time limit and was killed."""

    code = "timeout"


class ProcessFailedError(ProcessError):
    """A child process exited non-zero or wrote more output than allowed."""

    code = "process-failed"

    def __init__(
        self,
        argv: tuple[str, ...],
        returncode: int,
        stderr: bytes,
        *,
        why: str = "",
        stdout: bytes = b"",
    ) -> None:
        self.argv = argv
        self.returncode = returncode
        self.stderr = stderr
        tail = reason_line(stderr) or reason_line(
            stdout
        )  # (git says "nothing to commit" on stdout)
        what = why or f"exited {returncode}"
        super().__init__(f"{argv[0]} {what}" + (f": {tail}" if tail else " and said nothing"))

    @classmethod
    def said(cls, message: str) -> ProcessFailedError:
        """One whose message is exactly `message` (what a tree job's answer carries:
        docs/adr/0024)."""
        exc = cls(("git",), 1, b"")
        exc.message = one_line(message)
        exc.args = (exc.message,)
        return exc


def reason_line(output: bytes, cap: int = 200) -> str:
    """The line of a tool's output that says why it failed: its first `fatal:` or `error:` line
    (git's), else its last non-empty line; one line, at most `cap` characters ('' when it said
    nothing)."""
    lines = [
        line.strip() for line in output.decode("utf-8", "replace").splitlines() if line.strip()
    ]
    if not lines:
        return ""
    said = next(
        (line for line in lines if line.startswith(("fatal:", "error:", "Error:"))), lines[-1]
    )
    return one_line(said, cap)


class PaneNotEndedError(ProcessError):
    """`oms worker stop` could not end every process of a worker's pane: nothing was recorded as
    stopped."""

    code = "pane-not-ended"
    hint = (
        "find what holds them (`ps -o pid,stat,cmd -g <group>`: a frozen or uninterruptible "
        "process), end it, then `oms worker stop` again"
    )


class TreeJobError(ProcessError):
    """A tree job (an operation on an agent's worktree, run in its own sandbox: ADR 0024) did not
    answer as its protocol says, or answered with an error oms does not know."""

    code = "tree-job"


class AgentTreeError(OmsError):
    """Code on the host was about to read, walk or run git in an agent's worktree outside a tree job
    (ADR 0024): refused, nothing read. This is a bug in oms."""

    code = "agent-tree"
    hint = "report it: every operation on an agent's worktree runs in a tree job (docs/adr/0024)"


class SandboxUnavailableError(ProcessError):
    """Bubblewrap is missing or cannot make a worker sandbox on this machine: nothing is
    launched."""

    code = "sandbox-unavailable"
    hint = "install bubblewrap (apt-get install bubblewrap) and run `oms doctor`"


class CgroupUnavailableError(SandboxUnavailableError):
    """No cgroup can be made for a sandbox here (issue 23, ADR 0025): nothing is launched."""

    code = "cgroup-unavailable"
    hint = "`oms doctor` says how to give oms a cgroup (root, or a delegated cgroup v2 subtree)"


class ProxyError(ProcessError):
    """The model proxy could not be started, verified or stopped (issue 13, ADR 0020)."""

    code = "proxy"
    hint = "see the proxy's log (proxy/proxy.log in the state root) and `oms proxy status`"


class DemoFailedError(OmsError):
    """`oms demo` did not reach a recorded result."""

    code = "demo-failed"


class VerificationFailedError(OmsError):
    """`oms result verify` ran the checks and at least one failed (the evidence records it)."""

    code = "verification-failed"


# What SECURITY.md treats as an attack, not a fault: code that tolerates a failed step must still
# let these through (`suppress_faults`), so an attack is never silent.
ATTACKS: tuple[type[OmsError], ...] = (PathEscapeError, UnsafeFileError)


class suppress_faults:  # noqa: N801 - used like `contextlib.suppress`, which it replaces
    """`contextlib.suppress(OmsError)` that lets an attack through: inside `with
    suppress_faults():` an `OmsError` (or one of `kinds`, e.g. `OSError`) is swallowed, except
    the `ATTACKS` (`PathEscapeError`, `UnsafeFileError`), which propagate. `suppress(OmsError)`
    itself is refused by a test."""

    def __init__(self, *kinds: type[BaseException]) -> None:
        self.kinds = kinds or (OmsError,)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: object, tb: object) -> bool:
        return kind is not None and issubclass(kind, self.kinds) and not issubclass(kind, ATTACKS)

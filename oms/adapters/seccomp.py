"""The sandbox's seccomp filter, as a classic BPF program for `bwrap --seccomp FD` (pure; ADR 0012).

It refuses, with EPERM, the system calls that reach into another process of the same user: `ptrace`,
`process_vm_readv`, `process_vm_writev`, `pidfd_getfd`, `process_madvise`, and `perf_event_open` and
`kcmp`, which read another process (the second escape round sampled the init's stack with perf); and
the kernel keyrings (`add_key`, `request_key`, `keyctl`), a quota shared with the host user. Inside
its sandbox the agent runs as the same user as the sandbox's init, the process whose death takes
every sandboxed process down; with these calls it could clear the init's parent-death signal and
outlive its broker (the escape suite did, before this filter). The init is also hidden from `/proc`
(`/proc/1` is an empty read-only tmpfs), which closes the `/proc/1/mem` route. Everything else is
allowed: the agent's own tools, and the seccomp filters an agent CLI stacks for its own sandbox,
keep working (a debugger inside does not).

Every ABI a process on the machine can call is covered: x86_64 (and its x32 numbers) with i386, or
aarch64 (with arm's 32-bit ABI). An architecture the filter does not know is refused every call.
"""

from __future__ import annotations

import struct

AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_I386 = 0x40000003
AUDIT_ARCH_AARCH64 = 0xC00000B7
AUDIT_ARCH_ARM = 0x40000028
X32_BIT = 0x40000000
EPERM = 1
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
LD_ABS_W, JEQ_K, RET_K = 0x20, 0x15, 0x06
ARCH_OFFSET, NR_OFFSET = 4, 0  # fields of struct seccomp_data
# arch -> system call numbers refused: reaching into another process (ptrace,
# process_vm_readv/writev, pidfd_getfd, process_madvise, and the read-only views perf_event_open and
# kcmp), and the kernel keyrings (add_key, request_key, keyctl: a quota the sandbox would share with
# the host user).
_X86_64 = (101, 310, 311, 438, 440, 298, 312, 248, 249, 250)
_X32 = (521, 539, 540, 438, 440, 298, 312, 248, 249, 250)
DENIED: dict[int, tuple[int, ...]] = {
    AUDIT_ARCH_X86_64: (*_X86_64, *(X32_BIT | nr for nr in _X32)),
    AUDIT_ARCH_I386: (26, 347, 348, 438, 440, 336, 349, 286, 287, 288),
    AUDIT_ARCH_AARCH64: (117, 270, 271, 438, 440, 241, 272, 217, 218, 219),
    AUDIT_ARCH_ARM: (26, 376, 377, 438, 440, 364, 378, 309, 310, 311),
}
MACHINES = {
    "x86_64": (AUDIT_ARCH_X86_64, AUDIT_ARCH_I386),
    "aarch64": (AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM),
}

Insn = tuple[int, int, int, int]  # (code, jt, jf, k)


def program(machine: str) -> list[Insn]:
    """The filter for `machine` (`os.uname().machine`) as instructions; ValueError for one it cannot
    cover."""
    arches = MACHINES.get(machine)
    if arches is None:
        raise ValueError(f"no seccomp filter for machine {machine[:40]!r}")
    sections: list[list[Insn]] = []
    for arch in arches:  # per arch: load the number, one test per refused call, then allow
        numbers = DENIED[arch]
        body: list[Insn] = [(LD_ABS_W, 0, 0, NR_OFFSET)]
        for i, nr in enumerate(numbers):
            body.append((JEQ_K, len(numbers) - i, 0, nr))  # to the section's own deny
        body += [(RET_K, 0, 0, RET_ALLOW), (RET_K, 0, 0, RET_ERRNO | EPERM)]
        sections.append(body)
    head: list[Insn] = [(LD_ABS_W, 0, 0, ARCH_OFFSET)]
    dispatch_len = len(arches) + 1  # one jump per arch, then refuse an unknown one
    offset = dispatch_len - 1  # from the instruction after each jump to the first section
    for i, arch in enumerate(arches):
        head.append((JEQ_K, offset - i + sum(len(s) for s in sections[:i]), 0, arch))
    head.append((RET_K, 0, 0, RET_ERRNO | EPERM))
    out = head + [insn for section in sections for insn in section]
    if len(out) > 4096 or any(jt > 255 or jf > 255 for _, jt, jf, _ in out):
        raise ValueError("seccomp program too long")  # pragma: no cover (a fixed, small table)
    return out


def encode(insns: list[Insn]) -> bytes:
    """`struct sock_filter[]` bytes (native endianness: the kernel reads them as they are)."""
    return b"".join(struct.pack("=HBBI", code, jt, jf, k) for code, jt, jf, k in insns)


def run(insns: list[Insn], arch: int, nr: int) -> int:
    """What the program returns for a call (`nr` on `arch`): the reference interpreter the tests
    use."""
    acc = 0
    pc = 0
    while pc < len(insns):
        code, jt, jf, k = insns[pc]
        pc += 1
        if code == LD_ABS_W:
            acc = arch if k == ARCH_OFFSET else nr if k == NR_OFFSET else 0
        elif code == JEQ_K:
            pc += jt if acc == k else jf
        elif code == RET_K:
            return k
        else:
            raise ValueError(f"unknown instruction {code:#x}")
    raise ValueError("the program fell off its end")

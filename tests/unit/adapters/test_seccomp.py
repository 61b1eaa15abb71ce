"""The sandbox's seccomp filter (`adapters/seccomp.py`), run by a reference BPF interpreter: exactly
the listed calls of every ABI are refused, everything else allowed, an unknown ABI refused; and the
real kernel agrees (a sandbox with the filter gets EPERM from `ptrace`, and nothing else
changes)."""

from __future__ import annotations

import os
import struct
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.adapters import bwrap, seccomp
from oms.adapters.sandbox import system_args

DENY = seccomp.RET_ERRNO | seccomp.EPERM


@pytest.mark.parametrize("machine", sorted(seccomp.MACHINES))
def test_every_listed_call_of_every_abi_is_refused(machine: str) -> None:
    insns = seccomp.program(machine)
    for arch in seccomp.MACHINES[machine]:
        for nr in seccomp.DENIED[arch]:
            assert seccomp.run(insns, arch, nr) == DENY


@given(
    machine=st.sampled_from(sorted(seccomp.MACHINES)), nr=st.integers(0, 2**32 - 1), data=st.data()
)
def test_everything_else_is_allowed_and_an_unknown_abi_refused(
    machine: str, nr: int, data: st.DataObject
) -> None:
    insns = seccomp.program(machine)
    arch = data.draw(
        st.sampled_from([*seccomp.MACHINES[machine], 0, 0xC000003F, seccomp.AUDIT_ARCH_ARM])
    )
    expected = (
        DENY
        if arch not in seccomp.MACHINES[machine] or nr in seccomp.DENIED[arch]
        else seccomp.RET_ALLOW
    )
    assert seccomp.run(insns, arch, nr) == expected


def test_the_encoding_is_struct_sock_filter() -> None:
    insns = seccomp.program("x86_64")
    data = seccomp.encode(insns)
    assert len(data) == 8 * len(insns)
    assert [struct.unpack("=HBBI", data[i : i + 8]) for i in range(0, len(data), 8)] == insns


def test_an_unknown_machine_has_no_filter() -> None:
    with pytest.raises(ValueError, match="no seccomp filter"):
        seccomp.program("riscv64")


PROBE = r"""
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    r = libc.syscall(nr, *args)
    return "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
print("ptrace", call(101, 16, 1, 0, 0))          # PTRACE_ATTACH to the init
print("process_vm_writev", call(311, 1, 0, 0, 0, 0, 0))
print("getpid", call(39))
"""


@pytest.mark.skipif(
    os.uname().machine != "x86_64", reason="the probe's system call numbers are x86_64's"
)
def test_the_kernel_refuses_ptrace_in_a_filtered_sandbox() -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, seccomp.encode(seccomp.program("x86_64")))
    os.close(write_end)
    host = bwrap.host()
    argv = [
        bwrap.locate(),
        "--unshare-user",
        "--unshare-pid",
        "--die-with-parent",
        "--proc",
        "/proc",
    ]
    argv += system_args(host.system)
    argv += ["--seccomp", str(read_end), "--", "python3", "-c", PROBE]
    done = subprocess.run(
        argv, capture_output=True, text=True, pass_fds=(read_end,), timeout=60, check=False
    )
    os.close(read_end)
    assert done.returncode == 0, done.stderr
    assert "ptrace EPERM" in done.stdout
    assert "process_vm_writev EPERM" in done.stdout
    assert "getpid ok" in done.stdout

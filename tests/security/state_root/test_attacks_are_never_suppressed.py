"""SECURITY.md: a path that escapes the state root (`PathEscapeError`) or a file that is not oms's
own (`UnsafeFileError`) is an attack, never a fault to tolerate. Code that shrugs off a failed step
does it with `errors.suppress_faults`, which lets these two through; `suppress(OmsError)` — which
swallowed them — is refused in oms/ by tests/unit/test_one_home.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.errors import (
    ATTACKS,
    NotFoundError,
    OmsError,
    PathEscapeError,
    UnsafeFileError,
    suppress_faults,
)
from oms.services.proxy import tokens as proxy_tokens
from tests.chain import Chain


@pytest.mark.parametrize("error", [OmsError, NotFoundError, OSError])
def test_a_fault_is_suppressed(error: type[Exception]) -> None:
    with suppress_faults(OmsError, OSError):
        raise error("a fault")


@pytest.mark.parametrize("error", [PathEscapeError, UnsafeFileError])
def test_an_attack_is_not(error: type[OmsError]) -> None:
    assert issubclass(error, ATTACKS)
    with pytest.raises(error), suppress_faults(OmsError, OSError):
        raise error("an attack")


def test_a_symlinked_dispatch_record_is_not_silently_skipped_by_a_token(
    chain: Chain, tmp_path: Path
) -> None:
    """`proxy/tokens.issue_token` reads the dispatch for its role, tolerating a missing one: a
    dispatch's record directory swapped for a symlink out of the state root used to be read as
    "no dispatch" and a token issued all the same. Now the escape stops the issue."""
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o700)
    records = chain.state / "records" / "dispatch"
    records.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.symlink(outside, records / "dsp-swapped")
    with chain.workspace() as ws, pytest.raises(PathEscapeError):
        proxy_tokens.issue_token(ws, "dsp-swapped", "oms-anthropic")
    assert list(outside.iterdir()) == []

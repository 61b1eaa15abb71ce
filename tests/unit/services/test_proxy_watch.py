"""The proxy's watch (issue 24): a proxy stops serving once its record names another process or
none, and never because the record could not be read for a moment. CI found the second: a sandbox
holding a hundred idle connections used up the proxy's descriptors, the watch could not open
`proxy/proxy.json`, took that for "not recorded" and ended the proxy every worker needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from oms.errors import FsioError
from oms.fsio import Root
from oms.services.proxy import watch

RECORD, START_LOCK = "proxy/proxy.json", "proxy/start.lock"


def _watch(tmp_path: Path) -> tuple[Root, watch.Watch]:
    root = Root.open(str(tmp_path / "state"), create=True)
    return root, watch.Watch(root, RECORD, 4096, START_LOCK)


def test_a_proxy_no_record_names_stops(tmp_path: Path) -> None:
    _, w = _watch(tmp_path)
    why = w.superseded()
    assert why is not None
    assert "does not name this proxy" in why


def test_a_record_that_cannot_be_read_now_does_not_stop_the_proxy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, w = _watch(tmp_path)

    def out_of_descriptors(rel: str, cap: int, *, any_mode: bool = False) -> bytes | None:
        raise FsioError(f"{rel}: too many open files")

    monkeypatch.setattr(root, "read_optional", out_of_descriptors)
    assert w.superseded() is None

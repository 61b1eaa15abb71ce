"""What `oms version` reads from a bundle (`adapters/build.py`, docs/adr/0033): build information
that is missing, not strict JSON or not its schema is an integrity error with the fix, one line;
from source there is no digest and no build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oms.adapters import build
from oms.errors import IntegrityError
from oms.schemas import validate

INFO = {
    "format": "oms-build-v1",
    "version": "0.1.0",
    "commit": "a" * 40,
    "dirty": False,
    "source_sha256": "b" * 64,
    "packages_sha256": "c" * 64,
    "python": "3.11.7",
    "pyinstaller": "6.22.3",
    "source_date_epoch": 1700000000,
    "built_at": "2023-11-14T22:13:20.000Z",
}


def test_valid_build_information_is_read(tmp_path: Path) -> None:
    (tmp_path / "build-info.json").write_text(json.dumps(INFO))
    assert build._build_info(str(tmp_path / "build-info.json")) == INFO


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "carries no build information"),
        ('{"format": "oms-build-v1", "format": "x"}', "invalid: .*duplicate"),
        (json.dumps({**INFO, "dirty": "no"}), r"invalid: .*\$\.dirty"),
        (json.dumps({**INFO, "built_at": 1.5}), "invalid"),
        (json.dumps({**INFO, "extra": 1}), "invalid: .*extra"),
    ],
)
def test_bad_build_information_is_an_integrity_error_with_the_fix(
    tmp_path: Path, content: str | None, why: str
) -> None:
    path = tmp_path / "build-info.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(IntegrityError, match=why) as info:
        build._build_info(str(path))
    assert info.value.remedy == "build and install it again: ./.ci/setup --install"
    assert "\n" not in info.value.message


def test_from_source_there_is_no_digest_and_no_build() -> None:
    report = build.this_build().to_json()
    validate("cli-version", report, where="this_build")
    assert (report["running"], report["digest"], report["build"]) == ("source", None, None)

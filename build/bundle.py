"""What of an installed distribution the frozen bundle carries (used by build/oms.spec; tested by
tests/security/install/test_reproducible_from_any_checkout.py).

pip writes records about one installation into each `*.dist-info`: RECORD hashes every file it
installed (among them console scripts whose shebang names the venv), REQUESTED and INSTALLER say how
the package was asked for and by what, direct_url.json where it came from. They describe the
installation, not the package: bundled, a checkout (or venv) at another path builds another bundle.
Nothing reads them at run time (a version comes from METADATA), so the bundle leaves them out.
"""

from __future__ import annotations

import posixpath

INSTALLATION_RECORDS = frozenset({"RECORD", "REQUESTED", "INSTALLER", "direct_url.json"})


def is_installation_record(dest: str) -> bool:
    """Whether a bundle destination path (`<name>.dist-info/<file>`) is one of pip's installation
    records."""
    path = dest.replace("\\", "/")
    return posixpath.basename(path) in INSTALLATION_RECORDS and posixpath.dirname(path).endswith(
        ".dist-info"
    )

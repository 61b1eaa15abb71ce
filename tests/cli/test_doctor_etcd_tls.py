"""`oms doctor` reads the person's etcd TLS settings (ADR 0043, amendment `etcdtls`) as a command on
an etcd store would, so what is wrong with them is named before a command needs them: nothing when
there is no `oms/etcd.toml`; a line when they load; one failed line with its fix when the key is
readable by others or is not the certificate's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.chain import Chain
from tests.helpers import OmsCommand
from tests.tls_certs import authority, leaf


def _tls_line(oms: OmsCommand, chain: Chain, home: Path) -> list[dict[str, object]]:
    done = oms.run(
        "doctor", "--state-root", str(chain.state), "--json",
        env={"XDG_CONFIG_HOME": str(home)}, cwd=chain.repo,
    )  # fmt: skip
    return [c for c in json.loads(done.stdout)["checks"] if c["check"] == "etcd tls"]


def test_doctor_names_the_etcd_tls_settings_and_what_is_wrong_with_them(
    chain: Chain, oms: OmsCommand, tmp_path: Path
) -> None:
    home = tmp_path / "config"
    assert _tls_line(oms, chain, home) == []  # no settings: nothing to say
    ca = authority(tmp_path, "ca")
    client, other = (
        leaf(ca, tmp_path, "client", server=False),
        leaf(ca, tmp_path, "other", server=False),
    )
    (home / "oms").mkdir(parents=True)
    settings = home / "oms" / "etcd.toml"

    def named(key: Path) -> None:
        settings.write_text(
            f'[tls]\nca = "{ca.cert_path}"\ncert = "{client.cert}"\nkey = "{key}"\n'
        )

    named(client.key)
    [line] = _tls_line(oms, chain, home)
    assert (line["ok"], line["detail"]) == (
        True,
        f"a CA bundle and a client certificate and key from {settings}",
    )
    named(other.key)  # another certificate's key
    [line] = _tls_line(oms, chain, home)
    assert line["ok"] is False
    assert "the client certificate and key do not load" in str(line["detail"])
    named(client.key)
    client.key.chmod(0o644)
    [line] = _tls_line(oms, chain, home)
    assert line["ok"] is False
    assert str(client.key) in str(line["detail"])
    assert "chmod" in str(line["fix"]), line

"""The quoting functions round-trip through real bash, shlex and tomllib, and refuse exactly their
sets."""

from __future__ import annotations

import shlex
import subprocess
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.adapters.quoting import QuotingError, shell_join, shell_quote, toml_string, toml_value

HOSTILE = "'\"\\$`!*?~#&;|<>(){}[] =%^-"
printable = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
hostile = st.text(alphabet=st.sampled_from(list(HOSTILE) + ["a", "b", " "]), max_size=40)
anything = st.text(max_size=20)


@given(st.lists(printable | hostile, min_size=1, max_size=5))
def test_shell_join_round_trips_through_shlex(words: list[str]) -> None:
    assert shlex.split(shell_join(words)) == words


@given(st.lists(printable | hostile, min_size=1, max_size=4))
@settings(max_examples=150)
def test_shell_quote_round_trips_through_real_bash(words: list[str]) -> None:
    script = "printf '%s\\0' " + " ".join(shell_quote(w) for w in words)
    out = subprocess.run(["bash", "-c", script], capture_output=True, check=True).stdout
    assert out.split(b"\0")[:-1] == [w.encode() for w in words]


@given(anything)
def test_shell_quote_refuses_exactly_non_printable_ascii(word: str) -> None:
    allowed = all(0x20 <= ord(c) <= 0x7E for c in word)
    try:
        quoted = shell_quote(word)
    except QuotingError:
        assert not allowed
    else:
        assert allowed
        assert quoted.startswith("'")
        assert quoted.endswith("'")


@pytest.mark.parametrize("bad", ["a\nb", "tab\tx", "del\x7f", "nul\x00", "é", "\u2028", "😀"])
def test_shell_refusals(bad: str) -> None:
    with pytest.raises(QuotingError):
        shell_quote(bad)


def test_env_assignment_first_word_is_quoted() -> None:
    out = subprocess.run(
        ["bash", "-c", shell_join(["FOO=bar", "echo"]) + " 2>&1; true"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "command not found" in out  # quoted, FOO=bar is a command name, not an env assignment


scalar_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=30)


@given(scalar_text)
def test_toml_string_round_trips_or_refuses_exactly_controls(value: str) -> None:
    forbidden = any(ord(c) < 0x20 or ord(c) == 0x7F for c in value)
    try:
        text = toml_string(value)
    except QuotingError:
        assert forbidden
        return
    assert not forbidden
    assert tomllib.loads(f"k = {text}".encode().decode("utf-8"))["k"] == value


@given(st.integers(min_value=0xD800, max_value=0xDFFF))
def test_toml_refuses_lone_surrogates(code: int) -> None:
    with pytest.raises(QuotingError):
        toml_string("a" + chr(code))


values = st.recursive(
    st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | scalar_text.filter(lambda s: not any(ord(c) < 0x20 or ord(c) == 0x7F for c in s)),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='abc_-. /"', min_size=1, max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(alphabet="abcdef_-", min_size=1, max_size=6), values, max_size=4))
def test_toml_inline_values_round_trip(doc: dict[str, object]) -> None:
    text = "\n".join(f"{k} = {toml_value(v)}" for k, v in doc.items())
    assert tomllib.loads(text) == doc


def test_seed_mcp_override_shape_parses() -> None:
    argv = ["/opt/oms/oms", "worker", "bridge", "--state-root", "/srv/state with spaces/it's $HOME"]
    text = toml_value(
        {
            "oms_worker": {
                "command": argv[0],
                "args": argv[1:],
                "enabled_tools": ["read_dispatch"],
                "default_tools_approval_mode": "approve",
                "required": True,
            }
        }
    )
    parsed = tomllib.loads("mcp_servers = " + text)
    assert parsed["mcp_servers"]["oms_worker"]["args"][-1] == "/srv/state with spaces/it's $HOME"

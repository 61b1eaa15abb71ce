"""Config parsing: the scaffold is valid; errors name the key; TOML floats and dates are refused."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import sandbox_limits
from oms.domain.config import DEFAULT_CONFIG, parse_config
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import ConfigError


def test_default_config_is_valid() -> None:
    config = parse_config(DEFAULT_CONFIG.encode())
    assert config.advisor_role == "oms.exec-advisor"
    assert config.roles["oms.exec-advisor"].transport == "codex_exec"
    assert config.roles["oms.ticket-executor"].transport == "claude_interactive"
    assert config.max_workers == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("format = [", "invalid TOML"),
        ("format = 1.0", "$.format: floating"),
        ("when = 1979-05-27T07:32:00Z", "$.when: datetime"),
        (DEFAULT_CONFIG.replace("format = 1", "format = 2"), "$.format"),
        (
            DEFAULT_CONFIG.replace('role = "oms.exec-advisor"', 'role = "oms.nobody"'),
            "not a configured role",
        ),
        (DEFAULT_CONFIG.replace("max_workers = 2", "max_workers = 0"), "$.pool.max_workers"),
        (DEFAULT_CONFIG.replace('transport = "codex_goal"', 'transport = "yolo"'), "transport"),
        (
            DEFAULT_CONFIG
            + (
                '\n[roles."Bad Role"]\nmodel="m"\ntransport="command"\nsandbox="read-only"\n'
                'argv=["x"]\n'
            ),
            "Bad Role",
        ),
        (DEFAULT_CONFIG + "\nextra = true\n", "extra"),
    ],
)
def test_errors_name_the_file_and_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text.encode(), "/repo/.oms/config.toml")
    assert info.value.message.startswith("/repo/.oms/config.toml: ")
    assert message in info.value.message


def test_non_utf8_refused() -> None:
    with pytest.raises(ConfigError, match="UTF-8"):
        parse_config(b"format = 1\n\xff")


@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    try:
        parse_config(data)
    except ConfigError:
        pass


_CODEX = 'transport = "codex_goal"'


@pytest.mark.parametrize(
    ("endpoint", "ok"),
    [
        ("https://gateway.example.com/v1", True),
        ("https://10.0.0.5:8443/openai/v1", True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434", True),
        ("http://[::1]:9000/v1", True),
        (
            "http://gateway.example.com/v1",
            False,
        ),  # plain HTTP only to loopback: code and keys travel there
        ("http://127.0.0.1.evil.com/v1", False),
        ("https://user:pw@example.com/v1", False),
        ("https://example.com/v1?x=$(id)", False),
        ("file:///etc/passwd", False),
        ("https://exa mple.com", False),
    ],
)
def test_role_endpoints(endpoint: str, ok: bool) -> None:
    text = DEFAULT_CONFIG.replace(_CODEX, f'{_CODEX}\nendpoint = "{endpoint}"')
    if ok:
        assert parse_config(text.encode()).roles["oms.goal-long-executor"].endpoint == endpoint
    else:
        with pytest.raises(ConfigError, match="endpoint"):
            parse_config(text.encode())


PROVIDERS = """
[providers.fast]
family = "anthropic"
models = { quick = "claude-quick" }
quota_probe = ["/usr/bin/quota-probe", "--json"]
quota_skip_at = 90

[routing]
order = ["fast"]
active = "fast"
cooldown_minutes = 45
"""


def test_providers_routing_and_a_role_class_parse() -> None:
    text = (
        DEFAULT_CONFIG
        + PROVIDERS
        + '\n[roles."oms.ticket-executor".route]\nprovider = "fast/quick"\nmax_cost_tier = 2\n'
    )
    config = parse_config(text.encode())
    fast = config.routing.providers["fast"]
    assert (fast.family, fast.cost_tier, fast.quota_probe, fast.quota_skip_at) == (
        "anthropic", 3, ("/usr/bin/quota-probe", "--json"), 90
    )  # fmt: skip
    assert (config.routing.order, config.routing.active, config.routing.cooldown_minutes) == (
        ("fast",),
        "fast",
        45,
    )
    route = config.roles["oms.ticket-executor"].route
    assert (route.provider, route.alias, route.max_cost_tier) == ("fast", "quick", 2)
    assert config.roles["oms.goal-long-executor"].route.provider is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('\n[roles."oms.ticket-executor".route]\nmax_cost_tier = 2\n', "needs [providers]"),
        (
            PROVIDERS + '\n[roles."oms.goal-long-executor".route]\nprovider = "fast"\n',
            "which speaks anthropic",
        ),
        (PROVIDERS.replace('active = "fast"', 'active = "slow"'), "routing names provider 'slow'"),
        (PROVIDERS.replace('family = "anthropic"', 'family = "gemini"'), "family"),
        (PROVIDERS.replace("quota_skip_at = 90", "quota_skip_at = 101"), "quota_skip_at"),
        (PROVIDERS.replace("[providers.fast]", "[providers.Fast]"), "providers"),
    ],
)
def test_a_routing_mistake_is_named(extra: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_config((DEFAULT_CONFIG + extra).encode())


# --------------------------------------------------------------------------- [limits] (issue 23)
def test_limits_default_to_what_a_laptop_survives() -> None:
    config = parse_config(DEFAULT_CONFIG.encode())
    assert config.limits == SandboxLimits()
    assert config.limits.pids == 2048
    assert config.limits.memory_bytes == 4 << 30
    assert config.limits.cpu_weight < 100  # below oms's own share
    assert not config.limits.unsafe
    assert all(role.limits == config.limits for role in config.roles.values())


def test_a_role_overrides_the_global_limits_key_by_key() -> None:
    header = '[roles."oms.goal-long-executor"]   # Codex CLI in /goal mode\n'
    text = DEFAULT_CONFIG.replace(header, header + "limits = { memory_bytes = 8589934592 }\n")
    config = parse_config((text + "\n[limits]\npids = 512\ndisk_bytes = 6442450944\n").encode())
    assert config.limits == SandboxLimits(pids=512, disk_bytes=6 << 30)
    goal = config.roles["oms.goal-long-executor"].limits
    assert goal == SandboxLimits(pids=512, disk_bytes=6 << 30, memory_bytes=8 << 30)
    assert config.roles["oms.ticket-executor"].limits == config.limits
    assert goal.to_json()["memory_bytes"] == 8 << 30  # the intent's form
    assert sandbox_limits.from_json(goal.to_json()) == goal


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ("pids = 4", "$.limits.pids"),
        ("pids = true", "$.limits.pids"),
        ("memory_bytes = 1024", "$.limits.memory_bytes"),
        ("cpu_weight = 0", "$.limits.cpu_weight"),
        ('cgroup = "none"', "$.limits.cgroup"),
        ("swap = 0", "swap"),
        ("file_bytes = 2147483648\ndisk_bytes = 1073741824", "file_bytes 2147483648 is above"),
    ],
)
def test_bad_limits_are_named(limits: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        text = DEFAULT_CONFIG + f"\n[limits]\n{limits}\n"
        parse_config(text.encode(), "/repo/.oms/config.toml")
    assert message in info.value.message


def test_unsafe_none_is_warned_of_where_it_is_set() -> None:
    text = DEFAULT_CONFIG.replace(
        '[roles."oms.ticket-executor"]      # Claude Code, interactive, in a tmux pane\n',
        '[roles."oms.ticket-executor"]      # Claude Code, interactive, in a tmux pane\n'
        'limits = { cgroup = "unsafe-none" }\n',
    )
    config = parse_config(text.encode())
    roles = {r: role.limits for r, role in config.roles.items()}
    (line,) = sandbox_limits.unbounded(config.limits, roles)
    assert line.startswith("role oms.ticket-executor: cgroup = 'unsafe-none'")


# ---------------------------------------------------------------------------- containment (ADR
# 0026)
_CLAUDE_ROLE = '[roles."oms.ticket-executor"]'


def _with_role_keys(keys: str, role: str = _CLAUDE_ROLE) -> bytes:
    """The scaffold with `keys` added to the role whose header line starts with `role`."""
    start = DEFAULT_CONFIG.index(role)
    end = DEFAULT_CONFIG.index("\n", start) + 1
    return (DEFAULT_CONFIG[:end] + keys + DEFAULT_CONFIG[end:]).encode()


def test_contained_and_keyless_is_the_default() -> None:
    config = parse_config(DEFAULT_CONFIG.encode())
    for role in config.roles.values():
        assert (role.network, role.credential, role.opt_outs) == ("none", "token", ())


def test_a_role_opts_out_only_by_its_own_keys() -> None:
    config = parse_config(_with_role_keys('network = "host"\ncredential = "raw"\n'))
    role = config.roles["oms.ticket-executor"]
    assert role.opt_outs == ('network = "host"', 'credential = "raw"')
    host_only = parse_config(_with_role_keys('network = "host"\n')).roles["oms.ticket-executor"]
    assert host_only.credential == "token"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_with_role_keys('credential = "raw"\n'), 'credential = "raw" needs network = "host"'),
        (_with_role_keys('network = "everywhere"\n'), "network"),
        (_with_role_keys('credential = "borrowed"\n'), "credential"),
        (
            _with_role_keys('network = "host"\n', '[roles."oms.exec-advisor"]'),
            "network and credential are a worker role's",
        ),
        (
            DEFAULT_CONFIG.encode()
            + b'\n[roles."oms.cmd"]\nmodel = "m"\ntransport = "command"\n'
            + b'sandbox = "ticket-worktree-write"\n'
            + b'argv = ["true"]\nnetwork = "host"\ncredential = "raw"\n',
            "a command worker holds no model credential",
        ),
        (DEFAULT_CONFIG.encode() + b"\n[proxy]\nworkers = false\n", 'credential = "raw"'),
        (DEFAULT_CONFIG.encode() + b'\n[providers.oms-openai]\nfamily = "openai"\n', "oms's own"),
    ],
)
def test_containment_settings_are_refused_where_they_mean_nothing(
    text: bytes,
    message: str,
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "/repo/.oms/config.toml")
    assert message in info.value.message


def test_proxy_workers_true_is_still_accepted() -> None:
    parse_config(DEFAULT_CONFIG.encode() + b"\n[proxy]\nworkers = true\n")  # ADR 0020's configs


def test_the_proxys_request_deadline_may_be_shortened_never_lengthened() -> None:
    """`[proxy] request_deadline_s`: 10 s unless set; a shorter one holds, a longer one is refused
    (a dribbling sender would keep its slot longer)."""
    assert parse_config(DEFAULT_CONFIG.encode(), "c").proxy.request_deadline_s == 10.0
    shorter = parse_config(DEFAULT_CONFIG.encode() + b"\n[proxy]\nrequest_deadline_s = 2\n", "c")
    assert shorter.proxy.request_deadline_s == 2.0
    for bad in (b"11", b"0.5", b"true", b'"2"'):
        with pytest.raises(ConfigError, match="request_deadline_s"):
            parse_config(DEFAULT_CONFIG.encode() + b"\n[proxy]\nrequest_deadline_s = " + bad, "c")

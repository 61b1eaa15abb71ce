"""Shared fixtures: an isolated home, pinned git, fsio strategies, state roots, and the oms
command."""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from oms.canonical import now
from oms.store import StateRoot, Store
from tests.chain import Chain, make_chain
from tests.etcd_cluster import etcd_cluster, etcd_prefix
from tests.helpers import (
    RESOLVERS,
    USERNS_FLAG,
    OmsCommand,
    in_user_namespace,
    isolate_home,
    oms_command,
    scaled,
    stray_proxies,
)

# The etcd fixtures are registered here alone: a module that imports a session fixture gets one of
# its own, so each such module started a cluster of its own and kept it to the end of the session
# (about 20 clusters at once in one CI run). `tests/unit/test_fixture_homes.py` keeps it so.
__all__ = ["etcd_cluster", "etcd_prefix"]

# A run started in the background by a non-interactive shell (`./.ci/run &`, a CI runner's script)
# inherits SIGINT and SIGQUIT ignored, as POSIX asks of such a shell, and an ignored signal stays
# ignored across `exec`: every `oms` a test started ignored Ctrl-C. The run takes the defaults back
# (a handler is reset to the default in a child; tests/unit/test_signals_of_children.py).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)

settings.register_profile(
    "oms",
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.load_profile("oms")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """A `foreign_owner` test needs a file another user owns. Root makes one with chown; anyone else
    runs the test again as root of a new user and mount namespace, where `make_foreign` bind-mounts
    a file real root owns (shown as the overflow uid) over it. The outer test passes only if that
    run passes."""
    if (
        pyfuncitem.get_closest_marker("foreign_owner") is None
        or os.geteuid() == 0
        or in_user_namespace()
    ):
        return None
    basetemp = tempfile.mkdtemp(prefix="oms-userns-")
    inner = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "--basetemp",
        basetemp,
    ]
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", *inner, pyfuncitem.nodeid],
        env={**os.environ, USERNS_FLAG: "1"},
        cwd=str(pyfuncitem.config.rootpath),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    shutil.rmtree(basetemp, ignore_errors=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "\n1 passed in " in done.stdout, done.stdout[-2000:]
    return True


@pytest.fixture(autouse=True)
def _no_repository_made_above_the_tests() -> Iterator[None]:
    """No test leaves a `.git` in the temp directory: every test's folder is under it, and oms
    refuses a state root inside a git worktree, so a `.git` there fails whatever runs beside (a CI
    run saw "state root … is inside the git worktree /tmp"). The test that left one fails here
    (its teardown), and the entry is removed so the others run on."""
    yield
    for where in (Path(tempfile.gettempdir()), Path(tempfile.gettempdir()) / f"pytest-of-{_USER}"):
        made = where / ".git"
        if made.is_symlink() or made.is_file():
            made.unlink()
        elif made.is_dir():
            shutil.rmtree(made, ignore_errors=True)
        else:
            continue
        pytest.fail(
            f"a .git was left in {where} (removed): a test made a repository above the tests"
        )


_USER = getpass.getuser()  # as pytest names its folder


def _checkout_now(root: Path) -> dict[str, str]:
    """What of the checkout differs from its commit: each changed or new (not ignored) file, with a
    digest of its bytes."""
    listed = subprocess.run(
        ["git", "status", "--porcelain", "-z", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        check=False,
    ).stdout.decode(errors="replace")
    found: dict[str, str] = {}
    for entry in filter(None, listed.split("\0")):
        rel = entry[3:]
        path = root / rel
        found[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else entry[:2]
    return found


def pytest_sessionstart(session: pytest.Session) -> None:
    """The run begins: what the checkout holds is noted (by the controller, not an xdist worker)."""
    if not hasattr(session.config, "workerinput") and (session.config.rootpath / ".git").exists():
        session.config.stash[_CHECKOUT] = _checkout_now(session.config.rootpath)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No test writes into the checkout (OMS_RECORD=1 makes the recordings again, on purpose): a
    changed source is a build no longer of this tree (`.ci/setup --install` would build again under
    the frozen tests) and a change a person did not make."""
    before = session.config.stash.get(_CHECKOUT, None)
    if before is None or os.environ.get("OMS_RECORD") == "1":
        return
    after = _checkout_now(session.config.rootpath)
    changed = sorted(
        rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)
    )
    if changed:
        print(f"\nthe tests changed the checkout: {', '.join(changed[:10])}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_CHECKOUT = pytest.StashKey[dict[str, str]]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a pytest-xdist worker (`.ci/test`: two workers, a file at a time, in the collected order:
    `--no-loadscope-reorder`), the files holding a `slow` test come first, so that the last files
    handed out are short and neither worker idles long beside the other's long file. The order
    within a file, and of the other files, stays as collected."""
    if not hasattr(config, "workerinput"):
        return
    slow = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture(autouse=True)
def _no_real_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any write to the real home fails (`isolate_home`)."""
    isolate_home(monkeypatch, tmp_path_factory)


@pytest.fixture(params=RESOLVERS)
def resolver(request: pytest.FixtureRequest) -> str:
    """Each fsio resolver: openat2, the forced walk, and auto with openat2 failing ENOSYS."""
    return str(request.param)


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    """An initialised state root."""
    path = tmp_path / "state"
    state, _ = StateRoot.create(str(path), now())
    state.close()
    return path


@pytest.fixture
def store(state_path: Path) -> Iterator[Store]:
    """An open store on a fresh state root."""
    with Store.open(str(state_path)) as opened:
        yield opened


@pytest.fixture
def oms() -> OmsCommand:
    """The oms command under test (source, or frozen when OMS_TEST_BINARY is set)."""
    return oms_command()


@pytest.fixture
def chain(tmp_path: Path) -> Iterator[Chain]:
    """A real repository and state root ready for the authority chain (see tests/chain.py)."""
    yield from make_chain(tmp_path)


@pytest.fixture
def deliverable(chain: Chain, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chain]:
    """`chain`, with the oms executable known and our tmux server killed afterwards (our socket
    only)."""
    binary = os.environ.get("OMS_TEST_BINARY")  # the frozen binary, when the suite runs against it
    monkeypatch.setenv(
        "OMS_EXECUTABLE",
        os.path.abspath(binary) if binary else str(Path(sys.executable).parent / "oms"),
    )
    yield chain
    subprocess.run(
        ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"],
        capture_output=True,
        check=False,
    )


@pytest.fixture(autouse=True)
def _no_stray_proxies(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A model proxy a test's launch started on demand (ADR 0026) ends with the test, if the test
    did not end its workers: the proxies serving a state root under this run's temporary directory,
    by pid (not those of a state root a wider fixture holds: `helpers.HELD_STATE_ROOTS`)."""
    yield
    for pid in stray_proxies(str(tmp_path_factory.getbasetemp()).encode()):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


@pytest.fixture(autouse=True)
def _no_stray_bridges() -> Iterator[None]:
    """Bridges a failed test left running are killed (ours only, by PID); test brokers are
    stopped."""
    from tests.agent_side import BROKERS, SPAWNED

    yield
    while SPAWNED:
        SPAWNED.pop().kill()
    while BROKERS:
        BROKERS.pop().stop()


@pytest.fixture
def probes_given_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quota probe run in the test's own process gets `scaled` time. Its sandbox has half a
    default CPU share, and beside a CPU hog on both cores a Python probe ran past the product's
    10 s: these tests check what a probe reaches, not how fast (a probe that times out in use
    leaves its provider's quota unknown, with the reason, until the next probe)."""
    from oms.limits import LIMITS
    from oms.services.chain import providers

    bound = scaled(LIMITS.provider_probe_timeout_s)
    monkeypatch.setattr(providers, "LIMITS", LIMITS._replace(provider_probe_timeout_s=bound))

"""The delivery protocol's spin models (`tests/model/delivery.pml`, ADR 0014; and
`tests/model/hosts.pml`, cross-host delivery on an etcd store, ADR 0043's amendment `spin2`),
checked, and kept in step with the code.

* Every configuration is searched exhaustively (safety: assertions and invalid end states) and must
  finish with no error and without running out of depth or memory.
* Every mutation re-introduces a bug the code had or could have; spin must find a violation of the
  named property, so the model's checks are shown to be able to fail.
* Every fix the model shows to be defence in depth (another fix guards the same property by itself)
  is taken away alone and spin must find nothing; taken away with the other, spin must find the
  violation (a mutation). If a change makes one necessary again, its entry moves to `MUTATIONS`.
* The code has no known gap delivery.pml finds (ADR 0014). A gap found next is written into the
  model as a `GAP_*` allowance of its property, with a test here that spin finds it with
  `-D GAP_*`, until it is closed. hosts.pml models delivery as it must run on etcd, which is not
  wired yet: its default is the design, and `-D GAP_LOCAL_BEGUN` puts the code's begun file back,
  which spin finds unless the supervisor starts only on a session naming its own pane
  (`-D OWN_SESSION=1`, as the code does: the `own-session*` configurations; without it, a mutation).
* The model's steps and `oms/domain/protocol.py` name the same steps, every function named there
  exists, and no function of the modelled modules writes protocol state without being in one of its
  tables.

* tcc builds every verifier (~0.03 s of CPU a build; gcc -O0 takes ~1.1 s, more than most searches);
  gcc builds one configuration's too, and both searches must agree state for state (ADR 0014).

spin, gcc (spin's preprocessor) and tcc are required (`.ci/setup` installs them): a missing tool
fails, it does not skip.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from oms.domain.protocol import NOT_MODELLED, PROTOCOL_STEPS

MODEL = Path(__file__).with_name("delivery.pml")
# cross-host delivery on an etcd store: two hosts' deliverers, the lock a lease, its fencing token
HOSTS_MODEL = Path(__file__).with_name("hosts.pml")
PAN_DEPTH = 100_000  # far above the deepest path (< 300 steps): a truncated search fails instead
CC_FLAGS = ("-DSAFETY", "-DCOLLAPSE", "-DMEMLIM=1024")
# the compiler of every verifier (tcc: no optimiser, a build in milliseconds), and the one that
# builds CROSS_CHECKED's verifier too, whose search must come out the same (states, transitions)
COMPILER: tuple[str, ...] = ("tcc",)
REFERENCE: tuple[str, ...] = ("gcc", "-O0")
CROSS_CHECKED = "deliver"
TOOLS = ("spin", "gcc", "tcc")

# name -> -D flags of a configuration that must verify with no error
CONFIGS: dict[str, str] = {
    # two deliverers, each crashing once anywhere; a TUI whose activation may fail; an agent that
    # may exit
    "deliver": "-DCONDUCTORS=2 -DCRASHES=1 -DCRASHING=1 -DTUI=1 -DAGENT_EXITS=1",
    # one deliverer crashing twice, while the tmux server may die (every pane hangs up)
    "tmux": "-DCRASHES=2 -DCRASHING=1 -DTUI=1 -DAGENT_EXITS=1 -DTMUX_DIES=1",
    # a deliverer and the agent's bridge (acknowledge, record a result), both crashing once
    "bridge": "-DBRIDGES=1 -DCRASHES=1 -DCRASHING=3 -DTUI=1",
    # two bridges racing record_dispatch_result with different results, each crashing once
    "results": "-DCONDUCTORS=0 -DLAUNCHED=1 -DBRIDGES=2 -DCRASHES=1",
    # ... with the same result
    "results-same": "-DCONDUCTORS=0 -DLAUNCHED=1 -DBRIDGES=2 -DCRASHES=1 -DSAME_RESULT=1",
    # park and resume (any two, any order) against a crashing deliverer of a TUI worker
    "park-resume": "-DOPS=2 -DREQUESTS=3 -DCRASHES=1 -DCRASHING=1 -DTUI=1",
    # stop against a crashing deliverer
    "stop": "-DOPS=1 -DREQUESTS=4 -DCRASHES=1 -DCRASHING=1",
    # stop and observe while the agent may exit and the tmux server may die
    "observe": "-DOPS=2 -DREQUESTS=12 -DCRASHES=1 -DCRASHING=4 -DAGENT_EXITS=1 -DTMUX_DIES=1",
    # resume of a worker with no session (`again`: a new pane after an earlier one) against a
    # crashing deliverer, while the tmux server may die (the supervisors' hang-up check and its
    # residual window)
    "resume": "-DOPS=1 -DREQUESTS=2 -DCRASHES=1 -DCRASHING=1 -DTMUX_DIES=1",
    # observe against a re-delivery (the deliverer crashing once) while the tmux server may die
    "redeliver": "-DOPS=1 -DREQUESTS=8 -DCRASHES=1 -DCRASHING=1 -DTMUX_DIES=1",
    # resume (`again`) and observe at the same time (a second operator, or `oms conductor tick`),
    # from where a deliverer that died after registering its pane left it, while the tmux server may
    # die; each may crash
    "again-observe": (
        "-DCONDUCTORS=0 -DBEGUN=1 -DOPS=1 -DREQUESTS=2 -DOPS2=1 "
        "-DREQUESTS2=8 -DCRASHES=1 -DCRASHING=4 -DTMUX_DIES=1"
    ),
    # resume of a never-launched worker while the dispatch may be cancelled and an authority check
    # may refuse (the worker parked), against a crashing deliverer
    "cancel": "-DOPS=1 -DREQUESTS=2 -DCRASHES=1 -DCRASHING=1 -DCANCEL=1 -DAUTH_FAILS=1",
}


# hosts.pml's configurations (each must verify with no error): a lease lapsing while its holder
# acts, a partition longer than a lease, crashes, the result lock
HOST_CONFIGS: dict[str, str] = {
    # a deliverer on each host; one holder's lease lapses while it acts; the agent may exit
    "lapse": "",
    # two deliverers on host A and one on B
    "three": "-DDELIVERERS_A=2",
    # two deliverers on one host, two lapses (the same host takes the lock afresh)
    "same-host": "-DDELIVERERS_A=2 -DDELIVERERS_B=0 -DLAPSES=2",
    # host A cut off from the cluster for longer than a lease, then healed; no other lapse
    "partition": "-DPARTITION=1 -DLAPSES=0",
    # ... and a holder's lease lapsing as well
    "partition-lapse": "-DPARTITION=1",
    # each deliverer SIGKILLed once (its lease is not revoked: it lapses)
    "crash": "-DCRASHES=1",
    # two calls of the agent's record_dispatch_result on host A (each the other's retry), under the
    # result lock, while host A is cut off and healed, leases lapse, calls crash
    "results": (
        "-DDELIVERERS_A=0 -DDELIVERERS_B=0 -DLAUNCHED=1 -DBRIDGES=2 -DPARTITION=1 -DCRASHES=1 "
        "-DLAPSES=2"
    ),
    # the code (ADR 0043 "branch `ownpane`"): the begun mark a file of each host
    # (GAP_LOCAL_BEGUN), and the supervisor starting only on a session naming its own pane
    # (`domain/own_pane.py`), in each race the begun file alone loses
    "own-session": "-DGAP_LOCAL_BEGUN -DOWN_SESSION=1",
    "own-session-partition": "-DGAP_LOCAL_BEGUN -DOWN_SESSION=1 -DPARTITION=1 -DLAPSES=0",
    "own-session-same-host": (
        "-DGAP_LOCAL_BEGUN -DOWN_SESSION=1 -DDELIVERERS_A=2 -DDELIVERERS_B=0 -DLAPSES=2"
    ),
}


@dataclass(frozen=True)
class Mutation:
    """A bug put back with `-D macro` into a configuration, and the assertion spin must then
    violate."""

    macro: str
    config: str
    violates: str  # a fragment of the violated assertion as pan prints it
    also: str = ""  # further -D flags (a second fix taken away with it)
    hosts: bool = False  # a configuration of hosts.pml (HOST_CONFIGS), not of delivery.pml

    @property
    def flags(self) -> str:
        """The search's flags: the configuration's, the mutation's."""
        configs = HOST_CONFIGS if self.hosts else CONFIGS
        return f"{configs[self.config]} -D{self.macro} {self.also}".strip()

    @property
    def model(self) -> Path:
        """The model it is searched in."""
        return HOSTS_MODEL if self.hosts else MODEL


MUTATIONS: dict[str, Mutation] = {
    # records.py `_replay` returning the operation's version without comparing the transition:
    # resume's launch and a re-run delivery share the event's operation ids (`wkr-act-park` at two
    # versions)
    "replay without comparing transitions": Mutation(
        "MUT_REPLAY_NO_COMPARE", "park-resume", "(wres!=2)"
    ),
    # the supervisor recording exit.json before it ends its sandbox's group
    "supervisor records before ending the group": Mutation(
        "MUT_EXIT_BEFORE_END", "tmux", "!((agents&(1<<inc)))"
    ),
    # resume launching a never-started worker without the deliverer's outbox lock
    "resume launching without the lock": Mutation("MUT_RESUME_NOLOCK", "cancel", "(launching==1)"),
    # _launch without its `dispatch.state == "accepted"` guard
    "launching a non-accepted dispatch": Mutation("MUT_LAUNCH_UNACCEPTED", "cancel", "(dst==1)"),
    # record_result deciding on the bridge's snapshot outside the per-dispatch lock
    "result recorded outside the per-dispatch lock": Mutation(
        "MUT_RESULT_NOLOCK", "results-same", "bres[me]"
    ),
    # the gaps ef200ac closed, put back (ADR 0014): a re-run delivery discarding the spec of the
    # pane its crashed run created (the receipt says activation pending; nothing starts) ...
    "a reused pane's spec discarded": Mutation("MUT_DISCARD_REUSED_SPEC", "deliver", "(starts>=1)"),
    # ... a re-delivery launching again although the session exists and the tmux server took the
    # pane ...
    "a launched worker launched again": Mutation("MUT_RELAUNCH", "tmux", "(starts<=1)"),
    # ... no stop check after `ensure` (neither the launch's nor, since 6d72ffa, the supervisor's:
    # the launch's alone is no longer found): a launch that checked the worker before a whole `stop`
    # leaves the stopped worker's agent running
    "no stop check after ensure": Mutation("MUT_NO_STOP_CHECK", "stop", "(agents& ~(hup))"),
    # and the three gaps 6d72ffa closed, put back: the supervisor starting the sandbox without
    # asking `launch_guards.stopped`, so a stopped worker's agent starts before its launch sees the
    # stop ...
    "a stopped worker's agent starts before its launch sees the stop": Mutation(
        "MUT_SUPERVISOR_UNCHECKED", "stop", "~(0))& ~(orphan))"
    ),
    # ... and, the same bug, a launch dying between `ensure` and its stop check leaves the agent
    # running ...
    "a launch dying between ensure and its stop check leaves the agent running": Mutation(
        "MUT_SUPERVISOR_UNCHECKED_CRASH", "stop", "~(unchecked))& ~(0))"
    ),
    # ... the relaunch guard decided on an earlier pane observation than the spec: the pane of an
    # existing session ends in between, and a new pane starts the agent a second time
    "a re-delivery's guard decided on an older observation than its spec": Mutation(
        "MUT_GUARD_ON_LIST", "deliver", "(starts<=1)"
    ),
    # and the gap e5763d3 closed, put back (the code before it, which had neither the mark nor the
    # wait for the session): a re-delivery after a launch that died before its session, whose agent
    # started and whose pane ended, starts the agent again ...
    "a launch that died before its session is launched again": Mutation(
        "MUT_NO_BEGUN_NO_AWAIT", "deliver", "(starts<=1)"
    ),
    # ... and the supervisor starting its sandbox after its terminal hung up: beside the agent that
    # resume started in a new pane after the tmux server died
    "a supervisor whose terminal hung up starts its sandbox": Mutation(
        "MUT_SUPERVISOR_STARTS_HUNG_UP", "resume", "(starts<=1)"
    ),
    # and GAP_STALE_EXIT, closed by 956e4cc with two fixes, each put back alone: the exit record
    # naming no pane (`reconcile` trusts any record, `write_exit` keeps any): after resume's new
    # pane, the hung-up earlier pane's supervisor records "could not start", and `reconcile` takes
    # it for the new pane's end ...
    "an earlier pane's exit record taken for the new pane's end": Mutation(
        "MUT_EXIT_UNNAMED", "again-observe", "(exit_rec==reg))"
    ),
    # ... `write_exit` alone keeping an earlier pane's record: the new pane's own end is lost
    # (`parent-gone`) ...
    "a new pane's own end not recorded over an earlier pane's record": Mutation(
        "MUT_EXIT_KEPT", "again-observe", "(exit_rec==reg))"
    ),
    # ... and `ensure` creating a pane for a launch that wrote no spec (with `reconcile` deciding
    # outside the lock, the code before 956e4cc): the re-delivery saw the crashed launch's pane
    # live, the tmux server took it, a new pane starts the agent on the crashed launch's spec while
    # the registry still names the old pane, whose (own) end `reconcile` takes for the worker's
    "a pane made for a spec its launch did not write": Mutation(
        "MUT_ENSURE_ANY_SPEC", "redeliver", "~(0))& ~(0))==0)", also="-DMUT_RECONCILE_NOLOCK"
    ),
    # and the two gaps 7334158 closed, put back: `reconcile` recording an end outside the
    # deliverer's lock, on its first observation: it sees no pane and reads the registry before
    # resume's `again` launch registers its new pane, and ends the worker on the earlier pane's
    # (true) end while the new pane's agent runs ...
    "an earlier pane's end taken for the worker's while resume's new pane runs": Mutation(
        "MUT_RECONCILE_NOLOCK", "again-observe", "~(0))& ~(0))==0)"
    ),
    # ... and `write_exit` replacing a later pane's record: a hung-up earlier pane's supervisor
    # records its end after the newest pane's supervisor recorded its own, and the newest pane's end
    # is taken as unrecorded
    "an earlier pane's late record replaces the newest pane's own": Mutation(
        "MUT_EXIT_LATE_REPLACES", "again-observe", "(exit_rec==reg))"
    ),
    # and the wait 552db78 added, taken away: the supervisor starts the agent before its launch
    # registered the session (whose Stop gate then holds nothing, and which a re-delivery takes for
    # a fresh worker)
    "an agent started before its session": Mutation("MUT_NO_AWAIT", "deliver", "(nv[2]!=0)"),
}

# fixes the model shows to be defence in depth: taken away alone, spin finds nothing (each mutation
# above that names it in `also` shows the property it guards with the other fix gone)
DEFENCE_IN_DEPTH: dict[str, tuple[str, tuple[str, ...]]] = {
    # the begun mark: since 552db78 no agent starts before its session, so a launch that died before
    # its session started none, and a re-delivery or resume that finds no session starts the first
    "the begun mark": ("MUT_NO_BEGUN", ("deliver", "tmux", "redeliver", "again-observe")),
    # `ensure(create=wrote)`: since 7334158 `reconcile` decides under the deliverer's lock, so a
    # pane made for a spec its launch did not write is registered before anyone decides on the
    # registry
    "a pane only for a spec the launch wrote": (
        "MUT_ENSURE_ANY_SPEC",
        ("redeliver", "tmux", "again-observe"),
    ),
}

# hosts.pml's mutations: each a bug of the fence put back (keyed by name: one macro may be searched
# with the token property on and off)
HOST_MUTATIONS: dict[str, Mutation] = {
    # a fenced write skipping `create_revision(lock) == token`: a deliverer whose lease lapsed while
    # it launched writes after another host took the lock afresh ...
    "a write under a lapsed lease lands": Mutation(
        "MUT_UNFENCED_WRITE", "lapse", "(tok==lk[0])", hosts=True
    ),
    # ... and, the token property off, what that does: both hosts start an agent (the stale
    # deliverer's session is taken by the other host's waiting supervisor)
    "a write under a lapsed lease starts a second agent": Mutation(
        "MUT_UNFENCED_WRITE", "lapse", "(starts<=1)", also="-DTOKEN_PROPERTY=0", hosts=True
    ),
    # ... a host cut off longer than its lease, healed, writing with the token it had: the same
    # compare as a lapsed lease is what refuses it
    "a healed host's write under its lapsed lease lands": Mutation(
        "MUT_UNFENCED_WRITE", "partition", "(tok==lk[0])", hosts=True
    ),
    # ... a result recorded under a result lock whose lease lapsed
    "a result under a lapsed result lock lands": Mutation(
        "MUT_UNFENCED_WRITE", "results", "(tok==lk[1])", hosts=True
    ),
    # the token the holder's name (`value(lock) == host`) instead of the key's create revision: the
    # lock taken afresh by the same host after a lapse is not told from the stale deliverer's
    "the token is the holder, not the create revision": Mutation(
        "MUT_TOKEN_IS_HOLDER", "same-host", "(tok==lk[0])", hosts=True
    ),
    "the token is the holder: a second agent starts": Mutation(
        "MUT_TOKEN_IS_HOLDER", "same-host", "(starts<=1)", also="-DTOKEN_PROPERTY=0", hosts=True
    ),
    # the code's begun mark (a file of the host, `panefiles.leave_begun`) without the supervisor's
    # own-pane check (it starts on any session of its dispatch: GAP_LOCAL_BEGUN before `ownpane`):
    # a deliverer stalled between its pane and its session past its lease, another host's
    # launches, both agents start
    "the supervisor starts on any session (begun mark a host's file)": Mutation(
        "GAP_LOCAL_BEGUN", "lapse", "(starts<=1)", hosts=True
    ),
    # ... the same, the lock taken away by a partition, not a pause
    "the supervisor starts on any session (partition)": Mutation(
        "GAP_LOCAL_BEGUN", "partition", "(starts<=1)", hosts=True
    ),
    # ... and on one host, once its lock is a lease: a deliverer whose lease lapsed after its guard
    # leaves its (unfenced) mark and spec and makes a pane after another deliverer's whole launch
    # (whose agent exited), and the new pane's supervisor starts on that launch's session
    # (tests/integration/test_no_second_start.py runs this race on real tmux)
    "the supervisor starts on any session (one host, two deliverers)": Mutation(
        "GAP_LOCAL_BEGUN", "same-host", "(starts<=1)", hosts=True
    ),
}

# gaps of the code hosts.pml finds (ADR 0043's amendment): -D puts the code's behaviour in, and spin
# must find the violation until the code closes it (then it becomes a mutation). None open: the
# begun mark a host's file (GAP_LOCAL_BEGUN) is closed by the supervisor's own-pane check
# (`own-session*` above), and taking that check away is a mutation (`HOST_MUTATIONS`)
HOST_GAPS: dict[str, Mutation] = {}

# calls that write protocol state: a function of the modelled modules making one is a step of the
# protocol
WRITERS = frozenset(
    {
        "transition",
        "upsert",
        "write_next",
        "create",
        "commit_receipt",
        "lock",
        "ensure",
        "record_exit",
        "record_init",
        "end_sandbox",
        "_worker_step",
        "_session_step",
        "_end_worker",
        "_park_worker",
        "leave_begun",
        "drop_begun",
    }
)


@dataclass(frozen=True)
class Search:
    """What pan said about one search."""

    flags: str
    output: str

    def number(self, pattern: str) -> int:
        """The integer `pattern`'s group captures in the output (or a failure naming the output)."""
        match = re.search(pattern, self.output)
        assert match is not None, f"no {pattern!r} in pan's output:\n{self.output}"
        return int(match.group(1))

    @property
    def errors(self) -> int:
        """pan's error count."""
        return self.number(r"errors: (\d+)")

    @property
    def states(self) -> int:
        """States stored."""
        return self.number(r"(\d+) states, stored")

    @property
    def shape(self) -> tuple[int, ...]:
        """What the search covered: states stored, matched, transitions, depth reached, errors."""
        return (
            self.states,
            self.number(r"(\d+) states, matched"),
            self.number(r"(\d+) transitions \("),
            self.number(r"depth reached (\d+)"),
            self.errors,
        )

    @property
    def seconds(self) -> float:
        """pan's own elapsed time."""
        match = re.search(r"elapsed time ([\d.e+-]+) seconds", self.output)
        return float(match.group(1)) if match else 0.0

    @property
    def violation(self) -> str:
        """The first reported violation (`pan:1: ...`), or ''."""
        match = re.search(r"^pan:1: (.*)$", self.output, re.MULTILINE)
        return match.group(1) if match else ""

    @property
    def truncated(self) -> list[str]:
        """Why the search may not have covered every state."""
        marks = (
            "max search depth too small",
            "reached -DMEMLIM bound",
            "out of memory",
            "Search not completed",
        )
        return [mark for mark in marks if mark in self.output]


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        needed = " ".join(TOOLS)
        pytest.fail(f"{name} is not installed: the model needs it (.ci/setup installs {needed})")
    return found


def _check(
    workdir: Path, flags: str, compiler: tuple[str, ...] = COMPILER, model: Path = MODEL
) -> Search:
    """spin -a with `flags` on `model`, `compiler`, an exhaustive safety search."""
    workdir.mkdir(parents=True)
    shutil.copy(model, workdir / model.name)
    spin, cc = _tool("spin"), _tool(compiler[0])
    generated = subprocess.run(
        [spin, *flags.split(), "-a", model.name],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert generated.returncode == 0, f"spin -a {flags}:\n{generated.stdout}"
    assert (workdir / "pan.c").exists(), f"spin -a {flags} wrote no pan.c:\n{generated.stdout}"
    built = subprocess.run(
        [cc, *compiler[1:], *CC_FLAGS, "-o", "pan", "pan.c"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, f"{compiler[0]} {flags}:\n{built.stderr[-4000:]}"
    ran = subprocess.run(
        ["./pan", f"-m{PAN_DEPTH}", "-w22"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return Search(flags, ran.stdout + ran.stderr)


@pytest.fixture(scope="module")
def searches(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Search]]:
    """Every configuration, mutation, allowance and gap of both models, searched two at a time (two
    cores); and CROSS_CHECKED again, built by the reference compiler."""
    for tool in TOOLS:
        _tool(tool)
    jobs = {f"config {name}": (flags, COMPILER, MODEL) for name, flags in CONFIGS.items()}
    jobs.update({f"-D{m.macro}": (m.flags, COMPILER, MODEL) for m in MUTATIONS.values()})
    for macro, configs in DEFENCE_IN_DEPTH.values():
        jobs.update(
            {f"-D{macro} in {c}": (f"{CONFIGS[c]} -D{macro}", COMPILER, MODEL) for c in configs}
        )
    jobs[f"config {CROSS_CHECKED} by {REFERENCE[0]}"] = (CONFIGS[CROSS_CHECKED], REFERENCE, MODEL)
    jobs.update(
        {f"hosts {name}": (flags, COMPILER, HOSTS_MODEL) for name, flags in HOST_CONFIGS.items()}
    )
    jobs.update(
        {
            f"hosts {name}": (m.flags, COMPILER, m.model)
            for name, m in (HOST_MUTATIONS | HOST_GAPS).items()
        }
    )
    base = tmp_path_factory.mktemp("spin")
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            key: pool.submit(_check, base / f"job{i}", flags, compiler, model)
            for i, (key, (flags, compiler, model)) in enumerate(jobs.items())
        }
        yield {key: future.result() for key, future in futures.items()}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_model_verifies(name: str, searches: dict[str, Search]) -> None:
    """An exhaustive search of the configuration finds no violation and is not cut short."""
    search = searches[f"config {name}"]
    assert search.errors == 0, f"{name}: {search.violation}\n{search.output}"
    assert search.truncated == [], (
        f"{name}: the search did not complete: {search.truncated}\n{search.output}"
    )
    assert search.states > 0


def test_the_compilers_verifiers_search_the_same_space(searches: dict[str, Search]) -> None:
    """The verifier COMPILER built and the one REFERENCE built search CROSS_CHECKED alike: the same
    states, transitions and depth (a compiler that miscompiled pan would search another space)."""
    fast = searches[f"config {CROSS_CHECKED}"]
    reference = searches[f"config {CROSS_CHECKED} by {REFERENCE[0]}"]
    outputs = f"{COMPILER[0]}:\n{fast.output}\n{REFERENCE[0]}:\n{reference.output}"
    assert fast.shape == reference.shape, outputs
    assert reference.truncated == []


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_mutation_is_found(name: str, searches: dict[str, Search]) -> None:
    """The bug put back, spin violates the property that guards against it."""
    mutation = MUTATIONS[name]
    search = searches[f"-D{mutation.macro}"]
    assert search.errors >= 1, f"{name}: spin found nothing\n{search.output}"
    assert mutation.violates in search.violation, f"{name}: another violation: {search.violation}"


@pytest.mark.parametrize("name", sorted(DEFENCE_IN_DEPTH))
def test_each_defence_in_depth_alone_is_not_needed(name: str, searches: dict[str, Search]) -> None:
    """A fix the model shows to be defence in depth (ADR 0014): taken away alone, every
    configuration that could need it still verifies. When one fails, the fix is needed again: move
    it to MUTATIONS."""
    macro, configs = DEFENCE_IN_DEPTH[name]
    for config in configs:
        search = searches[f"-D{macro} in {config}"]
        assert search.errors == 0, f"{name} is needed in {config}: {search.violation}"
        assert search.truncated == [], (
            f"{name} in {config}: the search did not complete: {search.truncated}"
        )


@pytest.mark.parametrize("name", sorted(HOST_CONFIGS))
def test_the_hosts_model_verifies(name: str, searches: dict[str, Search]) -> None:
    """Cross-host delivery (hosts.pml): an exhaustive search finds no violation and is not cut
    short."""
    search = searches[f"hosts {name}"]
    assert search.errors == 0, f"{name}: {search.violation}\n{search.output}"
    assert search.truncated == [], (
        f"{name}: the search did not complete: {search.truncated}\n{search.output}"
    )
    assert search.states > 0


@pytest.mark.parametrize("name", sorted(HOST_MUTATIONS) + sorted(HOST_GAPS))
def test_each_hosts_mutation_and_gap_is_found(name: str, searches: dict[str, Search]) -> None:
    """A fence bug put back (or the code's known gap put in), spin violates the property."""
    mutation = (HOST_MUTATIONS | HOST_GAPS)[name]
    search = searches[f"hosts {name}"]
    assert search.errors >= 1, f"{name}: spin found nothing\n{search.output}"
    assert mutation.violates in search.violation, f"{name}: another violation: {search.violation}"


# ------------------------------------------------------------------ the model and the code in step
def model_steps() -> set[str]:
    """The steps the models name: every `inline` and `proctype` not prefixed `m_` (model-only
    helpers), in delivery.pml and hosts.pml (a step of both is one function)."""
    text = MODEL.read_text() + HOSTS_MODEL.read_text()
    names = re.findall(r"^(?:inline|proctype)\s+(\w+)\s*\(", text, re.MULTILINE)
    return {name for name in names if not name.startswith("m_")}


def resolve(target: str) -> object:
    """The object `module:qualname` names (AttributeError or ModuleNotFoundError if it is gone)."""
    module_name, _, qualname = target.partition(":")
    found: object = importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def protocol_writers(module_name: str) -> set[str]:
    """`module:qualname` of every function in the module that calls one of WRITERS."""
    spec = importlib.util.find_spec(module_name)
    assert spec is not None, module_name
    assert spec.origin is not None, module_name
    tree = ast.parse(Path(spec.origin).read_text())
    found: set[str] = set()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                for call in (n for n in ast.walk(child) if isinstance(n, ast.Call)):
                    func = call.func
                    name = (
                        func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                    )
                    if name in WRITERS:
                        found.add(f"{module_name}:{prefix}{child.name}")

    visit(tree, "")
    return found


def test_the_model_and_the_step_table_name_the_same_steps() -> None:
    """A step added to either side and not the other fails here (oms/domain/protocol.py is the
    table)."""
    table = [name for name, _ in PROTOCOL_STEPS]
    assert len(table) == len(set(table)), "a step is named twice in PROTOCOL_STEPS"
    steps = model_steps()
    assert steps - set(table) == set(), "steps in delivery.pml missing from PROTOCOL_STEPS"
    assert set(table) - steps == set(), "PROTOCOL_STEPS names steps delivery.pml does not have"


@pytest.mark.parametrize(
    "target", [target for _, target in PROTOCOL_STEPS] + [target for target, _ in NOT_MODELLED]
)
def test_every_function_the_table_names_exists(target: str) -> None:
    """Renamed or moved (delivery.py split into modules): update the one line in
    oms/domain/protocol.py."""
    assert callable(resolve(target)), target


def test_no_function_writes_protocol_state_unmodelled() -> None:
    """A function of the modelled modules that starts writing a record, a receipt, a lock, a pane or
    an exit/init record is a new protocol step: model it (PROTOCOL_STEPS) or say why not
    (NOT_MODELLED)."""
    known = {target for _, target in PROTOCOL_STEPS} | {target for target, _ in NOT_MODELLED}
    modules = sorted({target.partition(":")[0] for target in known})
    writers = set().union(*(protocol_writers(module) for module in modules))
    assert writers - known == set(), "protocol writers the model does not name"

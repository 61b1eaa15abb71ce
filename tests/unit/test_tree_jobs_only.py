"""No host-side read through an agent's files (docs/adr/0024): a walk of the code, taint-lite.

An agent writes its worktree while oms works on it; a path below the worktree's root can become a
link to a host directory between two system calls. So on the host oms may only (a) ask the main
repository what it records of a worktree, (b) look at the worktree's root itself (no component an
agent can change: `isdir`, `lexists`, `realpath` of the root), and (c) call the few helpers that are
safe by construction; everything else runs in a tree job (`adapters/tree_work.py`, inside
`adapters/tree_sandbox.py`'s view).

The walk: in every module of `oms` but the tree-job modules, a value is a worktree ROOT when it is
`<anything>["worktree_path" | "worktree_root"]`, `access.text(_, "worktree_path" |
"worktree_root")`, an attribute `.worktree`, `plan.cwd`, a parameter named
`worktree`/`worktree_path`/`worktree_root`, verify's scratch `checkout`, or a copy of one of these;
it is BELOW a root when computed from one (`os.path.join`, an f-string, ...). Taint flows through
assignments, returns (a call of a function that returns one) and arguments (the parameter of a
called function of that name, anywhere in `oms`), to a fixpoint. A sink is a call of git
(`adapters/git.py`, `git_finish.py`, `salvage_git.py`), of `os`/`os.path`/`shutil`/`pathlib`/
`open`, of `oms.fsio`, or of a process starter, with a tainted argument (or a tainted `cwd=`).
Allowed: the root-level looks on a ROOT, `SAFE_CALLS` (each says why), and `SITES` (each says why).
The test fails with every other sink it finds (it found the host-side `git status`/`add` of a
result's leftovers, the salvage, the restore, delivery's checks, the removal, the advisor's cwd, and
`sandboxing.build`'s git layout on the code before docs/adr/0024).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers import REPO

PACKAGE = REPO / "oms"
# The tree-job modules: the job itself (inside its sandbox), its runner and its sandbox plans, and
# the guarded helpers (`fsio/trees.py` refuses an agent tree outside a job); domain code cannot do
# IO.
EXEMPT = (
    "oms/adapters/tree_work.py",
    "oms/adapters/tree_job.py",
    "oms/adapters/tree_sandbox.py",
    "oms/adapters/sandbox.py",
    "oms/fsio/trees.py",
    "oms/domain/",
    "oms/schemas/_generated/",
)
SOURCE_KEYS = ("worktree_path", "worktree_root")
SOURCE_PARAMS = ("worktree", "worktree_path", "worktree_root")
# verify's scratch checkout: the checks write it, hostile once they ran
SOURCE_NAMES = {"oms/services/finishing/verify.py": ("checkout",)}
ROOT_LOOKS = (
    "os.path.isdir",
    "os.path.lexists",
    "os.path.exists",
    "os.path.realpath",
    "os.path.abspath",
)
PURE = (
    "os.path.join", "os.path.normpath", "os.path.basename", "os.path.dirname", "os.path.split",
    "os.path.relpath", "os.path.isabs", "os.fsencode", "os.fsdecode",
)  # fmt: skip
SINK_PREFIXES = (
    "oms.adapters.git.", "oms.adapters.git_finish.", "oms.adapters.salvage_git.", "os.", "shutil.",
    "pathlib.", "oms.fsio.", "oms.process.", "subprocess.",
)  # fmt: skip
SINK_NAMES = ("open",)
CARRIERS = (
    "oms.services.",
    "oms.adapters.",
    "oms.cli.",
    "oms.fsio.",
    "oms.process.",
)  # where taint is followed
SINK_METHODS = (
    "ensure",
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "iterdir",
    "unlink",
    "rmdir",
)
SAFE_CALLS = {
    "oms.adapters.git.readd_worktree": (
        "`worktrees.ready` makes a worktree again where none is (its folder gone, or empty and "
        "removed): git writes a new tree as at its first `worktree add`; no agent has run in it"
    ),
    "oms.adapters.git.forget_worktree": (
        "`worktree remove --force` of a worktree whose folder is gone (`worktrees.ready`): git "
        "removes its admin dir, in the main repository's .git, which only oms and the user write"
    ),
    "oms.adapters.git.linked_worktree": (
        "asks the main repository (`worktree list`, its admin dir's back-pointer): the worktree's "
        "root is only compared, never read through"
    ),
    "oms.fsio.trees.placeholders": (
        "opens the root O_NOFOLLOW and looks at names directly below it through its descriptor: "
        "no component an agent can change is resolved"
    ),
    "oms.fsio.trees.read_dotgit": (
        "reads `.git` through the root's descriptor, O_NOFOLLOW, O_NONBLOCK, a regular file (the "
        "agent sees it read-only)"
    ),
    "oms.fsio.trees.remove_empty_dir": (
        "rmdir of the root through its parent's descriptor: never a link, never with entries"
    ),
    "oms.fsio.trees.remove_tree": (
        "removes through each parent's descriptor, following no link (verify's scratch checkout)"
    ),
    "oms.fsio.outside.remove_empty_dirs": (
        "the supervisor's rmdir of its own empty placeholder mount points once its sandbox ended, "
        "through the worktree's descriptor opened O_NOFOLLOW"
    ),
}
SITES = {
    ("oms/services/delivery/launch.py", "start_pane", "ensure"): (
        "tmux starts the pane's supervisor with the worktree's root as its cwd (a chdir to the "
        "root, no component below it); the supervisor reads nothing there"
    ),
    ("oms/services/finishing/verify.py", "_verify", "oms.adapters.git_finish.checkout_tree"): (
        "writes into the new scratch directory before any check ran in it (only oms wrote it)"
    ),
}


Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Taint:
    """What the walk knows, across the package (functions by qualified name: `oms.adapters.git.git`,
    `oms.services.doors.broker.Broker.serve`)."""

    names: dict[str, dict[str, str]] = field(default_factory=dict)  # function -> name -> level
    params: dict[str, dict[str, str]] = field(default_factory=dict)  # function -> param/#n -> level
    returns: dict[str, str] = field(default_factory=dict)  # function -> level
    tuples: dict[str, dict[str, str]] = field(default_factory=dict)  # function -> #n -> level


@dataclass
class Module:
    """One module: its path, dotted name, tree, imports, and its functions by qualified name."""

    rel: str
    name: str
    tree: ast.Module
    imports: dict[str, str]
    functions: dict[str, tuple[Def, str | None]]  # qualified name -> (its def, its class)


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it stands for."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _modules(planted: dict[str, str] | None = None) -> list[Module]:
    """Every module of the package, plus `planted` (relative path -> source: a module the walk is
    shown without writing it into the tree, which other tests walk at the same time)."""
    out = []
    sources = {_rel(path): path.read_text() for path in sorted(PACKAGE.rglob("*.py"))}
    for rel, text in sorted({**sources, **(planted or {})}.items()):
        if rel.startswith(EXEMPT):
            continue
        tree = ast.parse(text)
        name = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        functions: dict[str, tuple[Def, str | None]] = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions[f"{name}.{node.name}"] = (node, None)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        functions[f"{name}.{node.name}.{item.name}"] = (item, node.name)
        out.append(Module(rel, name, tree, _imports(tree), functions))
    return out


def _dotted(node: ast.expr, imports: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    base = imports.get(node.id, node.id)
    return ".".join([base, *reversed(parts)])


def _callee(node: ast.Call, module: Module, cls: str | None) -> str | None:
    """The qualified name a call resolves to: a module's function (imported, or its own), a method
    of this class through `self`, else the dotted name as written."""
    func = node.func
    through = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
    owner = func.value.id if through else ""  # type: ignore[attr-defined]
    if owner in ("self", "cls") and isinstance(func, ast.Attribute):
        return f"{module.name}.{cls}.{func.attr}" if cls else None
    dotted = _dotted(func, module.imports)
    if dotted is not None and isinstance(func, ast.Name) and func.id not in module.imports:
        own = f"{module.name}.{func.id}"
        return own if own in module.functions else dotted
    return dotted


ROOT, BELOW = "root", "below"


def _join(a: str | None, b: str | None) -> str | None:
    if BELOW in (a, b):
        return BELOW
    return ROOT if ROOT in (a, b) else None


class _Level:
    """The taint level of an expression in one function."""

    def __init__(
        self,
        taint: Taint,
        module: Module,
        cls: str | None,
        names: dict[str, str],
    ) -> None:
        self.taint, self.module, self.cls, self.names = taint, module, cls, names

    def __call__(self, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            plan = isinstance(node.value, ast.Name) and node.value.id == "plan"
            return ROOT if node.attr == "worktree" or (node.attr == "cwd" and plan) else None
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Constant) and node.slice.value in SOURCE_KEYS:
                return ROOT
            return self(node.value) and BELOW
        if isinstance(node, ast.Call):
            if any(isinstance(a, ast.Constant) and a.value in SOURCE_KEYS for a in node.args):
                return ROOT
            name = _callee(node, self.module, self.cls)
            level = None
            for arg in (*node.args, *(k.value for k in node.keywords)):
                level = _join(level, self(arg))
            if name in (
                "os.path.realpath",
                "os.path.abspath",
                "os.path.normpath",
                "str",
                "os.fspath",
            ):
                return level
            if name in PURE:
                return level and BELOW
            return self.taint.returns.get(name or "")
        if isinstance(node, ast.JoinedStr | ast.BinOp | ast.FormattedValue):
            inner = [self(n) for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr)]
            return BELOW if any(inner) else None
        if isinstance(node, ast.Tuple | ast.List):
            level = None
            for elt in node.elts:
                level = _join(level, self(elt))
            return level
        if isinstance(node, ast.IfExp):
            return _join(self(node.body), self(node.orelse))
        return None

    def parts(self, node: ast.expr) -> dict[str, str] | None:
        """Per position, the levels of a tuple (written out, or returned by a called function)."""
        if isinstance(node, ast.Tuple):
            return {f"#{i}": lv for i, elt in enumerate(node.elts) if (lv := self(elt))}
        if isinstance(node, ast.Call):
            return self.taint.tuples.get(_callee(node, self.module, self.cls) or "")
        return None


def _targets(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return [n for elt in node.elts for n in _targets(elt)]
    return []


def _raise(table: dict[str, str], key: str, level: str | None) -> bool:
    """Raise `table[key]` to at least `level`; True if it changed."""
    new = _join(table.get(key), level)
    if new is None or new == table.get(key):
        return False
    table[key] = new
    return True


def _spread(taint: Taint, modules: list[Module]) -> bool:
    """One pass of taint through every function; True if anything new was learnt."""
    changed = False
    for module in modules:
        for qual, (fn, cls) in module.functions.items():
            names = taint.names.setdefault(qual, {})
            params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
            bound = cls is not None and params[:1] in (["self"], ["cls"])
            positional = params[1:] if bound else params
            called = taint.params.get(qual, {})
            for i, arg in enumerate(positional):
                changed |= _raise(names, arg, called.get(f"#{i}"))
            for param in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs):
                note = param.annotation
                text = note is None or (isinstance(note, ast.Name) and note.id == "str")
                source = param.arg in SOURCE_PARAMS and text  # (a record named worktree is no path)
                changed |= _raise(names, param.arg, ROOT if source else called.get(param.arg))
            for name in SOURCE_NAMES.get(module.rel, ()):
                changed |= _raise(names, name, ROOT)
            level_of = _Level(taint, module, cls, names)
            for node in ast.walk(fn):
                if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                    level = level_of(node.value)
                    parts = level_of.parts(node.value)
                    for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                        if isinstance(target, ast.Tuple) and parts is not None:
                            for i, elt in enumerate(target.elts):
                                for name in _targets(elt):
                                    changed |= _raise(names, name, parts.get(f"#{i}"))
                            continue
                        for name in _targets(target):
                            changed |= _raise(names, name, level)
                elif isinstance(node, ast.For):
                    for name in _targets(node.target):
                        changed |= _raise(names, name, level_of(node.iter) and BELOW)
                elif isinstance(node, ast.Return) and node.value is not None:
                    changed |= _raise(taint.returns, qual, level_of(node.value))
                    if isinstance(node.value, ast.Tuple):
                        table = taint.tuples.setdefault(qual, {})
                        for i, elt in enumerate(node.value.elts):
                            changed |= _raise(table, f"#{i}", level_of(elt))
                elif isinstance(node, ast.Call):
                    callee = _callee(node, module, cls)
                    if callee is None or not callee.startswith(CARRIERS):
                        continue
                    table = taint.params.setdefault(callee, {})
                    for i, given in enumerate(node.args):
                        changed |= _raise(table, f"#{i}", level_of(given))
                    for kw in node.keywords:
                        if kw.arg:
                            changed |= _raise(table, kw.arg, level_of(kw.value))
    return changed


def _sinks(taint: Taint, modules: list[Module]) -> list[str]:
    found: list[str] = []
    for module in modules:
        for qual, (fn, cls) in module.functions.items():
            if qual in SAFE_CALLS:
                continue  # safe by construction, whatever it is given (said why)
            level_of = _Level(taint, module, cls, taint.names.get(qual, {}))
            for node in ast.walk(fn):
                if not isinstance(node, ast.Call):
                    continue
                callee = _callee(node, module, cls) or ""
                method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                kws = {k.arg: level_of(k.value) for k in node.keywords}
                levels = [lv for lv in (*(level_of(a) for a in node.args), *kws.values()) if lv]
                if not levels:
                    continue
                named = method in SINK_METHODS
                starts = callee.startswith(("oms.process.", "subprocess.")) or named
                sink = callee.startswith(SINK_PREFIXES) or callee in SINK_NAMES or named
                sink = (sink and callee not in PURE) or (starts and bool(kws.get("cwd")))
                if not sink or callee in SAFE_CALLS:
                    continue
                if callee in ROOT_LOOKS and all(lv == ROOT for lv in levels):
                    continue  # the worktree's root itself: no component an agent can change
                if (module.rel, fn.name, callee) in SITES or (module.rel, fn.name, method) in SITES:
                    continue
                what = callee or method
                given = ", ".join(map(str, levels))
                found.append(f"{module.rel}:{node.lineno} in {fn.name}: {what}({given})")
    return found


def host_reads_of_agent_trees(planted: dict[str, str] | None = None) -> list[str]:
    """Every call on the host that reads, walks or runs git through a worktree path (not
    allowed); `planted`: modules to walk beside the package's (`_modules`)."""
    modules = _modules(planted)
    taint = Taint()
    for _ in range(50):
        if not _spread(taint, modules):
            break
    return _sinks(taint, modules)


def test_nothing_on_the_host_reads_through_an_agents_worktree() -> None:
    assert host_reads_of_agent_trees() == []


def test_every_allowance_names_something_that_exists_and_says_why() -> None:
    for reason in (*SAFE_CALLS.values(), *SITES.values()):
        assert len(reason) > 40
    sources = {rel: (REPO / rel).read_text() for rel, _fn, _callee in SITES}
    for rel, fn, callee in SITES:
        assert f"def {fn}(" in sources[rel], (rel, fn)
        assert callee.rsplit(".", 1)[-1] in sources[rel], (rel, callee)
    for name in SAFE_CALLS:
        module, _, attr = name.rpartition(".")
        assert f"def {attr}(" in (REPO / (module.replace(".", "/") + ".py")).read_text(), name


def test_the_walk_finds_a_host_side_read_through_a_worktree() -> None:
    """The walk itself can fail: a planted module that runs git status in a dispatch's worktree,
    hands its path to a helper that lists it, and runs a process there, is found three times."""
    planted = {
        "oms/services/_planted_for_the_walk.py": (
            "from oms.adapters import git\nimport os\nfrom oms.process import run\n\n\n"
            "def leftovers(dispatch):\n"
            "    path = dispatch.payload['worktree_path']\n"
            "    git.status_entries(path)\n"
            "    _list(os.path.join(path, 'src'))\n"
            "    run(('true',), cwd=path)\n\n\n"
            "def _list(where):\n"
            "    return os.listdir(where)\n"
        )
    }
    found = [line for line in host_reads_of_agent_trees(planted) if "_planted_for_the_walk" in line]
    assert len(found) == 3, found

"""The module graph of oms, drawn from the code (docs/architecture.md "Layers", "Packages").

grimp reads every import statement of every module — at the top, inside a function, under
`TYPE_CHECKING` — so an import cycle cannot hide behind a lazy or a type-only import. Two
properties, each failing with the imports that break it:

- no import cycle among oms modules (main before issue 25 had three: 7, 2 and 2 modules);
- no import from a lower layer to a higher one, for every `layers` contract of pyproject.toml
  (oms's layers, and the packages of oms/services), checked here on the graph itself, each import
  on its own.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping

import grimp
import pytest

from tests.helpers import REPO

Graph = Mapping[str, frozenset[str]]


@pytest.fixture(scope="module")
def graph() -> Graph:
    built = grimp.build_graph("oms", include_external_packages=False, cache_dir=None)
    imports = built.find_modules_directly_imported_by
    return {module: frozenset(imports(module)) for module in built.modules}


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion),
    and every module that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))
    return found


def layer_contracts() -> list[tuple[str, list[list[str]]]]:
    """(container, layers from the top, each a list of sibling names) for every layers contract."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    out = []
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] != "layers":
            continue
        layers = [[n.strip() for n in re.split(r"[|:]", layer)] for layer in contract["layers"]]
        out += [(container, layers) for container in contract["containers"]]
    return out


def upward(graph: Graph, container: str, layers: list[list[str]]) -> list[str]:
    """Each import, inside `container`, from a module of a lower layer to one of a higher layer."""
    level = {name: depth for depth, names in enumerate(layers) for name in names}

    def layer_of(module: str) -> int | None:
        if not module.startswith(container + "."):
            return None
        return level.get(module[len(container) + 1 :].split(".", maxsplit=1)[0])

    out = []
    for importer, imported in sorted((a, b) for a, bs in graph.items() for b in bs):
        below, above = layer_of(importer), layer_of(imported)
        if below is not None and above is not None and above < below:
            out.append(f"{importer} -> {imported}")
    return out


def test_no_import_cycle_among_oms_modules(graph: Graph) -> None:
    assert cycles(graph) == [], "modules that import one another (move the shared piece down)"


def test_layer_contracts_cover_the_services() -> None:
    """The packages of oms/services are layered too, not only oms's own layers."""
    assert {container for container, _ in layer_contracts()} >= {"oms", "oms.services"}


@pytest.mark.parametrize("container", [container for container, _ in layer_contracts()])
def test_no_import_runs_up_a_layer(graph: Graph, container: str) -> None:
    layers = dict(layer_contracts())[container]
    assert upward(graph, container, layers) == [], f"imports from a lower layer of {container}"


def _graph(edges: Iterable[tuple[str, str]]) -> Graph:
    out: dict[str, set[str]] = {}
    for a, b in edges:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set())
    return {module: frozenset(imports) for module, imports in out.items()}


def test_the_checks_can_fail() -> None:
    """A cycle and an upward import in a small graph are both found."""
    small = _graph([("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.d", "p.d")])
    assert sorted(cycles(small)) == [["p.a", "p.b", "p.c"], ["p.d"]]
    layered = _graph([("p.top.x", "p.low.y"), ("p.low.y", "p.top.z"), ("p.mid", "p.low.y")])
    assert upward(layered, "p", [["top"], ["mid", "side"], ["low"]]) == ["p.low.y -> p.top.z"]

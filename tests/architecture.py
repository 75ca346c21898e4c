"""The dependency rule of the function's package and the CLI, as data a test can check (tests/unit/test_architecture.py)
and a planted violation can prove (it fails on one).

    ground floor      contract, records, text, privacy, fields, ports, cost: they import only one another
    plug-ins          jobs/, triggers/, kinds/, readers/, monitors/, destinations/: the ground floor and their own
                      package's shared modules (base.py, helpers: the modules that define no plug-in); never another
                      plug-in, never anything else
    registry          rule_actions.registry: the only list of plug-ins; everything else reaches them through it
    rule_actions_cdk  the ground floor, the configuration, the organization block and the registry; never an
                      adapter, never a plug-in but through the registry
    the function      rule_actions ships alone in the Lambda asset: it never imports rule_actions_cdk, rule_actions_cli
                      or rule_actions_sdk (the packages that import it)
    the emulator      moto and its extensions (rule_actions_cli.emulator) are imported only by the replay (the embedded
                      account and organization, what they seed, deploy-local) and the emulator itself
    one name          no two public classes of the four packages share a name (duplicate_classes)
    no cycles         anywhere in the four packages, counting every import: type-only ones
                      (TYPE_CHECKING), imports inside functions, and the parent packages an import runs

Imports are read from the source (ast), not from a running interpreter, so nothing is imported to check them.

Why not import-linter (2.17, tried for issue 29 with ten contracts: forbidden, independence, acyclic_siblings): it
kept every planted violation of tests/unit/test_architecture.py failing, but its forbidden contracts list what is
forbidden, so the closed rules here ("imports only ...") become lists of every other module that a new module
escapes (a new module imported by the ground floor passed), the plug-ins are listed by hand where this reads them
from the registry, and acyclic_siblings sees cycles between siblings only (one between rule_actions_cdk.app and
rule_actions_cli.synth passed). The two tests that plant those cases hold this checker to them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FUNCTION = "rule_actions"
GROUND = frozenset(f"{FUNCTION}.{name}" for name in ("contract", "records", "text", "privacy", "fields", "ports",
                                                           "cost"))
PLUGIN_PACKAGES = tuple(f"{FUNCTION}.{name}" for name in ("jobs", "triggers", "kinds", "readers", "monitors",
                                                          "destinations"))
REGISTRY = f"{FUNCTION}.registry"
PLUGINS = ("FAMILY", "KIND", "READER", "MONITOR", "DESTINATION")  # the name a plug-in module gives its plug-in
INFRA_MAY_USE = GROUND | {f"{FUNCTION}.config", f"{FUNCTION}.organization", REGISTRY}
OUTSIDE = ("rule_actions_cli", "rule_actions_cdk", "rule_actions_sdk")  # the packages around the function
EMULATOR = "rule_actions_cli.emulator"
MOTO = "moto"  # a node of the graph: any module of the moto distribution
REPLAY = frozenset(f"rule_actions_cli.{name}" for name in ("embedded", "embedded_organization", "seeding",
                                                           "deploy_local"))
# Where each package's source is: the function's under lambdas/, the constructs' under infra/ (pyproject.toml maps them).
PACKAGES = {FUNCTION: ROOT / "lambdas" / FUNCTION, "rule_actions_cdk": ROOT / "infra" / "rule_actions_cdk",
            "rule_actions_cli": ROOT / "rule_actions_cli", "rule_actions_sdk": ROOT / "rule_actions_sdk"}


def modules(packages: Mapping[str, Path] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the packages (a package is its __init__)."""
    found = {}
    for package, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


# A source's import statements, by its text: the planted-violation tests check copies of the sources that differ
# from them in one file; each copy's other files are not parsed again (a copy's graph: 1.2 s parsed, 0.1 s cached).
_STATEMENTS: dict[str, list[tuple[int, str, list[str]]]] = {}


def statements(path: Path) -> list[tuple[int, str, list[str]]]:
    """(level, module, names) of each import statement in the file, anywhere in it: `import a.b` is (0, "", ["a.b"]),
    `from ..x import y` (2, "x", ["y"])."""
    text = path.read_text()
    if text not in _STATEMENTS:
        found = []
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.Import):
                found.append((0, "", [alias.name for alias in node.names]))
            elif isinstance(node, ast.ImportFrom):
                found.append((node.level, node.module or "", [alias.name for alias in node.names]))
        _STATEMENTS[text] = found
    return _STATEMENTS[text]


def imports(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules `name` imports anywhere in its source (type-only and function-level imports included); for
    `from package import name`, the submodule when `name` is one."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for level, module, names in statements(path):
        if not level and not module:  # import a, b.c
            found |= set(names)
            continue
        base = module
        if level:
            anchor = package.split(".")[: len(package.split(".")) - level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        found.add(base)
        found |= {f"{base}.{alias}" for alias in names if f"{base}.{alias}" in known}
    return found


def graph(packages: Mapping[str, Path] = PACKAGES) -> dict[str, set[str]]:
    """Module -> the project modules it imports, plus the parent packages Python runs to import them."""
    known = modules(packages)
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        for imported in imports(name, path, known):
            parts = imported.split(".")
            targets |= {".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in known}
            targets |= {MOTO} if parts[0] == MOTO else set()
        edges[name] = targets - {name}
    return edges


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
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
                    work.append((child, iter(sorted(edges.get(child, ())))))
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
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def plugin_package(name: str) -> str | None:
    return next((p for p in PLUGIN_PACKAGES if name == p or name.startswith(p + ".")), None)


def defines_plugin(path: Path) -> bool:
    """The module defines a plug-in: a top-level FAMILY, KIND, READER, MONITOR or DESTINATION (what its registry
    line names)."""
    return any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in PLUGINS for t in node.targets)
               for node in ast.parse(path.read_text(), str(path)).body)


def registered(edges: Mapping[str, set[str]], packages: Mapping[str, Path] = PACKAGES) -> set[str]:
    """The plug-in modules: what the registry imports from the plug-in packages that defines a plug-in; the
    packages' other modules are their shared modules (base.py, common.py, monitors/rule.py, the helpers)."""
    known = modules(packages)
    return {name for name in edges.get(REGISTRY, ()) if plugin_package(name) and name not in PLUGIN_PACKAGES
            and name in known and defines_plugin(known[name])}


def violations(edges: Mapping[str, set[str]], packages: Mapping[str, Path] = PACKAGES) -> list[str]:
    """Every import the dependency rule forbids, one line each (empty: the rule holds)."""
    plugins = registered(edges, packages)
    found = []
    for name, targets in sorted(edges.items()):
        if name == FUNCTION or name.startswith(FUNCTION + "."):
            found += [f"{name} -> {target}: the function ships alone; it never imports {', '.join(OUTSIDE)}"
                      for target in sorted(targets) if target.split(".")[0] in OUTSIDE]
        ours = sorted(t for t in targets if t.startswith(FUNCTION + ".") or t == FUNCTION)
        own = plugin_package(name)
        for target in ours:
            if target == FUNCTION or target in PLUGIN_PACKAGES:
                continue  # a package's __init__ (empty by the rule below) runs for any of its modules
            if name in GROUND and target not in GROUND:
                found.append(f"{name} -> {target}: the ground floor imports only the ground floor")
            elif own and name != own:
                same_package_helper = plugin_package(target) == own and target not in plugins
                if target not in GROUND and not same_package_helper:
                    found.append(f"{name} -> {target}: a plug-in imports only the ground floor and its own "
                                 "package's shared modules")
            elif not own and name != REGISTRY and plugin_package(target):
                found.append(f"{name} -> {target}: outside the plug-ins, reach them through {REGISTRY}")
            if name.startswith("rule_actions_cdk") and target not in INFRA_MAY_USE:
                found.append(f"{name} -> {target}: infra/rule_actions_cdk/ uses only {', '.join(sorted(INFRA_MAY_USE))}")
        emulated = sorted(t for t in targets if t == MOTO or t == EMULATOR or t.startswith(EMULATOR + "."))
        if emulated and name not in REPLAY and not (name == EMULATOR or name.startswith(EMULATOR + ".")):
            found += [f"{name} -> {target}: only the replay ({', '.join(sorted(REPLAY))}) imports moto and its "
                      f"extensions ({EMULATOR})" for target in emulated]
    for package in PLUGIN_PACKAGES:  # a plug-in package's __init__ holds no code: no list, no cycle
        listed = sorted(edges.get(package, set()) - {FUNCTION})
        if listed:
            found.append(f"{package} imports {', '.join(listed)}: its __init__ holds no code; the registry lists plug-ins")
    found += [f"import cycle: {' <-> '.join(component)}" for component in cycles(edges)]
    return found


def duplicate_classes(packages: Mapping[str, Path] = PACKAGES) -> dict[str, list[str]]:
    """Public class names (a top-level class without a leading underscore) defined in more than one module of the
    packages: name -> those modules. A name means one thing across the four packages."""
    found: dict[str, list[str]] = {}
    for name, path in modules(packages).items():
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found.setdefault(node.name, []).append(name)
    return {name: where for name, where in sorted(found.items()) if len(where) > 1}

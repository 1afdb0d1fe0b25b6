"""Find every user-facing message id in the package by reading its source (AST), not from a list.

Three kinds of call are collected:

- ``N_("...")`` anywhere: a message id marked for later translation;
- ``_("...")`` / ``gettext`` / ``lazy_gettext`` / ``_l`` / ``ngettext``: text the web shows now;
- every constructor call of a domain error class (``irisrag.errors.IrisRagError`` and its
  subclasses, wherever they are defined): its first argument must be a message id — an
  ``N_("...")`` call, a module constant holding one (also imported from another module), a
  module dict of them, or a parameter of the enclosing function — never an f-string, a plain
  literal, a concatenation or a formatted string. Any other first argument is an offender.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "irisrag"
GETTEXT = {"_", "gettext", "lazy_gettext", "_l", "ngettext"}


@dataclass(frozen=True)
class ErrorSite:
    """One ``raise SomeError(...)`` (or construction) with the message ids it may carry."""

    where: str
    cls: str
    msgids: tuple[str, ...]
    params: tuple[str, ...]  # keys of a literal ``params={...}``; empty when none or not a literal


@dataclass
class Scan:
    error_classes: dict[str, str] = field(default_factory=dict)  # class name -> module file (relative)
    marked: dict[str, str] = field(default_factory=dict)  # N_ id -> first place
    shown: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # _() id -> (place, kwargs)
    sites: list[ErrorSite] = field(default_factory=list)
    offenders: list[str] = field(default_factory=list)


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _marked(node: ast.AST) -> str | None:
    """The id of an ``N_("...")`` call, else None."""
    if isinstance(node, ast.Call) and _name(node.func) == "N_" and node.args:
        return _literal(node.args[0])
    return None


class _Module:
    """One source file: its tree, module constants and imports, for resolving a message argument."""

    def __init__(self, path: Path):
        self.path = path
        self.rel = str(path.relative_to(ROOT))
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.constants: dict[str, ast.AST] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
        for node in self.tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name) and node.value is not None:
                        self.constants[target.id] = node.value
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (node.module, alias.name)


def _modules() -> dict[str, _Module]:
    return {str(p.relative_to(ROOT)): _Module(p) for p in sorted(PACKAGE.rglob("*.py"))}


def _module_file(dotted: str) -> str:
    base = dotted.replace(".", "/")
    return f"{base}.py" if (ROOT / f"{base}.py").exists() else f"{base}/__init__.py"


def _error_classes(modules: dict[str, _Module]) -> dict[str, str]:
    """Names of IrisRagError and every class derived from it in the package (to a fixed point)."""
    found = {"IrisRagError": "irisrag/errors.py"}
    changed = True
    while changed:
        changed = False
        for module in modules.values():
            for node in ast.walk(module.tree):
                if isinstance(node, ast.ClassDef) and node.name not in found \
                        and any(_name(base) in found for base in node.bases):
                    found[node.name] = module.rel
                    changed = True
    return found


class _Resolver:
    """Turn an error's first argument into the message ids it may hold (None: not a message id)."""

    def __init__(self, modules: dict[str, _Module]):
        self.modules = modules

    def ids(self, node: ast.AST, module: _Module, params: set[str], depth: int = 0) -> tuple[str, ...] | None:
        if depth > 4:
            return None
        if (marked := _marked(node)) is not None:
            return (marked,)
        if isinstance(node, ast.IfExp):
            a, b = self.ids(node.body, module, params, depth + 1), self.ids(node.orelse, module, params, depth + 1)
            return None if a is None or b is None else a + b
        if isinstance(node, ast.Name):
            return self._name(node.id, module, params, depth)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = module.imports.get(node.value.id)
            dotted = f"{target[0]}.{target[1]}" if target else None
            other = self.modules.get(_module_file(dotted)) if dotted else None
            return self._name(node.attr, other, set(), depth) if other else None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            table = module.constants.get(node.value.id)
            if isinstance(table, ast.Dict) and table.values:
                found = [self.ids(v, module, set(), depth + 1) for v in table.values]
                return None if any(f is None for f in found) else tuple(i for f in found for i in f)
        return None

    def _name(self, name: str, module: _Module, params: set[str], depth: int) -> tuple[str, ...] | None:
        if name in params:
            return ()  # passed in by the caller, whose N_ literal the scan collects there
        if name in module.constants:
            return self.ids(module.constants[name], module, set(), depth + 1)
        if name in module.imports:
            source, attr = module.imports[name]
            other = self.modules.get(_module_file(source))
            return self._name(attr, other, set(), depth + 1) if other and attr else None
        return None


def _function_params(tree: ast.AST) -> dict[ast.AST, set[str]]:
    """Map each call node to the parameter names of the function it is in."""
    owner: dict[ast.AST, set[str]] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            names = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    owner.setdefault(node, set()).update(names)
    return owner


def _param_keys(call: ast.Call) -> tuple[str, ...]:
    for keyword in call.keywords:
        if keyword.arg == "params" and isinstance(keyword.value, ast.Dict):
            return tuple(_literal(k) or "" for k in keyword.value.keys if k is not None)
    return ()


def scan(skip: frozenset[str] = frozenset()) -> Scan:
    """Scan the package (files in ``skip`` are left out of the error sites, not of the ids)."""
    modules = _modules()
    result = Scan(error_classes=_error_classes(modules))
    resolver = _Resolver(modules)
    for module in modules.values():
        params_of = _function_params(module.tree)
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.Call):
                continue
            where = f"{module.rel}:{node.lineno}"
            called = _name(node.func)
            if called == "N_" and (text := _marked(node)) is not None:
                result.marked.setdefault(text, where)
            elif called in GETTEXT and node.args and (text := _literal(node.args[0])) is not None:
                result.shown.setdefault(text, (where, tuple(k.arg for k in node.keywords if k.arg)))
                loose = [k.arg for k in node.keywords if _literal(k.value) is not None]
                if loose:  # _("%(label)s created.", label="Group"): the label stays English
                    result.offenders.append(f"{where}: untranslated literal parameter(s) {loose} of {called}()")
            elif called in result.error_classes and node.args and module.rel not in skip:
                ids = resolver.ids(node.args[0], module, params_of.get(node, set()))
                if ids is None:
                    result.offenders.append(f"{where}: {called}({ast.unparse(node.args[0])[:80]}) is not a message id")
                else:
                    result.sites.append(ErrorSite(where, called, ids, _param_keys(node)))
    return result


def english_on_pages() -> list[str]:
    """Places in irisrag/web that show a domain error's English ``message`` outside a JSON answer.

    Pages translate (``exc.translated(_)``); only the API's JSON (``jsonify``, ``_error_response``)
    keeps the English text next to the code.
    """
    found = []
    for path in sorted((PACKAGE / "web").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_json: set[ast.AST] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node.func) in {"jsonify", "_error_response"}:
                in_json.update(ast.walk(node))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "message" and node not in in_json \
                    and isinstance(node.value, ast.Name) and node.value.id == "exc":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found

"""Report the code's shape: module sizes, function lengths, and which packages import the external systems.

    .venv/bin/python scripts/code_report.py [ROOT ...]     (default: irisrag bench scripts)

For every package (folder) it prints the modules and their lines, the function lengths
(median / p90 / max, ``def`` line to last line, nested functions and methods included),
and the modules importing ``flask``, ``rq``, ``redis``, ``lancedb`` or ``requests``; then
the longest functions and the largest modules of the whole tree. A report, not a gate:
CI prints it and goes on (see .ci/run).
"""
from __future__ import annotations

import ast
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

WATCHED = ("flask", "rq", "redis", "lancedb", "requests")
DEFAULT_ROOTS = ("irisrag", "bench", "scripts")
TOP = 10


@dataclass
class Module:
    path: Path
    lines: int
    functions: list[tuple[str, int]] = field(default_factory=list)  # (qualified name, lines)
    imports: set[str] = field(default_factory=set)  # the watched libraries it imports


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module.split(".")[0]]
    return []


def _functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, int]]:
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((prefix + node.name, node.end_lineno - node.lineno + 1))
            found.extend(_functions(node, f"{prefix}{node.name}."))
        elif isinstance(node, ast.ClassDef):
            found.extend(_functions(node, f"{prefix}{node.name}."))
        else:
            found.extend(_functions(node, prefix))
    return found


def read_module(path: Path) -> Module:
    """Parse one module and measure it."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(path))
    imports = {name for node in ast.walk(tree) for name in _imported(node) if name in WATCHED}
    return Module(path, len(text.splitlines()), _functions(tree), imports)


def p90(values: list[int]) -> int:
    """Return the 90th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, -(-9 * len(ordered) // 10) - 1)]


def _stats(lengths: list[int]) -> str:
    if not lengths:
        return "functions      0"
    return (f"functions {len(lengths):>6}  median {statistics.median(lengths):>4g}  p90 {p90(lengths):>3}  "
            f"max {max(lengths):>3}")


def report(modules: list[Module]) -> list[str]:
    """Return the report's lines."""
    packages: dict[Path, list[Module]] = defaultdict(list)
    for module in modules:
        packages[module.path.parent].append(module)
    lines = []
    for package in sorted(packages):
        members = sorted(packages[package], key=lambda m: m.path.name)
        lengths = [n for m in members for _, n in m.functions]
        lines.append(f"{package}/  {len(members)} modules, {sum(m.lines for m in members)} lines, "
                     f"{_stats(lengths)}")
        lines.append("    " + "  ".join(f"{m.path.stem} {m.lines}" for m in members))
        for library in WATCHED:
            users = [m.path.stem for m in members if library in m.imports]
            if users:
                lines.append(f"    imports {library}: {', '.join(users)}")
    lengths = [n for m in modules for _, n in m.functions]
    lines.append("")
    lines.append(f"all: {len(modules)} modules, {sum(m.lines for m in modules)} lines, "
                 f"largest {max((m.lines for m in modules), default=0)}, {_stats(lengths)}")
    for library in WATCHED:
        users = sorted(str(m.path) for m in modules if library in m.imports)
        lines.append(f"imports {library} ({len(users)}): {', '.join(users) or '-'}")
    longest = sorted(((n, f"{m.path}:{name}") for m in modules for name, n in m.functions), reverse=True)[:TOP]
    lines.append(f"longest functions: {', '.join(f'{where} {n}' for n, where in longest)}")
    largest = sorted(modules, key=lambda m: -m.lines)[:TOP]
    lines.append(f"largest modules: {', '.join(f'{m.path} {m.lines}' for m in largest)}")
    return lines


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [Path(r) for r in DEFAULT_ROOTS if Path(r).exists()]
    modules = [read_module(p) for root in roots for p in sorted(root.rglob("*.py")) if ".venv" not in p.parts]
    print("\n".join(report(modules)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

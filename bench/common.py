"""Shared helpers: statistics, Markdown tables, machine description, output files."""
from __future__ import annotations

import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# Inputs, caches and the 1M table; IRISRAG_BENCH_DATA puts them outside the checkout (shared by worktrees).
DATA = Path(os.environ.get("IRISRAG_BENCH_DATA") or BENCH / "data")
OUT = BENCH / "out"


def log(message: str) -> None:
    """Print a progress line to stderr (tables go to stdout)."""
    import sys

    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """Return the q-th percentile (0..100), linear interpolation between order statistics."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def ms(seconds: float) -> str:
    """Format seconds as milliseconds with a sensible number of digits."""
    value = seconds * 1000.0
    if value != value:  # nan
        return "–"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def med_p95(values: Sequence[float]) -> str:
    """Return 'median / p95' in milliseconds."""
    return f"{ms(median(values))} / {ms(percentile(values, 95))}"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """Render a Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return "\n".join(lines)


def _run(command: list[str]) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=10).stdout.rstrip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def machine() -> str:
    """Describe the machine and the library versions as a Markdown block."""
    import lancedb
    import numpy
    import pyarrow

    free = _run(["free", "-h"])
    versions = (f"Python {platform.python_version()}, NumPy {numpy.__version__}, "
                f"LanceDB {lancedb.__version__}, PyArrow {pyarrow.__version__}")
    try:
        import rq

        versions += f", RQ {rq.__version__}"
    except ImportError:
        pass
    return "\n".join([
        f"- date: {dt.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}",
        f"- `nproc`: {_run(['nproc'])}; CPU: {cpu_model()}; load average at start: {load_average()}",
        f"- {versions}",
        "- `free -h`:",
        "",
        "```",
        free,
        "```",
    ])


def write_report(name: str, title: str, sections: Sequence[str], raw: dict) -> Path:
    """Write the Markdown report (timestamped and as ``<name>.md``) and the raw numbers as JSON."""
    OUT.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = f"# {title}\n\n" + "\n\n".join(sections) + f"\n\nLoad average at the end: {load_average()}\n"
    (OUT / f"{name}-{stamp}.md").write_text(text)
    (OUT / f"{name}.md").write_text(text)
    (OUT / f"{name}-{stamp}.json").write_text(json.dumps(raw, indent=1, default=str))
    return OUT / f"{name}-{stamp}.md"

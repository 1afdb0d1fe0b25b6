"""Where the shared benchmark sets are: ``IRISRAG_SHARED_EVAL``, else ``../shared/eval`` next to the checkout."""
from __future__ import annotations

import os
from pathlib import Path

_CANDIDATES = [Path(os.environ["IRISRAG_SHARED_EVAL"])] if os.environ.get("IRISRAG_SHARED_EVAL") else []
_CANDIDATES += [Path(__file__).resolve().parents[2].parent / "shared" / "eval"]
SHARED_EVAL = next((path for path in _CANDIDATES if path.is_dir()), _CANDIDATES[0])

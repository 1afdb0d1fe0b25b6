"""Built-in retrieval evaluation: BEIR datasets (beir.py), metrics (metrics.py), the runner behind
``flask rag eval`` (runner.py), and the fusion tuning tool (tune.py)."""

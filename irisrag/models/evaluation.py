"""Evaluation runs (``flask rag eval``): one row per dataset, split and retrieval mode."""
from __future__ import annotations

import json
from typing import Any

from peewee import AutoField, CharField, DateTimeField, IntegerField, TextField

from irisrag.models.base import BaseModel, utcnow


class EvalRun(BaseModel):
    id = AutoField()
    dataset = CharField(max_length=255, index=True)
    split = CharField(max_length=64)
    mode = CharField(max_length=16)
    embedder_key = CharField(max_length=128)
    queries = IntegerField(default=0)
    metrics_json = TextField(default="{}")   # {"ndcg@10": ..., "recall@5": ..., ...}
    timings_json = TextField(default="{}")   # milliseconds per query by stage
    params_json = TextField(default="{}")    # what else decides the numbers (chunking, fusion, language)
    created_at = DateTimeField(default=utcnow, index=True)

    @property
    def metrics(self) -> dict[str, float]:
        return json.loads(self.metrics_json or "{}")

    @property
    def timings(self) -> dict[str, float]:
        return json.loads(self.timings_json or "{}")

    @property
    def params(self) -> dict[str, Any]:
        return json.loads(self.params_json or "{}")

    @classmethod
    def previous(cls, dataset: str, split: str, mode: str, embedder_key: str, queries: int,
                 params_json: str | None = None):
        """Return the latest comparable run (same data, mode, embedder, query count and, if given, settings)."""
        same = ((cls.dataset == dataset) & (cls.split == split) & (cls.mode == mode)
                & (cls.embedder_key == embedder_key) & (cls.queries == queries))
        if params_json is not None:
            same &= cls.params_json == params_json
        return (cls.select()
                .where(same)
                .order_by(cls.created_at.desc(), cls.id.desc())
                .first())

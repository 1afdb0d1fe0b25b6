"""Fusion variants replayed on collected legs (``bench/fusion_replay.py replay``).

``default`` is the product's fusion (``fusion.fuse`` with ``FusionSettings.of()``), ``before`` the
previous default (weight from the coverage over all full-text candidates, per chunk). The
coverage is computed here from the question terms each collected chunk holds, the same rule
as ``fusion.question_coverage`` (which reads the chunk texts); ``flask rag eval`` confirms the
replayed numbers. The other rows are the ideas tried (README, "Evaluation"):

- ``score norm``: per-question z-score, max-scaling or rank (RRF-like) normalisation of the legs;
- ``gap10``: BM25 as (b - b_10) / b_1, so a flat full-text list moves nothing;
- ``separation``: full-text weight also scaled down when the second full-text document
  scores nearly as high as the first (no document stands out);
- ``agreement``: weight halved when the best full-text document is not among the vector
  leg's first 5;
- ``document`` rows: a document's score from its best chunk per leg (``docfuse``), with a
  bonus for its second chunk;
- ``oracle``: the best constant weight chosen per question afterwards (an upper bound for
  any per-question weight rule, not a method).
"""
from __future__ import annotations

import hashlib
import math
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from irisrag.evaluation.metrics import documents_by_best_chunk, mean_metrics  # noqa: E402
from irisrag.rag import fusion  # noqa: E402

LEGS = Path(__file__).resolve().parents[1] / "instance" / "tmp" / "fusion"
SETS = ("scifact", "xquad-en", "xquad-de", "xquad-de-en")


def half(query_id: str) -> str:
    return "even" if hashlib.sha256(query_id.encode()).digest()[0] % 2 == 0 else "odd"


def part(row: dict) -> str:
    """tune / held (SciFact: train / test; XQuAD: the even / odd half of the test split)."""
    if row["split"] == "train":
        return "tune"
    if row["split"] == "test" and load_name(row) == "scifact":
        return "held"
    return "tune" if half(row["id"]) == "even" else "held"


def load_name(row: dict) -> str:
    return row.get("_set", "")


def load(name: str) -> dict | None:
    path = LEGS / f"{name}.pkl"
    if not path.is_file():
        return None
    data = pickle.load(path.open("rb"))
    for row in data["rows"]:
        row["_set"] = data["name"]
    return data


# --- building blocks -----------------------------------------------------------------------

def coverage_all(row: dict) -> float:
    if not row["terms"]:
        return 0.0
    found = set()
    for key, *_ in row["lexical"]:
        found |= row["matched"][key]
    return len(found) / len(row["terms"])


def best(pairs, document_of=lambda k: k[0]) -> dict:
    out: dict = {}
    for key, value in pairs:
        d = document_of(key)
        if d not in out or value > out[d]:
            out[d] = value
    return out


def minmax(scores: dict) -> dict:
    return fusion.min_max(scores)


def ranked_docs(scores: dict, tiebreak: list) -> list:
    order = {k: i for i, k in enumerate(dict.fromkeys(tiebreak))}
    big = len(order)
    return sorted(scores, key=lambda k: (-scores[k], order.get(k, big)))


# --- variants: row -> document ranking (list of document positions) -------------------------

Variant = Callable[[dict], list]


def leg(name: str) -> Variant:
    def run(row):
        return documents_by_best_chunk(k[0][0] for k in row[name])
    return run


def product(settings: fusion.FusionSettings) -> Variant:
    """The product's fusion as ``retrieve.fuse_candidates`` calls it."""
    def run(row):
        cov = coverage(row, settings)
        weight = fusion.lexical_weight(settings, cov)
        keys = fusion.fuse([(k, s) for k, s in row["dense"]], [(k, b) for k, b, _ in row["lexical"]],
                           weight, settings, document_of=lambda key: key[0])
        return documents_by_best_chunk(k[0] for k in keys[:256])
    return run


def top_cov(row: dict, top: int) -> float:
    if not row["terms"]:
        return 0.0
    found: dict = {}
    for key, *_ in row["lexical"]:
        d = key[0]
        if d not in found and len(found) >= top:
            continue
        found.setdefault(d, set()).update(row["matched"][key])
    return max((len(v) for v in found.values()), default=0) / len(row["terms"])


def coverage(row: dict, settings: fusion.FusionSettings) -> float:
    """``fusion.question_coverage`` on collected legs."""
    if settings.weight_from == "all":
        return coverage_all(row)
    best_doc = top_cov(row, settings.top_documents)
    return best_doc if settings.weight_from == "top" else (coverage_all(row) + best_doc) / 2


def load_all() -> dict[str, dict]:
    return {n: d for n in SETS if (d := load(n)) is not None}


def evaluate(data: dict, variant: Variant) -> dict[str, float]:
    rankings: dict[str, dict] = {"tune": {}, "held": {}, "full": {}}
    for row in data["rows"]:
        docs = [data["corpus"][d] for d in (variant(row) if variant is not None else ORACLE(row, data))]
        p = part(row)
        rankings[p][row["id"]] = docs
        if row["split"] == "test":
            rankings["full"][row["id"]] = docs
    out = {}
    for p, r in rankings.items():
        qrels = {q: data["qrels"][q] for q in r}
        out[p] = mean_metrics(r, qrels)["ndcg@10"] if r else float("nan")
    return out


def report(names: list[str], variants: dict[str, Variant] | None = None) -> None:
    sets = load_all()
    variants = variants or VARIANTS
    chosen = names or list(variants)
    print("| variant | " + " | ".join(f"{s} tune / held / full" for s in sets) + " |")
    print("|---|" + "---|" * len(sets))
    for name in chosen:
        cells = []
        for data in sets.values():
            r = evaluate(data, variants[name])
            cells.append(f"{r['tune']:.3f} / {r['held']:.3f} / {r['full']:.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)




# --- generic score fusion for the experiments ----------------------------------------------

def norm(scores: dict, how: str) -> dict:
    if not scores:
        return {}
    vals = list(scores.values())
    if how == "minmax":
        return fusion.min_max(scores)
    if how == "max":
        top = max(vals)
        return {k: v / top if top > 0 else 0.0 for k, v in scores.items()}
    if how == "z":
        mean = sum(vals) / len(vals)
        sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals)) or 1.0
        return {k: (v - mean) / sd for k, v in scores.items()}
    if how.startswith("gap"):   # (v - v_k) / v_1, clipped at 0: a flat list scores low everywhere
        k = int(how[3:] or 10)
        ordered = sorted(vals, reverse=True)
        top, ref = ordered[0], ordered[min(k, len(ordered)) - 1] if len(ordered) >= k else 0.0
        return {key: max(0.0, v - ref) / top if top > 0 else 0.0 for key, v in scores.items()}
    if how == "raw":
        return dict(scores)
    if how.startswith("rank"):
        k = float(how[4:] or 60)
        order = sorted(scores, key=lambda x: -scores[x])
        return {key: (k + 1) / (k + i + 1) for i, key in enumerate(order)}
    raise ValueError(how)


def dense_pairs(row, with_lexical_cos: bool):
    pairs = list(row["dense"])
    if with_lexical_cos:
        seen = {k for k, _ in pairs}
        pairs += [(k, c) for k, _, c in row["lexical"] if k not in seen]
    return pairs


def generic(weight: Callable[[dict], float], level: str = "chunk", dn: str = "minmax", ln: str = "minmax",
            lexcos: bool = False, missing: str = "zero") -> Variant:
    def run(row):
        w = weight(row)
        dp = dense_pairs(row, lexcos)
        lp = [(k, b) for k, b, _ in row["lexical"]]
        if level == "doc":
            dp, lp = list(best(dp).items()), list(best(lp).items())
        a, b = norm(dict(dp), dn), norm(dict(lp), ln)
        fill_a = min(a.values(), default=0.0) if missing == "min" else 0.0
        fill_b = min(b.values(), default=0.0) if missing == "min" else 0.0
        keys = list(dict.fromkeys([*(k for k, _ in dp), *(k for k, _ in lp)]))
        scores = {k: (1 - w) * a.get(k, fill_a) + w * b.get(k, fill_b) for k in keys}
        order = ranked_docs(scores, keys)
        return order if level == "doc" else documents_by_best_chunk(k[0] for k in order)
    return run


def const(w: float) -> Callable[[dict], float]:
    return lambda row: w


def cov_weight(lw=0.65, floor=0.2, full=0.6, cov=coverage_all) -> Callable[[dict], float]:
    s = fusion.FusionSettings.of(lexical_weight=lw, coverage_floor=floor, coverage_full=full)
    return lambda row: fusion.lexical_weight(s, cov(row))


def doc_ratio(row: dict) -> float:
    """The second full-text document's best BM25 over the first's (1: flat, no document stands out)."""
    docs = sorted(best([(k, b) for k, b, _ in row["lexical"]]).values(), reverse=True)
    return docs[1] / docs[0] if len(docs) >= 2 and docs[0] > 0 else 0.0


def top_in_dense(row: dict, n: int) -> float:
    """1 if the best full-text document is among the vector leg's first n documents."""
    if not row["lexical"]:
        return 0.0
    dense_docs = list(dict.fromkeys(k[0] for k, _ in row["dense"]))[:n]
    return 1.0 if row["lexical"][0][0][0] in dense_docs else 0.0


def ramp(value: float, low: float, high: float) -> float:
    return 1.0 if high <= low else min(1.0, max(0.0, (value - low) / (high - low)))


def listening(lw=0.65, floor=0.2, full=0.6, cov=coverage_all, r_full=0.7, r_zero=1.0, agree_n=0,
              agree_min=1.0) -> Callable[[dict], float]:
    """Coverage ramp x separation ramp (the best document stands out) x agreement floor."""
    def weight(row):
        w = lw * ramp(cov(row), floor, full) * (1.0 - ramp(doc_ratio(row), r_full, r_zero))
        if agree_n and not top_in_dense(row, agree_n):
            w *= agree_min
        return w
    return weight


def best_two(pairs, bonus: float) -> dict:
    """A document's best score plus ``bonus`` x its second-best chunk's."""
    scores: dict = {}
    for key, value in pairs:
        scores.setdefault(key[0], []).append(value)
    return {d: (sorted(v, reverse=True)[0] + bonus * (sorted(v, reverse=True)[1] if len(v) > 1 else 0.0))
            for d, v in scores.items()}


def docfuse(weight: Callable[[dict], float], share: float = 1.0, dbonus: float = 0.0, lbonus: float = 0.0,
            dn: str = "minmax", ln: str = "minmax", lexcos: bool = False) -> Variant:
    """score(chunk) = (1 - share) * chunk fusion + share * document fusion (documents' best chunks per leg)."""
    def run(row):
        w = weight(row)
        dp = dense_pairs(row, lexcos)
        lp = [(k, b) for k, b, _ in row["lexical"]]
        a, b = norm(best_two(dp, dbonus), dn), norm(best_two(lp, lbonus), ln)
        docs = {d: (1 - w) * a.get(d, 0.0) + w * b.get(d, 0.0) for d in dict.fromkeys([*a, *b])}
        ca, cb = norm(dict(dp), dn), norm(dict(lp), ln)
        keys = list(dict.fromkeys([*(k for k, _ in dp), *(k for k, _ in lp)]))
        scores = {k: (1 - share) * ((1 - w) * ca.get(k, 0.0) + w * cb.get(k, 0.0)) + share * docs[k[0]]
                  for k in keys}
        return documents_by_best_chunk(k[0] for k in ranked_docs(scores, keys))
    return run


def oracle(weights=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8, 1.0)) -> Callable[[dict, dict], list]:
    """Per question, the best of these constant weights, chosen with the judgements (an upper bound)."""
    from irisrag.evaluation.metrics import ndcg_at

    variants = [generic(const(w)) for w in weights]

    def run(row, data):
        rel = data["qrels"][row["id"]]
        return max((v(row) for v in variants), key=lambda docs: ndcg_at([data["corpus"][d] for d in docs], rel, 10))
    return run


BEFORE = fusion.FusionSettings.of(weight_from="all", document_share=0.0)
VARIANTS: dict[str, Variant] = {
    "vector": leg("dense"),
    "fulltext": leg("lexical"),
    "previous default (weight from all candidates; per chunk)": product(BEFORE),
    "default (weight from both; document share 0.7)": product(fusion.FusionSettings.of()),
    "weight from the top document alone": product(fusion.FusionSettings.of(weight_from="top", document_share=0.0)),
    "weight from both; per chunk": product(fusion.FusionSettings.of(document_share=0.0)),
    "before + document share 0.7": product(fusion.FusionSettings.of(weight_from="all")),
    "before + document share 1.0": product(fusion.FusionSettings.of(weight_from="all", document_share=1.0)),
    "score norm: z-score both legs": generic(cov_weight(), "chunk", "z", "z"),
    "score norm: cosine minmax; BM25 / max": generic(cov_weight(), "chunk", "minmax", "max"),
    "score norm: ranks (RRF shape k=60)": generic(cov_weight(), "chunk", "rank60", "rank60"),
    "gap10: BM25 (b - b10) / b1": generic(cov_weight(), "chunk", "minmax", "gap10"),
    "separation: weight x ramp(doc2/doc1, 0.8..1.2)": generic(listening(r_full=0.8, r_zero=1.2)),
    "agreement: weight x 0.5 unless top BM25 doc in vector top 5": generic(listening(r_full=2, r_zero=3, agree_n=5,
                                                                                       agree_min=0.5)),
    "document share 0.5 + second vector chunk bonus 0.1": docfuse(cov_weight(), 0.5, 0.1, 0.0),
    "document share 0.5 + second chunk bonus 0.2 (both legs)": docfuse(cov_weight(), 0.5, 0.2, 0.2),
    "constant weight 0.3": generic(const(0.3)),
    "oracle: best constant weight per question (upper bound)": None,
}
ORACLE = oracle()


def chunk_order(settings: fusion.FusionSettings) -> Callable[[dict], list]:
    """The product's fused chunk order (not documents) for a question's collected legs."""
    def run(row):
        weight = fusion.lexical_weight(settings, coverage(row, settings))
        return fusion.fuse([(k, s) for k, s in row["dense"]], [(k, b) for k, b, _ in row["lexical"]],
                           weight, settings, document_of=lambda key: key[0])
    return run


def capped(keys: list, total: int = 9, per_document: int = 4) -> set:
    """The documents of the first CONTEXT_CHUNKS chunks, at most MAX_CHUNKS_PER_DOCUMENT each (no gate)."""
    kept, count = [], {}
    for key in keys:
        if count.get(key[0], 0) < per_document and len(kept) < total:
            count[key[0]] = count.get(key[0], 0) + 1
            kept.append(key)
    return {key[0] for key in kept}


def context_report() -> None:
    """Share of relevant documents that the caps let into the context (full test splits; the gate left out)."""
    rows = {"previous default (per chunk)": BEFORE,
            "document share 0.7 lifting every chunk of a document": None,
            "default (document share 0.7 lifting each document's best chunk)": fusion.FusionSettings.of()}
    sets = load_all()
    print("| caps recall, full test split | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    for label, settings in rows.items():
        order = chunk_order(settings) if settings is not None else _lift_all
        cells = []
        for data in sets.values():
            tests = [r for r in data["rows"] if r["split"] == "test"]
            shares = []
            for row in tests:
                docs = {data["corpus"][d] for d in capped(order(row))}
                relevant = data["qrels"][row["id"]]
                shares.append(sum(1 for d in relevant if d in docs) / len(relevant))
            cells.append(f"{sum(shares) / len(shares):.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def _lift_all(row: dict) -> list:
    """The first version of the document share: every chunk mixed with its document's score."""
    settings = fusion.FusionSettings.of()
    weight = fusion.lexical_weight(settings, coverage(row, settings))
    dense, lexical = [(k, s) for k, s in row["dense"]], [(k, b) for k, b, _ in row["lexical"]]
    chunks = fusion.convex(dict(dense), dict(lexical), weight)
    docs = fusion.convex(best(dense), best(lexical), weight)
    scores = {k: 0.3 * v + 0.7 * docs[k[0]] for k, v in chunks.items()}
    return ranked_docs(scores, [*(k for k, _ in dense), *(k for k, _ in lexical)])


def grid() -> None:
    """The selection: 76 combinations of weight source, ramp, document share and second-chunk bonus.

    Chosen by the tuning halves alone: the largest worst-case nDCG@10 gain over the previous
    default across the four sets, then the largest sum; the held-out columns are printed for the
    report, not used. Takes about 7 minutes.
    """
    import itertools

    sets = load_all()
    before = {n: evaluate(d, product(BEFORE)) for n, d in sets.items()}
    sources = {"all": coverage_all, "both": lambda r: (coverage_all(r) + top_cov(r, 1)) / 2}
    results = []
    for source, (floor, full), share, dbonus, lbonus in itertools.product(
            sources, ((0.2, 0.6), (0.2, 0.5), (0.1, 0.5)), (0.0, 0.3, 0.5, 0.7), (0.0, 0.1, 0.2), (0.0, 0.1)):
        if (source == "all" and (floor, full) != (0.2, 0.6)) or (share == 0 and (dbonus or lbonus)):
            continue
        variant = docfuse(cov_weight(0.65, floor, full, sources[source]), share, dbonus, lbonus)
        scores = {n: evaluate(d, variant) for n, d in sets.items()}
        gains = [scores[n]["tune"] - before[n]["tune"] for n in sets]
        results.append((min(gains), sum(gains), f"{source} {floor}-{full} share {share} bonus {dbonus}/{lbonus}",
                        scores))
    results.sort(key=lambda r: (-r[0], -r[1]))
    print(f"{len(results)} combinations; tuning gain over the previous default: worst, sum | held-out | full")
    for worst, total, name, scores in results[:10]:
        print(f"{name:36} {worst:+.4f} {total:+.4f} | " + " ".join(f"{scores[n]['held']:.4f}" for n in sets)
              + " | " + " ".join(f"{scores[n]['full']:.4f}" for n in sets))

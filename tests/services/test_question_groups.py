"""Grouping similar questions by their vectors: the algorithm, the fake embedder and the real USE embedder."""
from __future__ import annotations

import numpy as np
import pytest

from irisrag.embeddings import FakeEmbedder, UseEmbedder
from irisrag.services.admin.question_groups import group_vectors, representative, threshold_for

# Three German questions asked in several ways, and two that stand alone.
PARAPHRASES = {
    "urlaub": ["Wie beantrage ich Urlaub?", "Wo kann ich meinen Urlaub beantragen?",
               "Urlaubsantrag stellen, wie geht das?"],
    "reise": ["Wer ist für die Reisekostenabrechnung zuständig?",
              "An wen schicke ich meine Reisekostenabrechnung?"],
    "vpn": ["Wie richte ich das VPN auf dem Laptop ein?", "VPN-Zugang auf dem Laptop einrichten"],
    "kantine": ["Wann öffnet die Kantine?"],
    "drucker": ["Welcher Drucker steht im dritten Stock?"],
}


def unit(*rows) -> np.ndarray:
    m = np.array(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_group_vectors_joins_near_vectors_and_keeps_far_ones_apart():
    vectors = unit([1, 0, 0], [0.95, 0.1, 0], [0, 1, 0], [0.9, 0, 0.2], [0, 0.97, 0.1], [0, 0, 1])
    assert group_vectors(vectors, 0.9) == [[0, 1, 3], [2, 4], [5]]
    assert group_vectors(vectors, 0.999) == [[0], [1], [2], [3], [4], [5]]  # nothing is that close
    assert group_vectors(vectors, -1.0) == [[0, 1, 2, 3, 4, 5]]
    assert group_vectors(np.zeros((0, 3), dtype=np.float32), 0.5) == []


def test_group_vectors_compares_with_the_centroid_not_the_first_member():
    # b is close to a; c is close to b but not to a alone: the centroid of a and b lets c in
    a, b, c = unit([1, 0], [0.8, 0.6], [0.643, 0.766])  # 0, 37 and 50 degrees
    cosine_ac = float(a @ c)
    groups = group_vectors(np.stack([a, b, c]), 0.78)
    assert cosine_ac < 0.78 and groups == [[0, 1, 2]]


def test_representative_is_the_member_nearest_the_centroid():
    vectors = unit([1, 0], [0.9, 0.1], [0.7, 0.3])
    assert representative(vectors, [0, 1, 2]) == 1
    assert representative(vectors, [2]) == 2


def test_threshold_follows_the_embedder():
    assert threshold_for("use-m3-512") == 0.6 and threshold_for("fake-64") == 0.5
    assert threshold_for("e5-small-384") == 0.94 and threshold_for("ollama-nomic") == 0.75


def grouped_topics(embedder) -> list[set[str]]:
    texts = [(topic, q) for topic, questions in PARAPHRASES.items() for q in questions]
    order = np.random.default_rng(7).permutation(len(texts))  # not topic by topic
    texts = [texts[i] for i in order]
    vectors = embedder.embed_documents([q for _, q in texts])
    groups = group_vectors(vectors, threshold_for(embedder.key))
    return [{texts[i][0] for i in members} | {f"n={len(members)}"} for members in groups]


def test_real_use_embedder_groups_german_paraphrases():
    groups = grouped_topics(UseEmbedder())
    expected = [{"urlaub", "n=3"}, {"reise", "n=2"}, {"vpn", "n=2"}, {"kantine", "n=1"}, {"drucker", "n=1"}]
    assert sorted(groups, key=sorted) == sorted(expected, key=sorted)


@pytest.mark.parametrize("dim", [64, 256])
def test_fake_embedder_groups_questions_that_share_words(dim):
    embedder = FakeEmbedder(dim)
    texts = ["Wie beantrage ich Urlaub?", "Wie beantrage ich Urlaub im Sommer?", "Wann öffnet die Kantine?",
             "Wann öffnet die Kantine morgen?", "Welcher Drucker steht im dritten Stock?"]
    groups = group_vectors(embedder.embed_documents(texts), threshold_for(embedder.key))
    assert groups == [[0, 1], [2, 3], [4]]

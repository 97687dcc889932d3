"""The torch BERT encoder computes sentence-transformers' vectors for the bundled model, and
refuses (None) layouts it does not implement."""

import json
import shutil
from functools import cache

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from modules.embeddings import bundled_model_path
from modules.encoder import load_bert_encoder

_TEXTS = [
    "Mount Everest is 8,849 metres tall and lies in the Himalayas.",
    "",
    "Nimbus Notes Plus costs $6 per month when billed annually. " * 40,  # past max_seq_length
    "héllo wörld 東京 — naïve café",
    "a",
]


@cache
def _encoder():
    return load_bert_encoder(bundled_model_path())


def _reference(texts, batch_size=4):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(bundled_model_path()), device="cpu")
    return model.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)


def test_same_vectors_as_sentence_transformers():
    encoder = _encoder()
    assert encoder is not None
    ours = encoder.encode(_TEXTS, batch_size=2)  # batches mix lengths: padding must not change a vector
    assert ours.shape == (len(_TEXTS), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, _reference(_TEXTS), atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.text(max_size=60), min_size=1, max_size=6))
def test_batching_and_order_do_not_change_vectors(texts):
    encoder = _encoder()
    together = encoder.encode(texts, batch_size=3)
    alone = np.vstack([encoder.encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_other_layouts_are_left_to_sentence_transformers(tmp_path):
    model = tmp_path / "model"
    shutil.copytree(bundled_model_path(), model)
    pooling = model / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    config["pooling_mode_cls_token"] = True
    pooling.write_text(json.dumps(config))
    assert load_bert_encoder(model) is None
    assert load_bert_encoder(tmp_path / "missing") is None

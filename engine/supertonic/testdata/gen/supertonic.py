#!/usr/bin/python3
"""Generate a Supertonic model directory with random weights (it babbles,
it does not speak), for engine/supertonic's tests and benchmarks:

    /usr/bin/python3 engine/supertonic/testdata/gen/supertonic.py \
        [--version 1|2|3] [--upstream] [--int8] [--small] OUTDIR \
        [[FLAGS] OUTDIR ...]

By default OUTDIR is in sherpa-onnx's release layout (as its
sherpa-onnx-supertonic-3-tts-int8-2026-05-11 archive lays it out, but with
fp32 NAME.onnx graphs):

    duration_predictor.onnx text_encoder.onnx vector_estimator.onnx vocoder.onnx
    tts.json            ae.sample_rate 44100, ae.base_chunk_size 512,
                        ttl.chunk_compress_factor 6, ttl.latent_dim 24
    unicode_indexer.bin int32 per BMP code point (-1: unknown)
    voice.bin           int64 [10, 50, 256, 10, 8, 16], then the ten voices'
                        style_ttl, then their style_dp (F1..F5, M1..M5)

--int8 names the graphs NAME.int8.onnx (the weights stay fp32: only the
layout is tested). --upstream writes Supertone's own layout instead, as its
model repositories are downloaded: onnx/ with the graphs, tts.json and
unicode_indexer.json, beside voice_styles/F1.json ... M5.json.
--version sets which characters the indexer knows: 1 ASCII and combining
marks (Supertonic 1, English), 2 also Hangul jamo (Supertonic 2), 3 (the
default) also Cyrillic, Greek, Arabic, Devanagari and kana (Supertonic 3).
--small makes every graph a few thousand parameters (quick unit tests).

The graphs have the inputs, outputs, dtypes and dynamic axes of the
published exports, which sherpa-onnx feeds by position:

  duration_predictor  text_ids int64 [B, T], style_dp [B, 8, 16],
                      text_mask [B, 1, T] -> duration [B] (seconds)
  text_encoder        text_ids, style_ttl [B, 50, 256], text_mask
                      -> text_emb [B, 256, T]
  vector_estimator    noisy_latent [B, 144, L], text_emb, style_ttl,
                      latent_mask [B, 1, L], text_mask, current_step [B],
                      total_step [B] -> denoised_latent [B, 144, L]
  vocoder             latent [B, 144, L] -> wav_tts [B, L * 3072]

and, full size, about the real graphs' parameter counts (duration
predictor 0.34 M, text encoder 6.8 M, vector estimator 33 M, vocoder 25 M).
The duration is about 70 ms per character, shaped by the voice; each
flow step is an Euler step x + v / total_step of a velocity that depends
on x, the text, the voice and the step; the vocoder makes 512 samples per
decompressed frame. Every input changes the output. Needs Debian's
python3-onnx; the weights come from a fixed seed, so the files are the
same on every run. Several models, each its flags then its OUTDIR, are
made in one run (the same files as a run each, without Python starting
again).
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "internal", "testkit", "onnxtest", "gen"))
from onnxgraph import Graph as _Graph, f32, i64  # noqa: E402

TTL, TTL_DIM = 50, 256  # style_ttl [1, 50, 256]
DP, DP_DIM = 8, 16  # style_dp [1, 8, 16]
LATENT, COMPRESS, BASE_CHUNK = 24, 6, 512
VOCAB = 512
VOICES = ["F1", "F2", "F3", "F4", "F5", "M1", "M2", "M3", "M4", "M5"]

rng = np.random.default_rng(20261129)


def rand(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


class Graph(_Graph):
    def __init__(self):
        super().__init__("voxkit-supertonic-gen")

    def dense(self, x, i, o, scale=None):
        """x [..., i] @ W [i, o] + b."""
        w = self.const(rand(i, o, scale=scale if scale is not None else 1.0 / np.sqrt(i)))
        return self.op("Add", self.op("MatMul", x, w), self.const(rand(o, scale=0.02)))

    def blocks(self, x, dim, hidden, n):
        """n residual blocks x + W2 tanh(W1 x), scaled to keep x bounded."""
        for _ in range(n):
            h = self.op("Tanh", self.dense(x, dim, hidden))
            x = self.op("Add", x, self.op("Mul", self.dense(h, hidden, dim), self.const([0.5])))
            x = self.op("Tanh", x)
        return x


def pooled(g, x, mask_t):
    """Mean of x [B, T, D] over the tokens mask_t [B, T, 1] keeps."""
    s = g.op("ReduceSum", g.op("Mul", x, mask_t), g.const([1], np.int64), keepdims=0)
    n = g.op("ReduceSum", mask_t, g.const([1], np.int64), keepdims=0)
    return g.op("Div", s, g.op("Max", n, g.const([1.0])))


def style_vector(g, name, rows, dim, out):
    """A voice style [B, rows, dim] pooled to [B, out]."""
    return g.dense(g.op("ReduceMean", name, axes=[1], keepdims=0), dim, out)


def token_mask(g):
    """text_mask [B, 1, T] as [B, T, 1]."""
    return g.op("Transpose", "text_mask", perm=[0, 2, 1])


def duration_predictor(path, small):
    g = Graph()
    hid = 16 if small else 256
    emb = g.op("Gather", g.const(rand(VOCAB, 96, scale=0.5)), "text_ids", axis=0)  # [B, T, 96]
    h = g.op("Tanh", g.dense(emb, 96, hid))
    style = g.op("Unsqueeze", style_vector(g, "style_dp", DP, DP_DIM, hid), g.const([1], np.int64))
    h = g.op("Add", h, style)
    h = g.blocks(h, hid, hid, 0 if small else 2)
    per = g.op("Sigmoid", g.dense(h, hid, 1))  # [B, T, 1] in (0, 1)
    per = g.op("Add", g.op("Mul", per, g.const([0.06])), g.const([0.04]))  # 40..100 ms a character
    total = g.op("ReduceSum", g.op("Mul", per, token_mask(g)), g.const([1, 2], np.int64), keepdims=0)
    g.out("Identity", [total], "duration")
    return g.save(path, [i64("text_ids", ["batch_size", "text_length"]), f32("style_dp", ["batch_size", DP, DP_DIM]),
                         f32("text_mask", ["batch_size", 1, "text_length"])], [f32("duration", ["batch_size"])])


def text_encoder(path, small):
    g = Graph()
    n = 0 if small else 12
    hid = 32 if small else 1064
    x = g.op("Gather", g.const(rand(VOCAB, TTL_DIM, scale=0.5)), "text_ids", axis=0)  # [B, T, 256]
    style = g.op("Unsqueeze", style_vector(g, "style_ttl", TTL, TTL_DIM, TTL_DIM), g.const([1], np.int64))
    x = g.op("Tanh", g.op("Add", x, style))
    x = g.blocks(x, TTL_DIM, hid, n)
    if not small:
        x = g.op("Tanh", g.dense(x, TTL_DIM, TTL_DIM))
    x = g.op("Mul", x, token_mask(g))
    g.out("Transpose", [x], "text_emb", perm=[0, 2, 1])
    return g.save(path, [i64("text_ids", ["batch_size", "text_length"]), f32("style_ttl", ["batch_size", TTL, TTL_DIM]),
                         f32("text_mask", ["batch_size", 1, "text_length"])], [f32("text_emb", ["batch_size", TTL_DIM, "text_length"])])


def vector_estimator(path, small):
    g = Graph()
    dim = LATENT * COMPRESS
    hid, inner, n = (32, 64, 1) if small else (512, 2120, 15)
    x = g.op("Transpose", "noisy_latent", perm=[0, 2, 1])  # [B, L, 144]
    h = g.dense(x, dim, hid)
    emb = g.op("Transpose", "text_emb", perm=[0, 2, 1])  # [B, T, 256]
    text = g.dense(pooled(g, emb, token_mask(g)), TTL_DIM, hid)  # [B, hid]
    style = style_vector(g, "style_ttl", TTL, TTL_DIM, hid)
    t = g.op("Div", "current_step", "total_step")  # [B]
    t = g.op("Unsqueeze", t, g.const([1], np.int64))  # [B, 1]
    when = g.op("Sin", g.op("Mul", t, g.const(rand(hid, scale=3.0))))  # [B, hid]
    cond = g.op("Unsqueeze", g.op("Add", g.op("Add", text, style), when), g.const([1], np.int64))
    h = g.op("Tanh", g.op("Add", h, cond))
    h = g.blocks(h, hid, inner, n)
    v = g.dense(h, hid, dim, scale=1.0 / np.sqrt(hid))  # velocity [B, L, 144]
    v = g.op("Transpose", v, perm=[0, 2, 1])
    step = g.op("Unsqueeze", g.op("Reciprocal", "total_step"), g.const([1, 2], np.int64))  # [B, 1, 1]
    nxt = g.op("Add", "noisy_latent", g.op("Mul", v, step))
    g.out("Mul", [nxt, "latent_mask"], "denoised_latent")
    return g.save(path, [f32("noisy_latent", ["batch_size", dim, "latent_length"]),
                         f32("text_emb", ["batch_size", TTL_DIM, "text_length"]),
                         f32("style_ttl", ["batch_size", TTL, TTL_DIM]),
                         f32("latent_mask", ["batch_size", 1, "latent_length"]),
                         f32("text_mask", ["batch_size", 1, "text_length"]),
                         f32("current_step", ["batch_size"]), f32("total_step", ["batch_size"])],
                  [f32("denoised_latent", ["batch_size", dim, "latent_length"])])


def vocoder(path, small):
    g = Graph()
    hid, inner, n = (16, 32, 1) if small else (512, 1608, 15)
    # Decompress [B, 144, L] to [B, 6L, 24]: frame l's six sub-frames.
    x = g.op("Reshape", "latent", g.const([0, LATENT, COMPRESS, -1], np.int64))  # [B, 24, 6, L]
    x = g.op("Transpose", x, perm=[0, 3, 2, 1])  # [B, L, 6, 24]
    x = g.op("Reshape", x, g.const([0, -1, LATENT], np.int64))  # [B, 6L, 24]
    h = g.op("Tanh", g.dense(x, LATENT, hid))
    h = g.blocks(h, hid, inner, n)
    y = g.op("Tanh", g.dense(h, hid, BASE_CHUNK, scale=1.0 / np.sqrt(hid)))
    y = g.op("Mul", y, g.const([0.3]))
    g.out("Reshape", [y, g.const([0, -1], np.int64)], "wav_tts")  # [B, 6L * 512]
    return g.save(path, [f32("latent", ["batch_size", LATENT * COMPRESS, "latent_length"])],
                  [f32("wav_tts", ["batch_size", "wav_length"])])


def indexer(version):
    """The model's id of each BMP code point, -1 for those it does not know."""
    known = list(range(0x20, 0x7F)) + list(range(0x300, 0x370))
    if version >= 2:
        known += list(range(0x1100, 0x1200))
    if version >= 3:
        known += list(range(0x370, 0x400)) + list(range(0x400, 0x530)) + list(range(0x600, 0x700))
        known += list(range(0x900, 0x980)) + list(range(0x3040, 0x3100))
    ids = np.full(0x10000, -1, dtype=np.int32)
    for k, cp in enumerate(known):
        ids[cp] = 1 + k % (VOCAB - 1)
    return ids


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    while args:
        version, upstream, int8, small = 3, False, False, False
        while args and args[0].startswith("--"):
            a = args.pop(0)
            if a == "--version":
                version = int(args.pop(0))
            elif a == "--upstream":
                upstream = True
            elif a == "--int8":
                int8 = True
            elif a == "--small":
                small = True
            else:
                sys.exit(f"unknown flag {a}")
        if not args:
            sys.exit(__doc__)
        generate(args.pop(0), version, upstream, int8, small)


def generate(out, version, upstream, int8, small):
    global rng
    rng = np.random.default_rng(20261129)  # each model as if made alone
    onnx_dir = os.path.join(out, "onnx") if upstream else out
    os.makedirs(onnx_dir, exist_ok=True)
    suffix = ".int8.onnx" if int8 else ".onnx"
    counts = {}
    for name, make in [("duration_predictor", duration_predictor), ("text_encoder", text_encoder),
                       ("vector_estimator", vector_estimator), ("vocoder", vocoder)]:
        counts[name] = make(os.path.join(onnx_dir, name + suffix), small)
    with open(os.path.join(onnx_dir, "tts.json"), "w") as f:
        json.dump({"tts_version": f"voxkit-gen-v{version}",
                   "ae": {"sample_rate": 44100, "base_chunk_size": BASE_CHUNK},
                   "ttl": {"chunk_compress_factor": COMPRESS, "latent_dim": LATENT}}, f, indent=2)
    ids = indexer(version)
    styles = [(rand(1, TTL, TTL_DIM, scale=0.5), rand(1, DP, DP_DIM, scale=0.5)) for _ in VOICES]
    if upstream:
        with open(os.path.join(onnx_dir, "unicode_indexer.json"), "w") as f:
            json.dump(ids.tolist(), f)
        vdir = os.path.join(out, "voice_styles")
        os.makedirs(vdir, exist_ok=True)
        for name, (ttl, dp) in zip(VOICES, styles):
            with open(os.path.join(vdir, name + ".json"), "w") as f:
                json.dump({"style_ttl": {"data": ttl.tolist(), "dims": list(ttl.shape), "type": "float32"},
                           "style_dp": {"data": dp.tolist(), "dims": list(dp.shape), "type": "float32"}}, f)
    else:
        ids.tofile(os.path.join(onnx_dir, "unicode_indexer.bin"))
        with open(os.path.join(out, "voice.bin"), "wb") as f:
            n = len(VOICES)
            f.write(np.array([n, TTL, TTL_DIM, n, DP, DP_DIM], dtype="<i8").tobytes())
            for ttl, _ in styles:
                f.write(ttl.astype("<f4").tobytes())
            for _, dp in styles:
                f.write(dp.astype("<f4").tobytes())
    print(json.dumps(counts))


if __name__ == "__main__":
    main()

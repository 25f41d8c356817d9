#!/usr/bin/python3
"""Generate a PocketTTS model directory in sherpa-onnx's release layout, with
random weights (it babbles, it does not speak), for engine/pocket's tests and
benchmarks:

    /usr/bin/python3 engine/pocket/testdata/gen/pocket.py [--int8] [--growing] [--sized | --kv] OUTDIR

writes OUTDIR/lm_main.onnx, lm_flow.onnx, encoder.onnx, decoder.onnx,
text_conditioner.onnx, vocab.json and token_scores.json (a few hundred KB,
never committed). With --int8 the three files the int8 release quantizes are
named lm_main.int8.onnx, lm_flow.int8.onnx and decoder.int8.onnx instead (the
weights are the same: only the layout is tested). With --growing lm_main has
a fifth state, float [1, n], that grows by one value every run (a state
whose shape changes, which a runtime cannot write in place). With --sized
lm_main has the published export's size and state layout (see lm_main_sized;
about 300 MB, for benchmarks); with --kv a one-layer one of the same layout
whose cache is 2 MB (a few MB in all, for tests). Needs Debian's
python3-onnx; the weights come from a fixed seed, so the files are the same
on every run.

The graphs are written with onnx.helper and have the inputs, outputs and
state tensors of the published export (KevinAHM/pocket-tts-onnx-export, as
sherpa-onnx's runtime feeds them, by position):

  text_conditioner  token_ids int64 [1, N] -> embeddings float [1, N, 1024]
  encoder           audio float [1, 1, S] (24 kHz) -> latents float [1, M, 1024],
                    one latent per 1920 samples (12.5 Hz)
  lm_main           sequence float [1, T, 32] (NaN = begin of speech),
                    text_embeddings float [1, N, 1024], state_0..3
                    -> conditioning float [1, 64], eos_logit float [1, 1],
                    out_state_0..3. The states are a float memory [1, 64],
                    an empty float tensor [0] (the export's current_end),
                    an int64 step [1] (+= T + N) and a float budget [2]
                    (frames seen, embeddings seen). eos_logit rises with the
                    frames generated and passes -4 after about 0.6 frames per
                    text token and reference latent.
  lm_flow           c [1, 64], s [1, 1], t [1, 1], x [1, 32] -> flow_dir [1, 32]
  decoder           latent float [1, T, 32], state_0 float [1, 32, 2] (the
                    previous two latents), state_1 bool [1] (seen a chunk),
                    state_2 int64 [1] (frames decoded) -> audio_frame float
                    [1, 1, T * 1920], out_state_0..2

Every state changes the output, so a runtime that does not feed the states
back, or starts them other than as zeros, gives other audio.
"""

import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "internal", "testkit", "onnxtest", "gen"))
from onnxgraph import Graph as _Graph, f32  # noqa: E402

DIM = 64  # hidden size of lm_main and lm_flow
LATENT = 32  # sherpa-onnx fixes this
EMBED = 1024  # sherpa-onnx fixes this
HOP = 1920  # samples per latent at 24 kHz

rng = np.random.default_rng(20261125)


def rand(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


class Graph(_Graph):
    def __init__(self):
        super().__init__("voxkit-pocket-gen")


def vocabulary():
    """A SentencePiece-shaped vocabulary: <unk>, <s>, </s>, the 256 byte
    pieces, then word pieces; scores rise with a piece's length."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)]
    scores = {t: 0.0 for t in tokens}
    pieces = ["\u2581"] + list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?;:'-\"")
    pieces += ["th", "he", "in", "er", "an", "re", "on", "at", "en", "ed", "ou", "is", "it", "ing", "ion"]
    pieces += ["\u2581" + w for w in "the a an and of to in is it that was for on are with as I his they be at one have this from or had by hot word but what some we can out other were all there when up use your how said each she which do their time if will way about many then them write would like so these her long make thing see him two has look more day could go come did number sound no most people my over know water than call first who may down side been now find".split()]
    pieces = list(dict.fromkeys(pieces))
    for p in pieces:
        tokens.append(p)
        scores[p] = round(-12.0 + 2.0 * len(p) + float(rng.uniform(-0.5, 0.5)), 4)
    return {t: i for i, t in enumerate(tokens)}, scores


def text_conditioner(path, vocab_size):
    g = Graph()
    table = g.const(rand(vocab_size, 16))
    x = g.op("Gather", table, "token_ids", axis=0)
    g.out("MatMul", [x, g.const(rand(16, EMBED, scale=0.25))], "embeddings")
    g.save(path, [helper.make_tensor_value_info("token_ids", TensorProto.INT64, [1, "n"])], [f32("embeddings", [1, "n", EMBED])])


def encoder(path):
    g = Graph()
    x = g.op("Conv", "audio", g.const(rand(16, 1, HOP, scale=0.05)), strides=[HOP], kernel_shape=[HOP])
    x = g.op("Transpose", x, perm=[0, 2, 1])
    x = g.op("MatMul", x, g.const(rand(16, EMBED, scale=0.5)))
    g.out("Tanh", [x], "latents")
    g.save(path, [f32("audio", [1, 1, "samples"])], [f32("latents", [1, "frames", EMBED])])


def lm_main(path, growing=False):
    g = Graph()
    bos = g.const(rand(LATENT))
    seq = g.op("Where", g.op("IsNaN", "sequence"), bos, "sequence")
    h_text = g.op("MatMul", "text_embeddings", g.const(rand(EMBED, DIM, scale=0.05)))
    h_seq = g.op("MatMul", seq, g.const(rand(LATENT, DIM, scale=0.3)))
    h = g.op("Concat", h_text, h_seq, axis=1)  # [1, N+T, DIM]
    total = g.op("ReduceSum", h, g.const([1], np.int64), keepdims=0)  # [1, DIM]
    shape_seq = g.op("Shape", "sequence")
    shape_text = g.op("Shape", "text_embeddings")
    one = g.const([1], np.int64)
    t = g.op("Gather", shape_seq, one, axis=0)  # [1]
    n = g.op("Gather", shape_text, one, axis=0)
    count = g.op("Cast", g.op("Add", t, n), to=TensorProto.FLOAT)
    mean = g.op("Div", total, g.op("Max", count, g.const([1.0])))
    step = g.op("Cast", "state_2", to=TensorProto.FLOAT)
    wave = g.op("Mul", g.op("Sin", g.op("Mul", step, g.const([0.37]))), g.const(rand(DIM, scale=0.3)))
    mem = g.op("Add", g.op("Mul", "state_0", g.const([0.7])), g.op("Mul", mean, g.const([0.8])))
    g.out("Tanh", [g.op("Add", mem, wave)], "out_state_0")
    cond = g.op("Add", g.op("MatMul", "out_state_0", g.const(rand(DIM, DIM, scale=0.3))), g.const(rand(DIM, scale=0.1)))
    g.out("Tanh", [cond], "conditioning")
    g.out("Identity", ["state_1"], "out_state_1")
    g.out("Add", ["state_2", g.op("Add", t, n)], "out_state_2")
    seen = g.op("Concat", g.op("Cast", t, to=TensorProto.FLOAT), g.op("Cast", n, to=TensorProto.FLOAT), axis=0)
    g.out("Add", ["state_3", seen], "out_state_3")
    # eos = (frames - 0.6 * embeddings - 6) / 2 + tanh(memory . w) / 2
    frames = g.op("Slice", "out_state_3", g.const([0], np.int64), g.const([1], np.int64))
    embeds = g.op("Slice", "out_state_3", g.const([1], np.int64), g.const([2], np.int64))
    lin = g.op("Sub", g.op("Sub", frames, g.op("Mul", embeds, g.const([0.6]))), g.const([6.0]))
    mood = g.op("Tanh", g.op("MatMul", "out_state_0", g.const(rand(DIM, 1))))
    eos = g.op("Mul", g.op("Add", g.op("Unsqueeze", lin, g.const([0], np.int64)), mood), g.const([0.5]))
    inputs = [f32("sequence", [1, "seq_len", LATENT]), f32("text_embeddings", [1, "text_len", EMBED]),
              f32("state_0", [1, DIM]), f32("state_1", [0]),
              helper.make_tensor_value_info("state_2", TensorProto.INT64, [1]), f32("state_3", [2])]
    outputs = [f32("conditioning", [1, DIM]), f32("eos_logit", [1, 1]),
               f32("out_state_0", [1, DIM]), f32("out_state_1", [0]),
               helper.make_tensor_value_info("out_state_2", TensorProto.INT64, [1]), f32("out_state_3", [2])]
    if growing:
        # state_4 [1, n] grows by one value (the logit) every run, as a
        # cache without a fixed size would; its mean nudges the logit.
        eos = g.op("Add", eos, g.op("Mul", g.op("ReduceMean", "state_4", axes=[1], keepdims=1), g.const([0.05])))
        g.out("Concat", ["state_4", eos], "out_state_4", axis=1)
        inputs.append(f32("state_4", [1, "history"]))
        outputs.append(f32("out_state_4", [1, "history_out"]))
    g.out("Identity", [eos], "eos_logit")
    g.save(path, inputs, outputs)


def lm_main_sized(path, layers=6, heads=16, head=64, ffn=4096, ctx=1000):
    """lm_main at the export's size: 6 transformer layers of width 1024 (16
    heads of 64, a 4096-wide feed-forward; 75.6 M parameters), each with a
    KV cache state float [2, 1, 1000, 16, 64] (8 MB) that every run writes
    whole (the oldest T + N positions shifted out, the run's keys and values
    in), then the step int64 [1] and the budget float [2] of lm_main. The
    cache's positions before the step are masked out of the attention.
    --kv makes a small one of the same layout: one layer of width 128 with a
    2 MB cache."""
    g = Graph()
    width = heads * head
    bos = g.const(rand(LATENT))
    seq = g.op("Where", g.op("IsNaN", "sequence"), bos, "sequence")
    text = "text_embeddings" if width == EMBED else g.op("MatMul", "text_embeddings", g.const(rand(EMBED, width, scale=EMBED ** -0.5)))
    h = g.op("Concat", text, g.op("MatMul", seq, g.const(rand(LATENT, width, scale=LATENT ** -0.5))), axis=1)  # [1, Q, W]
    one = g.const([1], np.int64)
    t = g.op("Gather", g.op("Shape", "sequence"), one, axis=0)
    n = g.op("Gather", g.op("Shape", "text_embeddings"), one, axis=0)
    q_len = g.op("Add", t, n)  # [1]
    steps = layers  # the index of the step state
    step = f"state_{steps}"
    budget = f"state_{steps + 1}"
    seen_all = g.op("Cast", g.op("Add", step, q_len), to=TensorProto.FLOAT)
    pos = g.op("Range", g.const(0.0), g.const(float(ctx)), g.const(1.0))
    mask = g.op("Where", g.op("Less", pos, g.op("Sub", g.const([float(ctx)]), seen_all)), g.const([-1e9]), g.const([0.0]))  # [ctx]
    split_qkv = g.const([width, width, width], np.int64)
    qshape = g.const([1, -1, heads, head], np.int64)
    ones, zeros = g.const(np.ones(width)), g.const(np.zeros(width))
    for i in range(layers):
        x = g.op("LayerNormalization", h, ones, zeros, axis=-1)
        qkv = g.op("MatMul", x, g.const(rand(width, 3 * width, scale=width ** -0.5)))
        g.nodes.append(helper.make_node("Split", [qkv, split_qkv], [f"q{i}", f"k{i}", f"v{i}"], axis=2))
        q = g.op("Transpose", g.op("Reshape", f"q{i}", qshape), perm=[0, 2, 1, 3])  # [1, H, Q, D]
        k = g.op("Unsqueeze", g.op("Reshape", f"k{i}", qshape), g.const([0], np.int64))  # [1, 1, Q, H, D]
        v = g.op("Unsqueeze", g.op("Reshape", f"v{i}", qshape), g.const([0], np.int64))
        kept = g.op("Slice", f"state_{i}", q_len, g.const([2 ** 62], np.int64), g.const([2], np.int64))
        g.out("Concat", [kept, g.op("Concat", k, v, axis=0)], f"out_state_{i}", axis=2)  # [2, 1, ctx, H, D]
        keys = g.op("Transpose", g.op("Gather", f"out_state_{i}", g.const(0, np.int64), axis=0), perm=[0, 2, 3, 1])  # [1, H, D, ctx]
        vals = g.op("Transpose", g.op("Gather", f"out_state_{i}", g.const(1, np.int64), axis=0), perm=[0, 2, 1, 3])  # [1, H, ctx, D]
        att = g.op("Softmax", g.op("Add", g.op("Mul", g.op("MatMul", q, keys), g.const([head ** -0.5])), mask), axis=-1)
        o = g.op("Reshape", g.op("Transpose", g.op("MatMul", att, vals), perm=[0, 2, 1, 3]), g.const([1, -1, width], np.int64))
        h = g.op("Add", h, g.op("MatMul", o, g.const(rand(width, width, scale=0.5 * width ** -0.5))))
        x = g.op("LayerNormalization", h, ones, zeros, axis=-1)
        x = g.op("Relu", g.op("MatMul", x, g.const(rand(width, ffn, scale=width ** -0.5))))
        h = g.op("Add", h, g.op("MatMul", x, g.const(rand(ffn, width, scale=0.5 * ffn ** -0.5))))
    last = g.op("ReduceMean", g.op("LayerNormalization", h, ones, zeros, axis=-1), axes=[1], keepdims=0)  # [1, W]
    g.out("Tanh", [g.op("MatMul", last, g.const(rand(width, DIM, scale=width ** -0.5)))], "conditioning")
    g.out("Add", [step, q_len], f"out_state_{steps}")
    seen = g.op("Concat", g.op("Cast", t, to=TensorProto.FLOAT), g.op("Cast", n, to=TensorProto.FLOAT), axis=0)
    g.out("Add", [budget, seen], f"out_state_{steps + 1}")
    frames = g.op("Slice", f"out_state_{steps + 1}", g.const([0], np.int64), g.const([1], np.int64))
    embeds = g.op("Slice", f"out_state_{steps + 1}", g.const([1], np.int64), g.const([2], np.int64))
    lin = g.op("Sub", g.op("Sub", frames, g.op("Mul", embeds, g.const([0.6]))), g.const([6.0]))
    mood = g.op("Tanh", g.op("MatMul", last, g.const(rand(width, 1, scale=width ** -0.5))))
    g.out("Mul", [g.op("Add", g.op("Unsqueeze", lin, g.const([0], np.int64)), mood), g.const([0.5])], "eos_logit")
    cache = [2, 1, ctx, heads, head]
    inputs = [f32("sequence", [1, "seq_len", LATENT]), f32("text_embeddings", [1, "text_len", EMBED])]
    inputs += [f32(f"state_{i}", cache) for i in range(layers)]
    inputs += [helper.make_tensor_value_info(step, TensorProto.INT64, [1]), f32(budget, [2])]
    outputs = [f32("conditioning", [1, DIM]), f32("eos_logit", [1, 1])]
    outputs += [f32(f"out_state_{i}", cache) for i in range(layers)]
    outputs += [helper.make_tensor_value_info(f"out_state_{steps}", TensorProto.INT64, [1]), f32(f"out_state_{steps + 1}", [2])]
    g.save(path, inputs, outputs)


def lm_flow(path):
    g = Graph()
    a = g.op("MatMul", "c", g.const(rand(DIM, LATENT, scale=0.3)))
    b = g.op("MatMul", "x", g.const(rand(LATENT, LATENT, scale=0.3)))
    st = g.op("Add", g.op("Mul", "s", g.const(rand(LATENT))), g.op("Mul", "t", g.const(rand(LATENT))))
    g.out("Tanh", [g.op("Add", g.op("Add", a, b), st)], "flow_dir")
    g.save(path, [f32("c", ["batch", DIM]), f32("s", ["batch", 1]), f32("t", ["batch", 1]), f32("x", ["batch", LATENT])],
           [f32("flow_dir", ["batch", LATENT])])


def decoder(path):
    g = Graph()
    lat = g.op("Transpose", "latent", perm=[0, 2, 1])  # [1, 32, T]
    ctx = g.op("Concat", "state_0", lat, axis=2)  # [1, 32, T+2]
    g.out("Slice", [ctx, g.const([-2], np.int64), g.const([2**62], np.int64), g.const([2], np.int64)], "out_state_0")
    x = g.op("Conv", ctx, g.const(rand(8, LATENT, 3, scale=0.3)), kernel_shape=[3])  # [1, 8, T]
    x = g.op("Tanh", x)
    x = g.op("ConvTranspose", x, g.const(rand(8, 1, HOP, scale=0.3)), strides=[HOP], kernel_shape=[HOP])  # [1, 1, T*HOP]
    x = g.op("Tanh", x)
    gain = g.op("Where", "state_1", g.const([0.5]), g.const([0.45]))
    g.out("Or", ["state_1", g.const([True], np.bool_)], "out_state_1")
    x = g.op("Mul", x, gain)
    # a quiet hum whose phase follows the frames decoded so far
    frames = g.op("Cast", "state_2", to=TensorProto.FLOAT)
    idx = g.op("Range", g.const(0.0), g.op("Cast", g.op("Squeeze", g.op("Gather", g.op("Shape", x), g.const([2], np.int64), axis=0), g.const([0], np.int64)), to=TensorProto.FLOAT), g.const(1.0))
    phase = g.op("Add", idx, g.op("Mul", frames, g.const([float(HOP)])))
    hum = g.op("Mul", g.op("Sin", g.op("Mul", phase, g.const([0.02]))), g.const([0.05]))
    g.out("Add", [x, hum], "audio_frame")
    t = g.op("Gather", g.op("Shape", "latent"), g.const([1], np.int64), axis=0)
    g.out("Add", ["state_2", t], "out_state_2")
    g.save(path,
           [f32("latent", [1, "frames", LATENT]), f32("state_0", [1, LATENT, 2]),
            helper.make_tensor_value_info("state_1", TensorProto.BOOL, [1]),
            helper.make_tensor_value_info("state_2", TensorProto.INT64, [1])],
           [f32("audio_frame", [1, 1, "samples"]), f32("out_state_0", [1, LATENT, 2]),
            helper.make_tensor_value_info("out_state_1", TensorProto.BOOL, [1]),
            helper.make_tensor_value_info("out_state_2", TensorProto.INT64, [1])])


def main():
    args = sys.argv[1:]
    int8 = "--int8" in args
    growing = "--growing" in args
    sized = "--sized" in args
    kv = "--kv" in args
    args = [a for a in args if a not in ("--int8", "--growing", "--sized", "--kv")]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    q = ".int8" if int8 else ""
    vocab, scores = vocabulary()
    with open(os.path.join(out, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "token_scores.json"), "w") as f:
        json.dump(scores, f, ensure_ascii=False)
    text_conditioner(os.path.join(out, "text_conditioner.onnx"), len(vocab))
    encoder(os.path.join(out, "encoder.onnx"))
    if sized:
        lm_main_sized(os.path.join(out, f"lm_main{q}.onnx"))
    elif kv:
        lm_main_sized(os.path.join(out, f"lm_main{q}.onnx"), layers=1, heads=2, ffn=256, ctx=2000)
    else:
        lm_main(os.path.join(out, f"lm_main{q}.onnx"), growing)
    lm_flow(os.path.join(out, f"lm_flow{q}.onnx"))
    decoder(os.path.join(out, f"decoder{q}.onnx"))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Generate the tiny Kokoro-shaped fixtures for engine/onnx tests.

    /usr/bin/python3 engine/onnx/testdata/gen/kokoro.py [OUTDIR]

OUTDIR defaults to engine/onnx/testdata/kokoro. Needs Debian's python3-onnx
and python3-numpy. Everything comes from a fixed seed, so a second run
writes the same files.

One model per export flavour of Kokoro-82M, each with that export's exact
input and output names and types (all batch 1, 24 kHz):

    kokoro-v1.0.onnx        tokens int64 [1,T], style float32 [1,256],
                            speed float32 [1]            -> audio float32 [N]
    kokoro-community.onnx   input_ids, style, speed float32 [1]
                            -> waveform float32 [1,N]
    kokoro-zh.onnx          input_ids, style, speed int32 [1]
                            -> waveform float32 [1,N], duration int64 [T]

and the same arithmetic in each, so durations, speed and style can be read
back from the audio:

    d     = max(1, round(4 * (1 + mean(style[0,128:])) / speed))
            frames per token (the "duration predictor")
    frame f belongs to token i when ends[i-1] <= f < ends[i], ends being
            the cumulative sum of the durations (CumSum, Greater, ReduceSum:
            the frame-to-token expansion Kokoro exports do without
            repeat_interleave)
    k_f   = id of that token (the "token embedding" is the identity table,
            plus a 512-entry position table, so more than 512 tokens fail
            as in Kokoro)
    out   = 0.5 * mean(style[0,:128]) * sin(2 pi k_f n / 600), n = 0..599
            600 samples per frame (the "decoder")

Pads (id 0) are silent. kokoro-zh.onnx also carries sherpa-onnx's metadata
key speaker_names, which orders the packs of a back-to-back voices file.

Voice packs are float32 [510,1,256] (rows of 8 random 256-vectors, each
repeated over 64 rows, so that git compresses them), in the three layouts:

    kokoro-v1.0.voices.bin      NumPy .npz archive name -> pack (kokoro-onnx)
    kokoro-community.voices/    one raw little-endian VOICE.bin per voice
                                (kokoro.js / onnx-community)
    kokoro-zh.voices.bin        packs back to back, ordered by the model's
                                speaker_names (sherpa-onnx)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
FRAME = 600
VOCAB = 178
ROWS, STYLE = 510, 256

FLAVOURS = {
    # name: (ids input, speed type, audio output, audio rank, extra outputs)
    "kokoro-v1.0": ("tokens", TensorProto.FLOAT, "audio", 1, False),
    "kokoro-community": ("input_ids", TensorProto.FLOAT, "waveform", 2, False),
    "kokoro-zh": ("input_ids", TensorProto.INT32, "waveform", 2, True),
}

VOICES = {
    "kokoro-v1.0": ["af_heart", "bf_emma", "ff_siwis", "jf_alpha"],
    "kokoro-community": ["am_adam", "ef_dora"],
    "kokoro-zh": ["zf_xiaobei", "af_maple"],
}


def const(name, values, dtype, dims=None):
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if dims is None:
        dims = [len(values)] if len(values) > 1 else []
    return helper.make_node(
        "Constant", [], [name], value=helper.make_tensor(name + "_v", dtype, dims, values))


def model(ids_name, speed_type, out_name, out_rank, zh):
    F, I = TensorProto.FLOAT, TensorProto.INT64
    n = [
        const("c_zero", 0, I), const("c_one", 1, I), const("c_frame", FRAME, I),
        const("c_frame_f", float(FRAME), F), const("c_twopi", 6.283185307179586, F),
        const("c_four", 4.0, F), const("c_half", 0.5, F), const("c_one_f", 1.0, F),
        const("c_lo", [0], I, [1]), const("c_mid", [128], I, [1]),
        const("c_hi", [256], I, [1]), const("c_axis1", [1], I, [1]),
        const("c_flat", [-1], I, [1]),
        helper.make_node("Constant", [], ["c_emb"], value=helper.make_tensor(
            "c_emb_v", F, [VOCAB], [float(i) for i in range(VOCAB)])),
        helper.make_node("Constant", [], ["c_pos"], value=helper.make_tensor(
            "c_pos_v", F, [512], [0.0] * 512)),
    ]
    # speed as float
    n.append(helper.make_node("Cast", ["speed"], ["speed_f"], to=F))
    # d = max(1, round(4 * (1 + mean(style[0,128:])) / speed))
    n.append(helper.make_node("Slice", ["style", "c_mid", "c_hi", "c_axis1"], ["s_dur"]))
    n.append(helper.make_node("ReduceMean", ["s_dur"], ["m_dur"], axes=[1], keepdims=0))
    n.append(helper.make_node("Add", ["m_dur", "c_one_f"], ["d0"]))
    n.append(helper.make_node("Mul", ["d0", "c_four"], ["d1"]))
    n.append(helper.make_node("Div", ["d1", "speed_f"], ["d2"]))
    n.append(helper.make_node("Round", ["d2"], ["d3"]))
    n.append(helper.make_node("Cast", ["d3"], ["d4"], to=I))
    n.append(helper.make_node("Max", ["d4", "c_one"], ["d"]))  # [1]
    # token embedding and position (fails past 512 tokens)
    n.append(helper.make_node("Reshape", [ids_name, "c_flat"], ["ids"]))
    n.append(helper.make_node("Gather", ["c_emb", "ids"], ["k_tok"], axis=0))
    n.append(helper.make_node("Shape", ["ids"], ["t_shape"]))
    n.append(helper.make_node("Gather", ["t_shape", "c_zero"], ["T"], axis=0))
    n.append(helper.make_node("Range", ["c_zero", "T", "c_one"], ["pos"]))
    n.append(helper.make_node("Gather", ["c_pos", "pos"], ["p_tok"], axis=0))
    n.append(helper.make_node("Add", ["k_tok", "p_tok"], ["k"]))
    # durations, their ends, frame -> token
    n.append(helper.make_node("Expand", ["d", "t_shape"], ["dur"]))
    n.append(helper.make_node("CumSum", ["dur", "c_zero"], ["ends"]))
    n.append(helper.make_node("ReduceSum", ["dur"], ["frames"], keepdims=0))
    n.append(helper.make_node("Range", ["c_zero", "frames", "c_one"], ["f"]))
    n.append(helper.make_node("Unsqueeze", ["f", "c_axis1"], ["f_col"]))
    n.append(helper.make_node("Unsqueeze", ["ends", "c_lo"], ["ends_row"]))
    n.append(helper.make_node("GreaterOrEqual", ["f_col", "ends_row"], ["past"]))
    n.append(helper.make_node("Cast", ["past"], ["past_i"], to=I))
    n.append(helper.make_node("ReduceSum", ["past_i", "c_axis1"], ["tok"], keepdims=0))
    n.append(helper.make_node("Gather", ["k", "tok"], ["k_f"], axis=0))
    # decoder: 600 samples per frame, amplitude from style[0,:128]
    n.append(helper.make_node("Slice", ["style", "c_lo", "c_mid", "c_axis1"], ["s_dec"]))
    n.append(helper.make_node("ReduceMean", ["s_dec"], ["m_dec"], axes=[1], keepdims=0))
    n.append(helper.make_node("Mul", ["m_dec", "c_half"], ["amp"]))
    n.append(helper.make_node("Range", ["c_zero", "c_frame", "c_one"], ["nn"]))
    n.append(helper.make_node("Cast", ["nn"], ["nn_f"], to=F))
    n.append(helper.make_node("Unsqueeze", ["k_f", "c_axis1"], ["k_col"]))
    n.append(helper.make_node("Unsqueeze", ["nn_f", "c_lo"], ["n_row"]))
    n.append(helper.make_node("Mul", ["k_col", "n_row"], ["kn"]))
    n.append(helper.make_node("Mod", ["kn", "c_frame_f"], ["kn_mod"], fmod=1))
    n.append(helper.make_node("Div", ["kn_mod", "c_frame_f"], ["frac"]))
    n.append(helper.make_node("Mul", ["frac", "c_twopi"], ["phase"]))
    n.append(helper.make_node("Sin", ["phase"], ["wave"]))
    n.append(helper.make_node("Mul", ["wave", "amp"], ["y"]))
    shape = [-1] if out_rank == 1 else [1, -1]
    n.append(const("c_out_shape", shape, I, [len(shape)]))
    n.append(helper.make_node("Reshape", ["y", "c_out_shape"], [out_name]))
    outputs = [helper.make_tensor_value_info(
        out_name, F, ["samples"] if out_rank == 1 else [1, "samples"])]
    if zh:
        n.append(helper.make_node("Identity", ["dur"], ["duration"]))
        outputs.append(helper.make_tensor_value_info("duration", I, ["tokens"]))
    inputs = [
        helper.make_tensor_value_info(ids_name, I, [1, "tokens"]),
        helper.make_tensor_value_info("style", F, [1, STYLE]),
        helper.make_tensor_value_info("speed", speed_type, [1]),
    ]
    graph = helper.make_graph(n, "kokoro-tiny", inputs, outputs)
    m = helper.make_model(graph, producer_name="voxkit-kokoro-tiny",
                          opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def pack(rng):
    rows = rng.random((8, STYLE), dtype=np.float32)
    return np.repeat(rows, 64, axis=0)[:ROWS].reshape(ROWS, 1, STYLE).astype("<f4")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "kokoro")
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(82)
    for name, spec in FLAVOURS.items():
        m = model(*spec)
        packs = {v: pack(rng) for v in VOICES[name]}
        if name == "kokoro-zh":
            meta = m.metadata_props.add()
            meta.key, meta.value = "speaker_names", ",".join(VOICES[name])
            with open(os.path.join(outdir, name + ".voices.bin"), "wb") as f:
                for v in VOICES[name]:
                    f.write(packs[v].tobytes())
        elif name == "kokoro-v1.0":
            np.savez(os.path.join(outdir, name + ".voices.bin"), **packs)
            os.replace(os.path.join(outdir, name + ".voices.bin.npz"),
                       os.path.join(outdir, name + ".voices.bin"))
        else:
            d = os.path.join(outdir, name + ".voices")
            os.makedirs(d, exist_ok=True)
            for v, p in packs.items():
                with open(os.path.join(d, v + ".bin"), "wb") as f:
                    f.write(p.tobytes())
        onnx.save(m, os.path.join(outdir, name + ".onnx"))


if __name__ == "__main__":
    main()

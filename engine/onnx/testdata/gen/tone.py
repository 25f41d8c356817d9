#!/usr/bin/python3
"""Generate the tiny "tone" Piper fixtures for engine/onnx tests.

Run from anywhere with Debian's python3-onnx:

    /usr/bin/python3 engine/onnx/testdata/gen/tone.py [OUTDIR]

OUTDIR defaults to engine/onnx/testdata/voices. The models take Piper's exact
inputs and output:

    input          int64   [1, N]   phoneme ids
    input_lengths  int64   [1]      N
    scales         float32 [3]      noise_scale, length_scale, noise_w
    sid            int64   [1]      speaker id (multi-speaker model only)
    output         float32 [1, 1, 1, T]

and compute checkable audio, with no weights at all:

    D     = max(1, floor(length_scale * 1024 + 0.5))   samples per id
    T     = input_lengths[0] * D
    id_t  = input[0, t // D]                           id sounding at sample t
    bin_t = id_t + sid                                 (sid = 0 when absent)
    out_t = A_t * sin(2 * pi * ((bin_t * t) mod 1024) / 1024)
    A_t   = 0 when id_t == 0 (the pad), else noise_scale / 2

so each id becomes D samples of a sine with exactly id+sid cycles per 1024
samples, pads are silent, and a test can read the id sequence, the speaker,
the length scale and the noise scale back from the audio.

Each voice's .onnx.json is a real Piper config (testdata/configs) with only
the dataset name changed.

    /usr/bin/python3 engine/onnx/testdata/gen/tone.py --align [OUTDIR]

writes instead the voice en_US-tonealign-low into OUTDIR (default
engine/onnx/testdata/align): a Piper model patched for alignments as
piper1-gpl's patch_voice_with_alignment leaves one, with the same inputs,
the audio output and a second output w_ceil float32 [1, 1, N], the frames
of each id (the output of the graph's Ceil node):

    w_i   = ceil((1 + input[0, i] mod 4) * length_scale)   frames of id i
    T     = sum(w) * HOP, HOP = 200 samples per frame (the config's
            hop_length, not piper1-gpl's default 256)
    id_t  = the id whose frames hold sample t: input[0, i] for
            sum(w[:i]) <= t // HOP < sum(w[:i+1])
    out_t = noise_scale / 2 * sin(2 * pi * ((id_t * t) mod 1024) / 1024),
            0 on the pad id 0
"""

import json
import os
import sys

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs")
PERIOD = 1024


def const(name, value, dtype):
    return helper.make_node(
        "Constant", [], [name],
        value=helper.make_tensor(name + "_v", dtype, [], [value]))


def finish(nodes, name, inputs, outputs):
    """Return the checked model of a graph."""
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(
        graph, producer_name="voxkit-tone", opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def tone_decoder(n, bin_name):
    """Append the nodes from bin_t (named bin_name), id_t, t and noise_scale
    to the audio output."""
    # phase = ((bin * t) mod 1024) / 1024 * 2pi
    n.append(helper.make_node("Mul", [bin_name, "t"], ["bt"]))
    n.append(helper.make_node("Mod", ["bt", "c_period"], ["m"]))
    n.append(helper.make_node("Cast", ["m"], ["mf"], to=TensorProto.FLOAT))
    n.append(helper.make_node("Div", ["mf", "c_period_f"], ["frac"]))
    n.append(helper.make_node("Mul", ["frac", "c_twopi"], ["phase"]))
    n.append(helper.make_node("Sin", ["phase"], ["wave"]))
    # amplitude: noise_scale / 2, silent on the pad id 0
    n.append(helper.make_node("Mul", ["noise_scale", "c_half"], ["amp"]))
    n.append(helper.make_node("Equal", ["id_t", "c_zero"], ["is_pad"]))
    n.append(helper.make_node("Where", ["is_pad", "c_zero_f", "amp"], ["a_t"]))
    n.append(helper.make_node("Mul", ["wave", "a_t"], ["y"]))
    n.append(helper.make_node("Reshape", ["y", "c_out_shape"], ["output"]))


def tone_model(multi):
    n = []
    n.append(const("c_period_f", float(PERIOD), TensorProto.FLOAT))
    n.append(const("c_half", 0.5, TensorProto.FLOAT))
    n.append(const("c_one", 1, TensorProto.INT64))
    n.append(const("c_zero", 0, TensorProto.INT64))
    n.append(const("c_period", PERIOD, TensorProto.INT64))
    n.append(const("c_twopi", 6.283185307179586, TensorProto.FLOAT))
    n.append(const("c_zero_f", 0.0, TensorProto.FLOAT))
    n.append(helper.make_node(
        "Constant", [], ["c_flat"],
        value=helper.make_tensor("c_flat_v", TensorProto.INT64, [1], [-1])))
    n.append(helper.make_node(
        "Constant", [], ["c_out_shape"],
        value=helper.make_tensor("c_out_shape_v", TensorProto.INT64, [4], [1, 1, 1, -1])))
    # D = max(1, floor(length_scale * 1024 + 0.5))
    n.append(helper.make_node("Gather", ["scales", "c_zero"], ["noise_scale"], axis=0))
    n.append(helper.make_node("Gather", ["scales", "c_one"], ["length_scale"], axis=0))
    n.append(helper.make_node("Mul", ["length_scale", "c_period_f"], ["d0"]))
    n.append(helper.make_node("Add", ["d0", "c_half"], ["d1"]))
    n.append(helper.make_node("Floor", ["d1"], ["d2"]))
    n.append(helper.make_node("Cast", ["d2"], ["d3"], to=TensorProto.INT64))
    n.append(helper.make_node("Max", ["d3", "c_one"], ["D"]))
    # T = input_lengths[0] * D ; t = 0..T-1
    n.append(helper.make_node("Gather", ["input_lengths", "c_zero"], ["L"], axis=0))
    n.append(helper.make_node("Mul", ["L", "D"], ["T"]))
    n.append(helper.make_node("Range", ["c_zero", "T", "c_one"], ["t"]))
    # id_t = input.flatten()[t // D]
    n.append(helper.make_node("Div", ["t", "D"], ["k"]))
    n.append(helper.make_node("Reshape", ["input", "c_flat"], ["ids"]))
    n.append(helper.make_node("Gather", ["ids", "k"], ["id_t"], axis=0))
    if multi:
        n.append(helper.make_node("Gather", ["sid", "c_zero"], ["s"], axis=0))
        n.append(helper.make_node("Add", ["id_t", "s"], ["bin"]))
    else:
        n.append(helper.make_node("Identity", ["id_t"], ["bin"]))
    tone_decoder(n, "bin")

    inputs = [
        helper.make_tensor_value_info("input", TensorProto.INT64, [1, "phonemes"]),
        helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1]),
        helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3]),
    ]
    if multi:
        inputs.append(helper.make_tensor_value_info("sid", TensorProto.INT64, [1]))
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1, 1, "time"])]
    return finish(n, "tone", inputs, outputs)


HOP = 200


def align_model():
    F, I = TensorProto.FLOAT, TensorProto.INT64
    n = [
        const("c_zero", 0, I), const("c_one", 1, I), const("c_four", 4, I),
        const("c_hop", HOP, I), const("c_period", PERIOD, I),
        const("c_period_f", float(PERIOD), F), const("c_twopi", 6.283185307179586, F),
        const("c_half", 0.5, F), const("c_zero_f", 0.0, F),
    ]
    for name, dims, vals in [("c_flat", [1], [-1]), ("c_dp_shape", [3], [1, 1, -1]),
                             ("c_axis1", [1], [1]), ("c_axis0", [1], [0]),
                             ("c_out_shape", [4], [1, 1, 1, -1])]:
        n.append(helper.make_node("Constant", [], [name],
                                  value=helper.make_tensor(name + "_v", I, dims, vals)))
    n.append(helper.make_node("Gather", ["scales", "c_zero"], ["noise_scale"], axis=0))
    n.append(helper.make_node("Gather", ["scales", "c_one"], ["length_scale"], axis=0))
    # the "duration predictor": w = ceil((1 + id mod 4) * length_scale), [1, 1, N]
    n.append(helper.make_node("Reshape", ["input", "c_flat"], ["ids"]))
    n.append(helper.make_node("Mod", ["ids", "c_four"], ["id_mod"]))
    n.append(helper.make_node("Add", ["id_mod", "c_one"], ["w0"]))
    n.append(helper.make_node("Cast", ["w0"], ["w1"], to=F))
    n.append(helper.make_node("Mul", ["w1", "length_scale"], ["w2"]))
    n.append(helper.make_node("Reshape", ["w2", "c_dp_shape"], ["w3"]))
    n.append(helper.make_node("Ceil", ["w3"], ["w_ceil"]))
    # frames -> ids
    n.append(helper.make_node("Reshape", ["w_ceil", "c_flat"], ["w_flat"]))
    n.append(helper.make_node("Cast", ["w_flat"], ["w"], to=I))
    n.append(helper.make_node("CumSum", ["w", "c_zero"], ["ends"]))
    n.append(helper.make_node("ReduceSum", ["w"], ["frames"], keepdims=0))
    n.append(helper.make_node("Mul", ["frames", "c_hop"], ["T"]))
    n.append(helper.make_node("Range", ["c_zero", "T", "c_one"], ["t"]))
    n.append(helper.make_node("Div", ["t", "c_hop"], ["f"]))
    n.append(helper.make_node("Unsqueeze", ["f", "c_axis1"], ["f_col"]))
    n.append(helper.make_node("Unsqueeze", ["ends", "c_axis0"], ["ends_row"]))
    n.append(helper.make_node("GreaterOrEqual", ["f_col", "ends_row"], ["past"]))
    n.append(helper.make_node("Cast", ["past"], ["past_i"], to=I))
    n.append(helper.make_node("ReduceSum", ["past_i", "c_axis1"], ["k"], keepdims=0))
    n.append(helper.make_node("Gather", ["ids", "k"], ["id_t"], axis=0))
    # the "decoder": a tone per id, silent on the pad
    tone_decoder(n, "id_t")
    inputs = [
        helper.make_tensor_value_info("input", I, [1, "phonemes"]),
        helper.make_tensor_value_info("input_lengths", I, [1]),
        helper.make_tensor_value_info("scales", F, [3]),
    ]
    outputs = [
        helper.make_tensor_value_info("output", F, [1, 1, 1, "time"]),
        helper.make_tensor_value_info("w_ceil", F, [1, 1, "phonemes"]),
    ]
    return finish(n, "tonealign", inputs, outputs)


def write_voice(outdir, name, config_file, dataset, multi, model=None, hop=None):
    with open(os.path.join(CONFIGS, config_file), encoding="utf-8") as f:
        config = json.load(f)
    config["dataset"] = dataset
    if hop is not None:
        config["hop_length"] = hop
    onnx.save(model or tone_model(multi), os.path.join(outdir, name + ".onnx"))
    with open(os.path.join(outdir, name + ".onnx.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--align"]:
        outdir = args[1] if len(args) > 1 else os.path.join(HERE, "..", "align")
        os.makedirs(outdir, exist_ok=True)
        write_voice(outdir, "en_US-tonealign-low", "en_US-lessac-low.onnx.json", "tonealign",
                    False, model=align_model(), hop=HOP)
        return
    outdir = args[0] if args else os.path.join(HERE, "..", "voices")
    os.makedirs(outdir, exist_ok=True)
    write_voice(outdir, "en_US-tone-low", "en_US-lessac-low.onnx.json", "tone", False)
    write_voice(outdir, "en_US-tone-medium", "en_US-lessac-medium.onnx.json", "tone", False)
    write_voice(outdir, "en_GB-tonevctk-medium", "en_GB-vctk-medium.onnx.json", "tonevctk", True)


if __name__ == "__main__":
    main()

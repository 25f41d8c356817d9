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
    # phase = ((bin * t) mod 1024) / 1024 * 2pi
    n.append(helper.make_node("Mul", ["bin", "t"], ["bt"]))
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

    inputs = [
        helper.make_tensor_value_info("input", TensorProto.INT64, [1, "phonemes"]),
        helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1]),
        helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3]),
    ]
    if multi:
        inputs.append(helper.make_tensor_value_info("sid", TensorProto.INT64, [1]))
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1, 1, "time"])]
    graph = helper.make_graph(n, "tone", inputs, outputs)
    model = helper.make_model(
        graph, producer_name="voxkit-tone", opset_imports=[helper.make_opsetid("", 15)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def write_voice(outdir, name, config_file, dataset, multi):
    with open(os.path.join(CONFIGS, config_file), encoding="utf-8") as f:
        config = json.load(f)
    config["dataset"] = dataset
    onnx.save(tone_model(multi), os.path.join(outdir, name + ".onnx"))
    with open(os.path.join(outdir, name + ".onnx.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "voices")
    os.makedirs(outdir, exist_ok=True)
    write_voice(outdir, "en_US-tone-low", "en_US-lessac-low.onnx.json", "tone", False)
    write_voice(outdir, "en_US-tone-medium", "en_US-lessac-medium.onnx.json", "tone", False)
    write_voice(outdir, "en_GB-tonevctk-medium", "en_GB-vctk-medium.onnx.json", "tonevctk", True)


if __name__ == "__main__":
    main()

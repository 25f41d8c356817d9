#!/usr/bin/python3
"""An independent Piper front end and model runner, to check engine/onnx.

Written from the Piper voice format facts only (no Piper code):

  - phonemes come from libespeak-ng's espeak_TextToPhonemes in IPA mode
    (called here through ctypes), clause by clause;
  - clause punctuation is kept: "," ";" ":" are followed by a space, "."
    "?" "!" end the sentence;
  - each sentence is its own id sequence: ^ _ p1 _ p2 _ ... pN _ $, the
    phonemes being the codepoints of the NFD form, mapped through
    phoneme_map, then phoneme_id_map; unknown ones are skipped;
  - the model takes input [1,N] int64, input_lengths [1], scales
    (noise_scale, length_scale / speed, noise_w) float32, sid when
    num_speakers > 1.

Clauses are espeak's own (each espeak_TextToPhonemes call reads one); the
mark that ended a clause is read from the text it consumed, since
espeak-ng 1.51 has no espeak_TextToPhonemesWithTerminator. Unlike the Go
side, which first splits text into sentences with its own rules, sentences
here end wherever espeak ended a clause on "." "?" or "!", as in Piper.

The model is evaluated by a small numpy interpreter of the ONNX graph
(python3-onnx 1.12 has no onnx.reference), supporting the operators of the
tone fixtures.

Usage: piper_peer.py REQUEST.json  — prints a JSON result on stdout. The
request is {"model": path, "config": path, "speaker": name or "",
"speed": float, "texts": [...], "out": dir}; each sentence's audio is
written to out/T_S.f32 (float32 little endian).
"""

import ctypes
import json
import os
import re
import sys
import unicodedata

import numpy as np
import onnx
from onnx import numpy_helper

AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_DONT_EXIT = 0x8000
CHARS_UTF8 = 1
PHONEMES_IPA = 0x02

_espeak = None


def espeak():
    global _espeak
    if _espeak is None:
        lib = ctypes.CDLL("libespeak-ng.so.1")
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_TextToPhonemes.restype = ctypes.c_char_p
        lib.espeak_TextToPhonemes.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
        if lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, INITIALIZE_DONT_EXIT) <= 0:
            raise SystemExit("espeak_Initialize failed")
        _espeak = lib
    return _espeak


CLAUSE_MARKS = ".,;:!?"
SENTENCE_MARKS = ".!?"
CLOSERS = " \t\r\n\"')]}\u201d\u2019\u00bb"


def terminator(src):
    """Piper's view of the punctuation that ended a clause: (mark, ends
    sentence). A clause ending in an ellipsis (... or \u2026) is an espeak
    semicolon-like clause with extra flags, which Piper does not map to
    any mark."""
    src = src.rstrip(CLOSERS)
    if src.endswith("...") or src.endswith("\u2026"):
        return "", False
    if src and src[-1] in CLAUSE_MARKS:
        return src[-1], src[-1] in SENTENCE_MARKS
    return "", False


def sentences_phonemes(voice, text):
    """Piper's sentences: clause phonemes from espeak, its clause
    punctuation kept ("," ":" ";" followed by a space), a new sentence
    after "." "?" "!"."""
    lib = espeak()
    if lib.espeak_SetVoiceByName(voice.encode()) != 0:
        raise SystemExit("unknown espeak voice " + voice)
    raw = text.encode("utf-8")
    buf = ctypes.create_string_buffer(raw)
    base = ctypes.addressof(buf)
    ptr = ctypes.c_void_p(base)
    out, cur, start = [], "", 0
    while ptr.value:
        ph = lib.espeak_TextToPhonemes(ctypes.byref(ptr), CHARS_UTF8, PHONEMES_IPA)
        ph = LANGUAGE_MARK.sub("", (ph or b"").decode("utf-8")).strip()
        if ptr.value:
            # espeak reads one character into the next clause
            end = ptr.value - base - 1
            while end > start and (raw[end] & 0xC0) == 0x80:
                end -= 1
        else:
            end = len(raw)
        src = raw[start:end].decode("utf-8", "replace")
        start = end
        if not ph:
            continue
        mark, ends = terminator(src)
        cur += ph + mark
        if ends:
            out.append(cur.strip())
            cur = ""
        else:
            cur += " "
    if cur.strip():
        out.append(cur.strip())
    return out


LANGUAGE_MARK = re.compile(r"\([a-z]{2,3}(-[a-z0-9]+)?\)")


def phoneme_ids(config, phonemes):
    id_map = config["phoneme_id_map"]
    pmap = config.get("phoneme_map") or {}
    pad = id_map["_"]
    ids = list(id_map["^"]) + list(pad)
    for ch in unicodedata.normalize("NFD", phonemes):
        for p in pmap.get(ch, [ch]):
            if p in id_map:
                ids += id_map[p] + pad
    return ids + list(id_map["$"])


class Graph:
    """A numpy evaluator of the operators the tone fixtures use."""

    def __init__(self, path):
        self.model = onnx.load(path)

    def run(self, feeds):
        env = dict(feeds)
        for node in self.model.graph.node:
            a = [env[i] for i in node.input]
            attrs = {at.name: onnx.helper.get_attribute_value(at) for at in node.attribute}
            op = node.op_type
            if op == "Constant":
                r = numpy_helper.to_array(attrs["value"])
            elif op == "Gather":
                r = np.take(a[0], a[1], axis=attrs.get("axis", 0))
            elif op == "Mul":
                r = a[0] * a[1]
            elif op == "Add":
                r = a[0] + a[1]
            elif op == "Div":
                if np.issubdtype(a[0].dtype, np.integer):  # ONNX integer Div truncates
                    r = (np.abs(a[0]) // np.abs(a[1]) * np.sign(a[0]) * np.sign(a[1])).astype(a[0].dtype)
                else:
                    r = a[0] / a[1]
            elif op == "Floor":
                r = np.floor(a[0])
            elif op == "Cast":
                r = a[0].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[attrs["to"]])
            elif op == "Max":
                r = np.maximum(a[0], a[1])
            elif op == "Range":
                r = np.arange(a[0], a[1], a[2], dtype=a[0].dtype)
            elif op == "Reshape":
                r = a[0].reshape(a[1])
            elif op == "Mod":
                r = np.mod(a[0], a[1])
            elif op == "Sin":
                r = np.sin(a[0])
            elif op == "Equal":
                r = a[0] == a[1]
            elif op == "Where":
                r = np.where(a[0], a[1], a[2])
            elif op == "Identity":
                r = a[0]
            else:
                raise SystemExit("unsupported operator " + op)
            if isinstance(r, np.ndarray) and r.dtype == np.float64 and op != "Cast":
                r = r.astype(np.float32)
            env[node.output[0]] = np.asarray(r)
        return env[self.model.graph.output[0].name]


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        req = json.load(f)
    with open(req["config"], encoding="utf-8") as f:
        config = json.load(f)
    graph = Graph(req["model"])
    inf = config["inference"]
    voice = config["espeak"]["voice"]
    multi = config.get("num_speakers", 1) > 1
    sid = config.get("speaker_id_map", {}).get(req.get("speaker") or "", 0)
    scales = np.array([inf["noise_scale"], inf["length_scale"] / req.get("speed", 1.0), inf["noise_w"]], dtype=np.float32)
    result = []
    for ti, text in enumerate(req["texts"]):
        out = []
        for ph in sentences_phonemes(voice, text):
            ids = phoneme_ids(config, ph)
            if len(ids) <= 3:
                continue
            feeds = {
                "input": np.array([ids], dtype=np.int64),
                "input_lengths": np.array([len(ids)], dtype=np.int64),
                "scales": scales,
            }
            if multi:
                feeds["sid"] = np.array([sid], dtype=np.int64)
            audio = graph.run(feeds).reshape(-1).astype("<f4")
            path = os.path.join(req["out"], "%d_%d.f32" % (ti, len(out)))
            audio.tofile(path)
            out.append({"phonemes": ph, "ids": ids, "audio": path})
        result.append(out)
    json.dump(result, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Generate a benchmark voice with the architecture and cost of a Piper
"medium" VITS voice (random weights; it babbles, it does not speak).

    /usr/bin/python3 engine/onnx/testdata/gen/medium.py [--sherpa] [--align] OUTDIR

writes OUTDIR/en_US-bench-medium.onnx (about 65 MB, never committed) and
OUTDIR/en_US-bench-medium.onnx.json (the lessac-medium config with
length_scale 1). With --align it writes en_US-benchalign-medium instead: the
same voice patched for alignments as piper1-gpl's patch_voice_with_alignment
leaves one, the output of the length regulator's Ceil node (frames per id,
float32 [1,1,N], hop 256) added as a second output, w_ceil. With --sherpa
the same weights also carry the metadata sherpa-onnx's VITS runtime reads,
and OUTDIR/tokens.txt is written for it (tts's paragraph benchmark). Needs Debian's python3-torch and python3-onnx; takes a
few seconds. The weights come from a fixed seed, so the file is the same
on every run.

The network is written here from the VITS paper's description, sized like
Piper's medium voices (hidden 192, 22.05 kHz, hop 256):

  text encoder      symbol embedding, 6 transformer layers (2 heads,
                    feed-forward 768 with kernel 3), projection to the prior's
                    mean and log-variance
  duration predictor 2 convolutions (256 channels, kernel 3) to a log
                    duration, plus noise_w-scaled noise like Piper's
                    stochastic predictor; biased to about 40 ms per id, i.e.
                    about 80 ms per phoneme with its pad
  length regulator  ceil(exp(logw) * length_scale) frames per id, expanded
                    with a monotonic path matrix
  flow              4 affine coupling layers (mean only) with 4-layer WaveNet
                    blocks (kernel 5), run in reverse, with channel flips
  decoder           HiFi-GAN generator: 256 initial channels, upsampling
                    8 x 8 x 4 (kernels 16, 16, 8), three "type 2" residual
                    blocks per stage (kernels 3, 5, 7; dilations (1,2),
                    (2,6), (3,12)), tanh output

Inputs and output are Piper's: input int64[1,N], input_lengths int64[1],
scales float32[3] (noise_scale, length_scale, noise_w); output
float32[1,1,1,T].
"""

import json
import math
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "en_US-bench-medium"
HIDDEN = 192
SYMBOLS = 256
SAMPLE_RATE = 22050
HOP = 256
FRAMES_PER_ID = 0.040 * SAMPLE_RATE / HOP  # 40 ms per id, 80 ms per phoneme


class EncoderLayer(nn.Module):
    def __init__(self, ch, heads, filt, kernel):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Conv1d(ch, 3 * ch, 1)
        self.out = nn.Conv1d(ch, ch, 1)
        self.norm1 = nn.LayerNorm(ch)
        self.ff1 = nn.Conv1d(ch, filt, kernel, padding=kernel // 2)
        self.ff2 = nn.Conv1d(filt, ch, kernel, padding=kernel // 2)
        self.norm2 = nn.LayerNorm(ch)

    def forward(self, x):  # x: [1, C, N]
        c = x.shape[1]
        q, k, v = self.qkv(x).chunk(3, dim=1)
        d = c // self.heads
        q = q.reshape(self.heads, d, -1).transpose(1, 2)  # [H, N, d]
        k = k.reshape(self.heads, d, -1)  # [H, d, N]
        v = v.reshape(self.heads, d, -1).transpose(1, 2)
        att = torch.softmax(torch.bmm(q, k) / math.sqrt(d), dim=-1)
        y = torch.bmm(att, v).transpose(1, 2).reshape(1, c, -1)
        x = self.norm1((x + self.out(y)).transpose(1, 2)).transpose(1, 2)
        y = self.ff2(torch.relu(self.ff1(x)))
        return self.norm2((x + y).transpose(1, 2)).transpose(1, 2)


class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(SYMBOLS, HIDDEN)
        self.layers = nn.ModuleList([EncoderLayer(HIDDEN, 2, 768, 3) for _ in range(6)])
        self.proj = nn.Conv1d(HIDDEN, 2 * HIDDEN, 1)

    def forward(self, ids):
        x = (self.emb(ids) * math.sqrt(HIDDEN)).transpose(1, 2)  # [1, C, N]
        for layer in self.layers:
            x = layer(x)
        m, logs = self.proj(x).chunk(2, dim=1)
        return x, m, logs


class DurationPredictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(HIDDEN, 256, 3, padding=1)
        self.n1 = nn.LayerNorm(256)
        self.c2 = nn.Conv1d(256, 256, 3, padding=1)
        self.n2 = nn.LayerNorm(256)
        self.proj = nn.Conv1d(256, 1, 1)
        with torch.no_grad():
            self.proj.weight.mul_(0.02)
            self.proj.bias.fill_(math.log(FRAMES_PER_ID - 0.42))

    def forward(self, x, noise_w):
        x = self.n1(torch.relu(self.c1(x)).transpose(1, 2)).transpose(1, 2)
        x = self.n2(torch.relu(self.c2(x)).transpose(1, 2)).transpose(1, 2)
        logw = self.proj(x)
        return logw + 0.05 * noise_w * torch.randn_like(logw)


class WaveNet(nn.Module):
    def __init__(self, ch, kernel, layers):
        super().__init__()
        self.ins = nn.ModuleList([nn.Conv1d(ch, 2 * ch, kernel, padding=kernel // 2) for _ in range(layers)])
        self.res = nn.ModuleList([nn.Conv1d(ch, 2 * ch if i < layers - 1 else ch, 1) for i in range(layers)])
        self.ch = ch

    def forward(self, x):
        skip = torch.zeros_like(x)
        for i, (cin, cres) in enumerate(zip(self.ins, self.res)):
            a, b = cin(x).chunk(2, dim=1)
            y = cres(torch.tanh(a) * torch.sigmoid(b))
            if i < len(self.ins) - 1:
                x = x + y[:, : self.ch]
                skip = skip + y[:, self.ch:]
            else:
                skip = skip + y
        return skip


class Coupling(nn.Module):
    def __init__(self):
        super().__init__()
        half = HIDDEN // 2
        self.pre = nn.Conv1d(half, HIDDEN, 1)
        self.wn = WaveNet(HIDDEN, 5, 4)
        self.post = nn.Conv1d(HIDDEN, half, 1)
        with torch.no_grad():
            self.post.weight.mul_(0.1)
            self.post.bias.zero_()

    def reverse(self, x):
        x0, x1 = x.chunk(2, dim=1)
        m = self.post(self.wn(self.pre(x0)))
        return torch.cat([x0, x1 - m], dim=1)


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Coupling() for _ in range(4)])
        self.register_buffer("flip", torch.arange(HIDDEN - 1, -1, -1))

    def reverse(self, z):
        for layer in reversed(self.layers):
            z = torch.index_select(z, 1, self.flip)
            z = layer.reverse(z)
        return z


class ResBlock2(nn.Module):
    def __init__(self, ch, kernel, dilations):
        super().__init__()
        self.convs = nn.ModuleList([
            nn.Conv1d(ch, ch, kernel, dilation=d, padding=d * (kernel - 1) // 2) for d in dilations])

    def forward(self, x):
        for c in self.convs:
            x = x + c(F.leaky_relu(x, 0.1))
        return x


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        ch = 256
        self.pre = nn.Conv1d(HIDDEN, ch, 7, padding=3)
        self.ups = nn.ModuleList()
        self.blocks = nn.ModuleList()
        for rate, kernel in [(8, 16), (8, 16), (4, 8)]:
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, kernel, rate, padding=(kernel - rate) // 2))
            ch //= 2
            self.blocks.append(nn.ModuleList([
                ResBlock2(ch, k, d) for k, d in [(3, (1, 2)), (5, (2, 6)), (7, (3, 12))]]))
        self.post = nn.Conv1d(ch, 1, 7, padding=3, bias=False)

    def forward(self, x):
        x = self.pre(x)
        for up, blocks in zip(self.ups, self.blocks):
            x = up(F.leaky_relu(x, 0.1))
            y = blocks[0](x)
            for b in blocks[1:]:
                y = y + b(x)
            x = y / len(blocks)
        return torch.tanh(self.post(F.leaky_relu(x)))


class Voice(nn.Module):
    def __init__(self, align=False):
        super().__init__()
        self.align = align
        self.enc = TextEncoder()
        self.dp = DurationPredictor()
        self.flow = Flow()
        self.dec = Generator()

    def forward(self, input, input_lengths, scales):
        noise_scale, length_scale, noise_w = scales[0], scales[1], scales[2]
        x, m, logs = self.enc(input[:, : input_lengths[0]])
        logw = self.dp(x, noise_w)
        w_ceil = torch.ceil(torch.exp(logw) * length_scale)  # [1, 1, N] frames per id
        w = w_ceil[0, 0]
        ends = torch.cumsum(w, 0)
        starts = ends - w
        t = torch.arange(ends[-1].long()).to(w.dtype).unsqueeze(1) + 0.5  # [T, 1]
        path = ((t >= starts.unsqueeze(0)) & (t < ends.unsqueeze(0))).to(m.dtype)  # [T, N]
        m = torch.matmul(m[0], path.t()).unsqueeze(0)  # [1, C, T]
        logs = torch.matmul(logs[0], path.t()).unsqueeze(0)
        z = m + torch.randn_like(m) * torch.exp(logs) * noise_scale
        z = self.flow.reverse(z)
        audio = self.dec(z).unsqueeze(1)  # [1, 1, 1, T * HOP]
        if self.align:
            return audio, w_ceil
        return audio


def for_sherpa(path, config, outdir):
    """Makes the voice loadable by sherpa-onnx's VITS runtime as well: the
    metadata its Piper exports carry (the keys its offline-tts-vits-model
    reads) and OUTDIR/tokens.txt, one "symbol id" a line from the config's
    phoneme_id_map. The weights stay the same."""
    import onnx

    model = onnx.load(path)
    del model.metadata_props[:]
    meta = {
        "model_type": "vits", "comment": "piper", "language": "English",
        "voice": config["espeak"]["voice"], "version": 1, "has_espeak": 1,
        "n_speakers": config["num_speakers"], "sample_rate": config["audio"]["sample_rate"],
    }
    for key, value in meta.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, str(value)
    onnx.save(model, path)
    with open(os.path.join(outdir, "tokens.txt"), "w", encoding="utf-8") as f:
        for symbol, ids in config["phoneme_id_map"].items():
            if symbol != "\n":
                f.write(f"{symbol} {ids[0]}\n")


def main():
    args = sys.argv[1:]
    sherpa = args[:1] == ["--sherpa"]
    if sherpa:
        args = args[1:]
    align = args[:1] == ["--align"]
    if align:
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: medium.py [--sherpa] [--align] OUTDIR")
    outdir = args[0]
    name = "en_US-benchalign-medium" if align else NAME
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(1234)
    model = Voice(align).eval()
    params = sum(p.numel() for p in model.parameters())
    ids = torch.tensor([[1, 0, 20, 0, 59, 0, 24, 0, 120, 0, 27, 0, 100, 0, 4, 0, 2]], dtype=torch.long)
    lengths = torch.tensor([ids.shape[1]], dtype=torch.long)
    scales = torch.tensor([0.667, 1.0, 0.8], dtype=torch.float32)
    with torch.no_grad():
        audio = model(ids, lengths, scales)
        outputs, axes = ["output"], {"input": {1: "phonemes"}, "output": {3: "time"}}
        if align:
            audio = audio[0]
            outputs.append("w_ceil")
            axes["w_ceil"] = {2: "phonemes"}
        path = os.path.join(outdir, name + ".onnx")
        torch.onnx.export(
            model, (ids, lengths, scales), path, opset_version=15,
            input_names=["input", "input_lengths", "scales"], output_names=outputs,
            dynamic_axes=axes)
    with open(os.path.join(HERE, "..", "configs", "en_US-lessac-medium.onnx.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["dataset"] = "bench"
    config["inference"]["length_scale"] = 1.0
    with open(os.path.join(outdir, name + ".onnx.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")
    if sherpa:
        for_sherpa(path, config, outdir)
    print(f"{path}: {params / 1e6:.2f} M parameters, {audio.shape[-1] / SAMPLE_RATE * 1000 / ids.shape[1]:.1f} ms per id",
          file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Generate a benchmark model with the architecture and cost of Kokoro-82M
(random weights; it babbles, it does not speak).

    /usr/bin/python3 engine/onnx/testdata/gen/kokoro_bench.py [--sherpa] OUTDIR

writes OUTDIR/kokoro-bench.onnx (about 320 MB, never committed) with
kokoro-onnx v1.0's inputs and output (tokens int64 [1,T], style float32
[1,256], speed float32 [1] -> audio float32 [N], 24 kHz) and
OUTDIR/kokoro-bench.voices/af_bench.bin, a random pack. With --sherpa the
same weights also carry the metadata sherpa-onnx's Kokoro runtime reads,
and OUTDIR/voices.bin (the packs back to back) and OUTDIR/tokens.txt are
written for it (tts's BenchmarkPeerKokoroParagraph). Needs Debian's
python3-torch and python3-onnx. Fixed seed: the same file on every run.

Sized from Kokoro's published architecture (StyleTTS 2 with an iSTFTNet
decoder), about 82 M parameters:

  text encoder (PL-BERT)  ALBERT: embedding 128 -> 768, one shared
                          transformer layer (12 heads, feed-forward 2048)
                          run 12 times, projection to 512
  text encoder (CNN)      3 convolutions (512, kernel 5) and a BiLSTM
  prosody predictor       4 BiLSTM layers over text + style[:,128:], a
                          duration projection (about 80 ms per token at
                          speed 1, divided by speed), F0 and energy
                          branches (BiLSTM and 512-channel convolutions)
  length regulator        frames per token expanded to an alignment matrix
                          (CumSum and comparisons, no repeat_interleave)
  decoder (iSTFTNet)      style-conditioned (AdaIN from style[:,:128])
                          1024-channel residual blocks at the frame rate,
                          x2 upsampling, generator upsampling x10 and x6 with
                          multi-kernel residual blocks (3, 7, 11), and an
                          inverse STFT (n_fft 20, hop 5): 600 samples per
                          frame
"""

import os
import re
import sys

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB = 178
STYLE = 128
FRAMES_PER_TOKEN = 2.0  # 2 frames of 600 samples: 50 ms; x ~1.6 with pads


class AlbertLayer(nn.Module):
    def __init__(self, d=768, heads=12, ff=2048):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.norm1 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)
        self.norm2 = nn.LayerNorm(d)

    def forward(self, x):  # [T, d]
        t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        h = d // self.heads
        q = q.reshape(t, self.heads, h).transpose(0, 1)
        k = k.reshape(t, self.heads, h).transpose(0, 1)
        v = v.reshape(t, self.heads, h).transpose(0, 1)
        att = torch.softmax(torch.bmm(q, k.transpose(1, 2)) / h ** 0.5, dim=-1)
        y = torch.bmm(att, v).transpose(0, 1).reshape(t, d)
        x = self.norm1(x + self.out(y))
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x))))


class AdaIN(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.fc = nn.Linear(STYLE, 2 * ch)
        self.norm = nn.InstanceNorm1d(ch, affine=False)

    def forward(self, x, s):  # x [1, C, L]
        g, b = self.fc(s).unsqueeze(-1).chunk(2, dim=1)
        return (1 + g) * self.norm(x) + b


class AdaBlock(nn.Module):
    def __init__(self, cin, cout, upsample=False):
        super().__init__()
        self.upsample = upsample
        self.n1 = AdaIN(cin)
        self.c1 = nn.Conv1d(cin, cout, 3, padding=1)
        self.n2 = AdaIN(cout)
        self.c2 = nn.Conv1d(cout, cout, 3, padding=1)
        self.skip = nn.Conv1d(cin, cout, 1, bias=False) if cin != cout else nn.Identity()

    def forward(self, x, s):
        if self.upsample:
            x = F.interpolate(x, scale_factor=2.0, mode="nearest")
        y = self.c1(F.leaky_relu(self.n1(x, s), 0.2))
        y = self.c2(F.leaky_relu(self.n2(y, s), 0.2))
        return (y + self.skip(x)) * 0.7071


class ResBlock(nn.Module):
    def __init__(self, ch, k):
        super().__init__()
        self.c1 = nn.ModuleList([nn.Conv1d(ch, ch, k, dilation=d, padding=d * (k - 1) // 2) for d in (1, 3, 5)])
        self.c2 = nn.ModuleList([nn.Conv1d(ch, ch, k, padding=(k - 1) // 2) for _ in range(3)])
        self.ada = AdaIN(ch)

    def forward(self, x, s):
        for a, b in zip(self.c1, self.c2):
            y = b(F.leaky_relu(a(F.leaky_relu(self.ada(x, s), 0.1)), 0.1))
            x = x + y
        return x


class Kokoro(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 128)
        self.emb_proj = nn.Linear(128, 768)
        self.albert = AlbertLayer()
        self.bert_out = nn.Linear(768, 512)
        self.cnn = nn.ModuleList([nn.Conv1d(512, 512, 5, padding=2) for _ in range(3)])
        self.text_lstm = nn.LSTM(512, 256, batch_first=True, bidirectional=True)
        self.dur_lstm = nn.LSTM(512 + STYLE, 256, num_layers=4, batch_first=True, bidirectional=True)
        self.dur_proj = nn.Linear(512, 1)
        self.shared = nn.LSTM(512 + STYLE, 256, batch_first=True, bidirectional=True)
        self.f0 = nn.ModuleList([AdaBlock(512, 512), AdaBlock(512, 256, upsample=True), AdaBlock(256, 256)])
        self.n = nn.ModuleList([AdaBlock(512, 512), AdaBlock(512, 256, upsample=True), AdaBlock(256, 256)])
        self.f0_proj = nn.Conv1d(256, 1, 1)
        self.n_proj = nn.Conv1d(256, 1, 1)
        self.f0_down = nn.Conv1d(1, 1, 3, stride=2, padding=1)
        self.n_down = nn.Conv1d(1, 1, 3, stride=2, padding=1)
        self.encode = AdaBlock(512 + 2, 1024)
        self.decode = nn.ModuleList([AdaBlock(1024 + 2 + 64, 1024) for _ in range(4)] +
                                    [AdaBlock(1024 + 2 + 64, 512, upsample=True)])
        self.asr_res = nn.Conv1d(512, 64, 1)
        self.up1 = nn.ConvTranspose1d(512, 256, 20, stride=10, padding=5)
        self.res1 = nn.ModuleList([ResBlock(256, k) for k in (3, 7, 11)])
        self.up2 = nn.ConvTranspose1d(256, 128, 12, stride=6, padding=3)
        self.res2 = nn.ModuleList([ResBlock(128, k) for k in (3, 7, 11)])
        self.post = nn.Conv1d(128, 22, 7, padding=3)
        self.istft = nn.ConvTranspose1d(22, 1, 20, stride=5, padding=0, bias=False)

    def forward(self, tokens, style, speed):
        s_dec, s_pro = style[:, :STYLE], style[:, STYLE:]
        x = self.emb_proj(self.emb(tokens[0]))  # [T, 768]
        for _ in range(12):  # ALBERT shares one layer's weights
            x = self.albert(x)
        bert = self.bert_out(x)  # [T, 512]
        t = bert.shape[0]
        # prosody: durations from text + style
        sp = s_pro.expand(t, STYLE)
        d_in = torch.cat([bert, sp], dim=-1).unsqueeze(0)
        d_hidden, _ = self.dur_lstm(d_in)
        logd = self.dur_proj(d_hidden)[0, :, 0]
        dur = torch.clamp(torch.round(FRAMES_PER_TOKEN * (1 + 0.5 * torch.tanh(logd)) / speed), min=1).long()
        ends = torch.cumsum(dur, dim=0)
        frames = torch.arange(ends[-1], device=tokens.device)
        starts = ends - dur
        aln = ((frames.unsqueeze(0) >= starts.unsqueeze(1)) & (frames.unsqueeze(0) < ends.unsqueeze(1))).float()  # [T, F]
        # text encoder
        h = bert.t().unsqueeze(0)
        for c in self.cnn:
            h = F.leaky_relu(c(h), 0.2)
        h, _ = self.text_lstm(h.transpose(1, 2))
        asr = h[0].t() @ aln  # [512, F]
        # F0 and energy
        p, _ = self.shared(d_in)
        p = (p[0].t() @ aln).unsqueeze(0)  # [1, 512, F]
        f0, n = p, p
        for blk in self.f0:
            f0 = blk(f0, s_pro)
        for blk in self.n:
            n = blk(n, s_pro)
        f0 = self.f0_down(self.f0_proj(f0))
        n = self.n_down(self.n_proj(n))
        # decoder
        asr = asr.unsqueeze(0)
        y = self.encode(torch.cat([asr, f0, n], dim=1), s_dec)
        res = self.asr_res(asr)
        for blk in self.decode:
            y = blk(torch.cat([y, f0, n, res], dim=1), s_dec)
        y = F.leaky_relu(self.up1(F.leaky_relu(y, 0.1)), 0.1)
        y = sum(r(y, s_dec) for r in self.res1) / 3
        y = self.up2(F.leaky_relu(y, 0.1))
        y = sum(r(y, s_dec) for r in self.res2) / 3
        spec = self.post(F.leaky_relu(y, 0.1))
        mag, phase = spec.chunk(2, dim=1)
        spec = torch.cat([torch.exp(torch.clamp(mag, max=2)) * torch.cos(phase), torch.sin(phase)], dim=1)
        audio = torch.tanh(self.istft(spec))[0, 0]
        return audio[: frames.shape[0] * 600]


def for_sherpa(path, pack, outdir):
    """Makes the model loadable by sherpa-onnx's Kokoro runtime as well:
    the metadata keys its offline-tts-kokoro-model reads (sample_rate,
    n_speakers, style_dim of the packs, version 1: English through
    espeak-ng and tokens.txt, with no lexicon; has_espeak, voice),
    OUTDIR/voices.bin (every pack's [510, 1, 256] float32 rows, back to
    back, in speaker_names' order) and OUTDIR/tokens.txt ("symbol id" a
    line: Kokoro v1.0's vocabulary, read from voxkit's table so the two
    runtimes map a phoneme to the same id). The weights stay the same."""
    import onnx

    model = onnx.load(path)
    del model.metadata_props[:]
    meta = {
        "model_type": "kokoro", "language": "English", "voice": "en-us", "version": 1, "has_espeak": 1,
        "sample_rate": 24000, "n_speakers": 1, "speaker_names": "af_bench",
        "style_dim": ",".join(str(d) for d in pack.shape),
    }
    for key, value in meta.items():
        prop = model.metadata_props.add()
        prop.key, prop.value = key, str(value)
    onnx.save(model, path + ".tmp")
    os.replace(path + ".tmp", path)
    pack.astype("<f4").tofile(os.path.join(outdir, "voices.bin"))
    with open(os.path.join(outdir, "tokens.txt"), "w", encoding="utf-8") as f:
        for symbol, id in vocabulary():
            f.write(f"{symbol} {id}\n")


def vocabulary():
    """Kokoro v1.0's symbols and ids, from the kokoroVocab table of
    engine/onnx/kokoro_text.go (one entry per rune: 'x': id)."""
    with open(os.path.join(HERE, "..", "..", "kokoro_text.go"), encoding="utf-8") as f:
        src = f.read()
    table = src[src.index("var kokoroVocab"):]
    table = table[: table.index("\n}\n")]
    out = []
    for lit, id in re.findall(r"'((?:[^'\\]|\\u[0-9a-fA-F]{4})+)': (\d+)", table):
        symbol = chr(int(lit[2:], 16)) if lit.startswith("\\u") else lit
        out.append((symbol, int(id)))
    if len(out) != 114:
        sys.exit(f"kokoro_bench.py: read {len(out)} symbols from kokoro_text.go, want 114")
    return out


def main():
    args = sys.argv[1:]
    sherpa = args[:1] == ["--sherpa"]
    if sherpa:
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: kokoro_bench.py [--sherpa] OUTDIR")
    outdir = args[0]
    os.makedirs(os.path.join(outdir, "kokoro-bench.voices"), exist_ok=True)
    torch.manual_seed(82)
    model = Kokoro().eval()
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(0.5)
    params = sum(p.numel() for p in model.parameters())
    tokens = torch.randint(1, VOCAB, (1, 40))
    style = torch.rand(1, 256) * 0.2
    speed = torch.ones(1)
    path = os.path.join(outdir, "kokoro-bench.onnx")
    with torch.no_grad():
        torch.onnx.export(model, (tokens, style, speed), path + ".tmp",
                          input_names=["tokens", "style", "speed"], output_names=["audio"],
                          dynamic_axes={"tokens": {1: "T"}, "audio": {0: "N"}}, opset_version=17)
    os.replace(path + ".tmp", path)
    rng = np.random.default_rng(82)
    pack = rng.random((510, 1, 256), dtype=np.float32) * 0.2
    pack.astype("<f4").tofile(os.path.join(outdir, "kokoro-bench.voices", "af_bench.bin"))
    if sherpa:
        for_sherpa(path, pack, outdir)
    print(f"{path}: {params / 1e6:.1f} M parameters")


if __name__ == "__main__":
    main()

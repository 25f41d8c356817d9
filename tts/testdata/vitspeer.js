// vitspeer.js runs sherpa-onnx-node's VITS (Piper) or Kokoro runtime on a
// generated model, the peer of tts's BenchmarkPeerVITSParagraph and
// BenchmarkPeerKokoroParagraph.
//
//   node vitspeer.js REQUEST.json
//
// REQUEST: {"kind": "vits" (the default) or "kokoro", "model": ONNX,
// "tokens": TXT, "dataDir": ESPEAK_NG_DATA, "voices": BIN (Kokoro's packs),
// "threads": N}. Each line of stdin, {"text": ...}, is answered by a line
// {"ms": wall clock of one generate() call, "cpu": the CPU time the
// process used in it (all threads), "samples": N, "rate": R}.
const fs = require('fs');
const sherpa = require('sherpa-onnx-node');

const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const kind = req.kind || 'vits';
const files = {model: req.model, tokens: req.tokens, dataDir: req.dataDir};
if (kind === 'kokoro') {
  files.voices = req.voices;
}
const tts = new sherpa.OfflineTts({
  model: {
    [kind]: files,
    numThreads: req.threads || 1,
    provider: 'cpu',
    debug: false,
  },
  maxNumSentences: 1,
});

(async () => {
  const lines = require('readline').createInterface({input: process.stdin});
  for await (const line of lines) {
    const {text} = JSON.parse(line);
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const audio = tts.generate({text, sid: 0, speed: 1});
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    const cpu = (c.user + c.system) / 1000;
    process.stdout.write(JSON.stringify({ms, cpu, samples: audio.samples.length, rate: audio.sampleRate}) + '\n');
  }
})();

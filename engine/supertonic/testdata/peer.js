// peer.js runs sherpa-onnx-node's Supertonic on a model directory in
// sherpa-onnx's release layout, the reference engine for
// engine/supertonic's parity test and benchmark.
//
//   node peer.js REQUEST.json
//
// REQUEST: {"model": DIR, "threads": N, "sid": N, "lang": "en", "texts":
// [...], "steps": N, "speed": S, "seed": N, "out": PREFIX, "serve": BOOL}.
// For each text it writes PREFIX.N.f32: raw little-endian float32 samples.
// With "serve" it times calls instead: each line of stdin, {"text": ...},
// is answered by {"ms": wall clock, "cpu": CPU time} of one generate().
const fs = require('fs');
const path = require('path');
const sherpa = require('sherpa-onnx-node');

const req = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const dir = req.model;
const pick = (name) => {
  const full = path.join(dir, name + '.onnx');
  return fs.existsSync(full) ? full : path.join(dir, name + '.int8.onnx');
};
const tts = new sherpa.OfflineTts({
  model: {
    supertonic: {
      durationPredictor: pick('duration_predictor'),
      textEncoder: pick('text_encoder'),
      vectorEstimator: pick('vector_estimator'),
      vocoder: pick('vocoder'),
      ttsJson: path.join(dir, 'tts.json'),
      unicodeIndexer: path.join(dir, 'unicode_indexer.bin'),
      voiceStyle: path.join(dir, 'voice.bin'),
    },
    numThreads: req.threads || 1,
    provider: 'cpu',
    debug: false,
  },
  maxNumSentences: 1,
});
const config = () => new sherpa.GenerationConfig({
  sid: req.sid || 0,
  speed: req.speed || 1,
  numSteps: req.steps || 5,
  extra: {lang: req.lang || 'en', seed: req.seed},
});

const now = () => ({ms: Number(process.hrtime.bigint()) / 1e6, cpu: process.cpuUsage()});
const since = (t0) => {
  const c = process.cpuUsage(t0.cpu);
  return {ms: now().ms - t0.ms, cpu: (c.user + c.system) / 1000};
};

(async () => {
  if (req.serve) {
    const lines = require('readline').createInterface({input: process.stdin});
    for await (const line of lines) {
      const {text} = JSON.parse(line);
      const t0 = now();
      tts.generate({text, generationConfig: config()});
      process.stdout.write(JSON.stringify(since(t0)) + '\n');
    }
    return;
  }
  for (const [i, text] of req.texts.entries()) {
    const audio = tts.generate({text, generationConfig: config()});
    if (audio.sampleRate !== 44100) throw new Error(`sample rate ${audio.sampleRate}`);
    const buf = Buffer.from(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength);
    fs.writeFileSync(`${req.out}.${i}.f32`, buf);
  }
})();

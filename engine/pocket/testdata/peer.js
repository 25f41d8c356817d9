// peer.js runs sherpa-onnx-node's PocketTTS on a model directory, the
// reference engine for engine/pocket's parity test and benchmarks.
//
//   node peer.js REQUEST.json
//
// REQUEST: {"model": DIR, "threads": N, "reference": WAV, "texts": [...],
// "steps": N, "temperature": T, "seed": S, "repeat": N, "out": PREFIX}.
// For each text it writes PREFIX.N.f32 (raw little-endian float32 samples,
// silenceScale 1: no silence post-processing) and prints one JSON line of
// timings in milliseconds: {"clone": ..., "texts": [{"total": ..., "first":
// ..., "n": samples}]}. "clone" is a first generate call's extra time over
// a second one with the same reference: the encoder run, which sherpa
// caches per reference.
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
    pocket: {
      lmFlow: pick('lm_flow'),
      lmMain: pick('lm_main'),
      encoder: pick('encoder'),
      decoder: pick('decoder'),
      textConditioner: pick('text_conditioner'),
      vocabJson: path.join(dir, 'vocab.json'),
      tokenScoresJson: path.join(dir, 'token_scores.json'),
    },
    numThreads: req.threads || 1,
    provider: 'cpu',
    debug: false,
  },
  maxNumSentences: 1,
});
const wave = sherpa.readWave(req.reference);
const config = (samples = wave.samples) => new sherpa.GenerationConfig({
  referenceAudio: samples,
  referenceSampleRate: wave.sampleRate,
  numSteps: req.steps,
  silenceScale: 1,
  extra: {temperature: req.temperature, seed: req.seed},
});

const now = () => Number(process.hrtime.bigint()) / 1e6;
const report = {texts: []};
// Warm up with another recording (the reference at 0.9 times its level),
// then time a first call with the reference, which runs the encoder, and a
// second, which finds its result in sherpa's cache.
tts.generate({text: req.texts[0], generationConfig: config(wave.samples.map((x) => x * 0.9))});
let t0 = now();
tts.generate({text: req.texts[0], generationConfig: config()});
const firstCall = now() - t0;
t0 = now();
tts.generate({text: req.texts[0], generationConfig: config()});
report.clone = firstCall - (now() - t0);

// Each text: the best of "repeat" runs of generate(); then one run of
// generateAsync() for the time to its first progress callback (a chunk of
// audio, which sherpa decodes once the sentence's frames are all made).
(async () => {
  for (const [i, text] of req.texts.entries()) {
    let best = null;
    for (let r = 0; r < (req.repeat || 1); r++) {
      const start = now();
      const audio = tts.generate({text, generationConfig: config()});
      const total = now() - start;
      if (best === null || total < best.total) best = {total, samples: audio.samples};
    }
    let first = null;
    const start = now();
    await tts.generateAsync({
      text,
      generationConfig: config(),
      onProgress: () => {
        if (first === null) first = now() - start;
        return 1;
      },
    });
    const buf = Buffer.from(best.samples.buffer, best.samples.byteOffset, best.samples.byteLength);
    fs.writeFileSync(`${req.out}.${i}.f32`, buf);
    report.texts.push({total: best.total, first, n: best.samples.length});
  }
  console.log(JSON.stringify(report));
})();

// peer.js runs sherpa-onnx-node's PocketTTS on a model directory, the
// reference engine for engine/pocket's parity test and benchmarks.
//
//   node peer.js REQUEST.json
//
// REQUEST: {"model": DIR, "threads": N, "reference": WAV, "texts": [...],
// "steps": N, "temperature": T, "seed": S, "out": PREFIX, "serve": BOOL}.
// For each text it writes PREFIX.N.f32: raw little-endian float32 samples,
// with silenceScale 1 (no silence post-processing). With "serve" it times
// calls instead, as stdin asks (see the end of the file).
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
const config = (samples = wave.samples, extra = {}) => new sherpa.GenerationConfig({
  referenceAudio: samples,
  referenceSampleRate: wave.sampleRate,
  numSteps: req.steps,
  silenceScale: 1,
  extra: {temperature: req.temperature, seed: req.seed, ...extra},
});

// A time: the wall clock's and the CPU time the process used (all its
// threads), in milliseconds.
const now = () => ({ms: Number(process.hrtime.bigint()) / 1e6, cpu: process.cpuUsage()});
const since = (t0) => {
  const c = process.cpuUsage(t0.cpu);
  return {ms: now().ms - t0.ms, cpu: (c.user + c.system) / 1000};
};
const minus = (a, b) => ({ms: a.ms - b.ms, cpu: a.cpu - b.cpu});

// timeTotal times one generate() call on text.
function timeTotal(text) {
  const t0 = now();
  tts.generate({text, generationConfig: config()});
  return since(t0);
}

// timeFirst times generateAsync() to its first progress callback: a chunk
// of audio, which sherpa decodes once the sentence's frames are all made.
async function timeFirst(text) {
  let first = null;
  const t0 = now();
  await tts.generateAsync({
    text,
    generationConfig: config(),
    onProgress: () => {
      if (first === null) first = since(t0);
      return 1;
    },
  });
  return first;
}

// timeClone times the encoder on a new recording (the reference at
// another level): a first generate() call, which runs the encoder, less a
// second, which finds its result in sherpa's cache; both make one frame
// only (max_frames 1), so little else is timed.
let level = 1;
function timeClone(text) {
  level *= 0.999;
  const samples = wave.samples.map((x) => x * level);
  const once = () => {
    const t0 = now();
    tts.generate({text, generationConfig: config(samples, {max_frames: 1})});
    return since(t0);
  };
  const miss = once();
  return minus(miss, once());
}

(async () => {
  if (req.serve) {
    // Serve: each line of stdin, {"op": "total"|"first"|"clone", "text":
    // ...}, is answered by a line with its times, {"ms": wall clock,
    // "cpu": CPU time}, so a benchmark can interleave its runs with
    // sherpa's.
    const lines = require('readline').createInterface({input: process.stdin});
    for await (const line of lines) {
      const {op, text} = JSON.parse(line);
      const t = op === 'first' ? await timeFirst(text) : op === 'clone' ? timeClone(text) : timeTotal(text);
      process.stdout.write(JSON.stringify(t) + '\n');
    }
    return;
  }
  for (const [i, text] of req.texts.entries()) {
    const audio = tts.generate({text, generationConfig: config()});
    const buf = Buffer.from(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength);
    fs.writeFileSync(`${req.out}.${i}.f32`, buf);
  }
})();

// elevenlabs.cjs drives a voxkit server's ElevenLabs-compatible API with
// the official ElevenLabs Node SDK and prints one JSON object of results;
// the Go test judges them (audio is written to files).
//
//   node elevenlabs.cjs BASE_URL API_KEY OUT_DIR TEXT
//
// The SDK is found through NODE_PATH.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { ElevenLabsClient, ElevenLabsError } = require('@elevenlabs/elevenlabs-js');

const [baseUrl, apiKey, outDir, text] = process.argv.slice(2);
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0 });
const results = { sdkVersion: require('@elevenlabs/elevenlabs-js/package.json').version };

async function attempt(name, fn) {
  try {
    results[name] = { ok: true, ...(await fn()) };
  } catch (e) {
    results[name] = { ok: false, error: { name: e.constructor.name, message: String(e.message),
      status: e instanceof ElevenLabsError ? e.statusCode : undefined, body: e.body } };
  }
}

// save reads a web ReadableStream of audio to a file and counts its chunks.
async function save(stream, name) {
  const parts = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk));
  const file = path.join(outDir, name);
  fs.writeFileSync(file, Buffer.concat(parts));
  return { file, bytes: Buffer.concat(parts).length, chunks: parts.length };
}

(async () => {
  await attempt('voices', async () => {
    const r = await client.voices.getAll();
    return { voices: r.voices.map((v) => ({ voiceId: v.voiceId, category: v.category })) };
  });
  await attempt('convert_mp3', async () =>
    save(await client.textToSpeech.convert('en-us', { text, modelId: 'eleven_multilingual_v2', outputFormat: 'mp3_44100_128' }), 'convert.mp3'));
  await attempt('convert_pcm', async () =>
    save(await client.textToSpeech.convert('en-us', { text, outputFormat: 'pcm_24000', voiceSettings: { stability: 0.5, speed: 1.0 } }), 'convert.pcm'));
  await attempt('stream', async () =>
    save(await client.textToSpeech.stream('en-us', { text, outputFormat: 'pcm_24000' }), 'stream.pcm'));
  await attempt('timestamps', async () => {
    const r = await client.textToSpeech.convertWithTimestamps('en-us', { text, outputFormat: 'pcm_24000' });
    const file = path.join(outDir, 'timestamps.pcm');
    fs.writeFileSync(file, Buffer.from(r.audioBase64, 'base64'));
    return { file, characters: r.alignment.characters, starts: r.alignment.characterStartTimesSeconds,
      ends: r.alignment.characterEndTimesSeconds, normalized: r.normalizedAlignment.characters.join('') };
  });
  await attempt('unknown_voice', async () => save(await client.textToSpeech.convert('nobody', { text }), 'x.mp3'));
  await attempt('bad_key', async () => new ElevenLabsClient({ baseUrl, apiKey: 'sk_bad', maxRetries: 0 }).voices.getAll());
  process.stdout.write(JSON.stringify(results));
})();

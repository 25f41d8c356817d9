// elevenlabs_clone.cjs drives a voxkit server's instant voice cloning
// through the official ElevenLabs Node SDK and prints one JSON object of
// results; the Go test judges them (audio is written to files).
//
//   node elevenlabs_clone.cjs BASE_URL API_KEY OTHER_KEY OUT_DIR RECORDING TEXT
//
// OTHER_KEY belongs to another account, which must neither see nor use
// the clone. The SDK is found through NODE_PATH.
'use strict';
const fs = require('node:fs');
const cases = require('./cases.cjs');
const { ElevenLabsClient, ElevenLabsError } = require('@elevenlabs/elevenlabs-js');

const [baseUrl, apiKey, otherKey, outDir, recording, text] = process.argv.slice(2);
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0 });
const other = new ElevenLabsClient({ baseUrl, apiKey: otherKey, maxRetries: 0 });
const results = { sdkVersion: require('@elevenlabs/elevenlabs-js/package.json').version };

const attempt = cases.attempter(results, (e) => ({ status: e instanceof ElevenLabsError ? e.statusCode : undefined, body: e.body }));
const save = (stream, name) => cases.save(outDir, stream, name);

// listed is the category of voiceId in the voice list of c, or null.
async function listed(c, voiceId) {
  const r = await c.voices.getAll();
  const v = r.voices.find((x) => x.voiceId === voiceId);
  return v ? v.category : null;
}

(async () => {
  let voiceId;
  await attempt('create', async () => {
    const r = await client.voices.ivc.create({ name: 'My voice', files: [fs.createReadStream(recording)],
      description: 'me, reading', labels: { accent: 'none' }, removeBackgroundNoise: false });
    voiceId = r.voiceId;
    return { voiceId: r.voiceId, requiresVerification: r.requiresVerification };
  });
  await attempt('convert', async () =>
    save(await client.textToSpeech.convert(voiceId, { text, modelId: 'eleven_multilingual_v2', outputFormat: 'pcm_24000' }), 'convert.pcm'));
  await attempt('stream', async () =>
    save(await client.textToSpeech.stream(voiceId, { text, outputFormat: 'pcm_24000', seed: 7 }), 'stream.pcm'));
  // The request's seed: the same seed says the text the same way.
  await attempt('seeded', async () => {
    const a = await save(await client.textToSpeech.convert(voiceId, { text, outputFormat: 'pcm_24000', seed: 11 }), 'seed11a.pcm');
    const b = await save(await client.textToSpeech.convert(voiceId, { text, outputFormat: 'pcm_24000', seed: 11 }), 'seed11b.pcm');
    const c = await save(await client.textToSpeech.convert(voiceId, { text, outputFormat: 'pcm_24000', seed: 12 }), 'seed12.pcm');
    const same = (x, y) => fs.readFileSync(x.file).equals(fs.readFileSync(y.file));
    return { sameSeed: same(a, b), otherSeed: same(a, c) };
  });
  await attempt('get', async () => {
    const v = await client.voices.get(voiceId);
    const found = await client.voices.search({ search: 'my voice', voiceType: 'personal', pageSize: 5 });
    return { voiceId: v.voiceId, name: v.name, category: v.category, listed: await listed(client, voiceId),
      searched: found.voices.map((x) => x.voiceId), total: found.totalCount };
  });
  // Another account: the clone is not there for it.
  await attempt('other_get', async () => other.voices.get(voiceId));
  await attempt('other_list', async () => ({ listed: await listed(other, voiceId),
    searched: (await other.voices.search({ search: 'my voice' })).voices.map((x) => x.voiceId) }));
  await attempt('other_convert', async () => save(await other.textToSpeech.convert(voiceId, { text }), 'other.mp3'));
  await attempt('other_delete', async () => other.voices.delete(voiceId));
  await attempt('delete', async () => {
    const r = await client.voices.delete(voiceId);
    return { status: r.status, listed: await listed(client, voiceId) };
  });
  await attempt('deleted_convert', async () => save(await client.textToSpeech.convert(voiceId, { text }), 'deleted.mp3'));
  process.stdout.write(JSON.stringify(results));
})();

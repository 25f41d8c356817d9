// cartesia_clone.cjs drives a voxkit server's voice cloning through the
// official Cartesia Node SDK and prints one JSON object of results; the
// Go test judges them (audio is written to files).
//
//   node cartesia_clone.cjs BASE_URL API_KEY OTHER_KEY OUT_DIR RECORDING TEXT
//
// OTHER_KEY belongs to another account, which must neither see nor use
// the clone. The SDK is found through NODE_PATH.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const cases = require('./cases.cjs');
const { Cartesia, APIError } = require('@cartesia/cartesia-js');

const [baseURL, apiKey, otherKey, outDir, recording, text] = process.argv.slice(2);
const client = new Cartesia({ baseURL, apiKey, maxRetries: 0 });
const other = new Cartesia({ baseURL, apiKey: otherKey, maxRetries: 0 });
const { VERSION } = require('@cartesia/cartesia-js/version');
const results = { sdkVersion: VERSION };
const raw24k = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 };

const attempt = cases.attempter(results, (e) => e instanceof APIError ? { status: e.status, body: e.error } : {});

// bytes speaks text with the voice id through c and saves the audio.
async function bytes(c, id, name) {
  const res = await c.tts.generate({ model_id: 'sonic-3', transcript: text, voice: { mode: 'id', id }, output_format: raw24k });
  const buf = Buffer.from(await res.arrayBuffer());
  const file = path.join(outDir, name);
  fs.writeFileSync(file, buf);
  return { file, bytes: buf.length };
}

// owned is the is_owner of the voice id in the voice list of c, or null
// when the list does not have it.
async function owned(c, id) {
  for await (const v of c.voices.list({ limit: 100 })) if (v.id === id) return v.is_owner;
  return null;
}

(async () => {
  let id;
  await attempt('clone', async () => {
    const v = await client.voices.clone({ clip: fs.createReadStream(recording), name: 'My voice', language: 'en',
      description: 'me, reading' });
    id = v.id;
    return { voice: v };
  });
  await attempt('bytes', async () => bytes(client, id, 'clone.pcm'));
  await attempt('get', async () => ({ voice: await client.voices.get(id), isOwner: await owned(client, id) }));
  // Another account: the clone is not there for it.
  await attempt('other_get', async () => other.voices.get(id));
  await attempt('other_list', async () => ({ isOwner: await owned(other, id) }));
  await attempt('other_bytes', async () => bytes(other, id, 'other.pcm'));
  await attempt('other_delete', async () => other.voices.delete(id));
  await attempt('delete', async () => {
    await client.voices.delete(id);
    return { isOwner: await owned(client, id) };
  });
  await attempt('deleted_bytes', async () => bytes(client, id, 'deleted.pcm'));
  process.stdout.write(JSON.stringify(results));
})();

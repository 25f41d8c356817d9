// cartesia.cjs drives a voxkit server's Cartesia-compatible API with the
// official Cartesia Node SDK and prints one JSON object of results; the
// Go test judges them (audio is written to files).
//
//   node cartesia.cjs BASE_URL API_KEY OUT_DIR TEXT
//
// The SDK (and ws, which it takes for WebSockets) is found through
// NODE_PATH. The SDK opens its WebSocket at wss:// whatever the base URL
// says, so the server is HTTPS, its certificate in NODE_EXTRA_CA_CERTS.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const cases = require('./cases.cjs');
const { Cartesia, APIError } = require('@cartesia/cartesia-js');

const [baseURL, apiKey, outDir, text] = process.argv.slice(2);
const client = new Cartesia({ baseURL, apiKey, maxRetries: 0 });
const { VERSION } = require('@cartesia/cartesia-js/version');
const results = { sdkVersion: VERSION };
const voice = { mode: 'id', id: 'en-us' };
const raw24k = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 };

const attempt = cases.attempter(results, (e) => e instanceof APIError ? { status: e.status, body: e.error } : {});

function save(name, buf) {
  const file = path.join(outDir, name);
  fs.writeFileSync(file, buf);
  return { file, bytes: buf.length };
}

// receive reads a context's events until done: its audio, words and
// event types.
async function receive(ctx) {
  const audio = [];
  const words = [];
  const types = [];
  for await (const ev of ctx.receive({ timeout: 60000 })) {
    types.push(ev.type);
    if (ev.type === 'chunk' && ev.audio) audio.push(Buffer.from(ev.audio));
    if (ev.type === 'timestamps' && ev.word_timestamps) words.push(...ev.word_timestamps.words);
  }
  return { audio: Buffer.concat(audio), words, types };
}

(async () => {
  await attempt('voices', async () => {
    const ids = [];
    for await (const v of client.voices.list({ limit: 20 })) ids.push(v.id);
    return { voices: ids };
  });
  await attempt('bytes_pcm', async () => {
    const res = await client.tts.generate({ model_id: 'sonic-3', transcript: text, voice, output_format: raw24k });
    return save('bytes.pcm', Buffer.from(await res.arrayBuffer()));
  });
  await attempt('bytes_wav_f32', async () => {
    const res = await client.tts.generate({ model_id: 'sonic-3', transcript: text, voice,
      output_format: { container: 'wav', encoding: 'pcm_f32le', sample_rate: 44100 } });
    return save('bytes_f32.wav', Buffer.from(await res.arrayBuffer()));
  });
  await attempt('sse', async () => {
    const stream = await client.tts.generateSSE({ model_id: 'sonic-3', transcript: text, voice, output_format: raw24k, add_timestamps: true });
    const audio = [];
    const words = [];
    const types = [];
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === 'chunk') audio.push(Buffer.from(ev.data, 'base64'));
      if (ev.type === 'timestamps') words.push(...ev.word_timestamps.words);
    }
    return { ...save('sse.pcm', Buffer.concat(audio)), words, types };
  });

  const ws = await client.tts.websocket();
  ws.on('error', () => {}); // errors reach the contexts' receive
  const seen = [];
  ws.on('event', (ev) => seen.push(`${ev.context_id}:${ev.type}`));
  const options = { model_id: 'sonic-3', voice, output_format: raw24k, add_timestamps: true };
  await attempt('ws_pieces', async () => {
    const ctx = ws.context({ ...options, contextId: 'pieces' });
    for (const piece of text.split(/(?<= )/)) await ctx.push({ transcript: piece });
    await ctx.no_more_inputs();
    const r = await receive(ctx);
    return { ...save('ws.pcm', r.audio), words: r.words, types: r.types };
  });
  await attempt('ws_two', async () => {
    const a = ws.context({ ...options, contextId: 'two-a' });
    const b = ws.context({ ...options, contextId: 'two-b' });
    await a.push({ transcript: 'The first context ' });
    await b.push({ transcript: 'A second context ' });
    await a.push({ transcript: 'talks about apples.' });
    await b.push({ transcript: 'talks about the weather today.' });
    await a.no_more_inputs();
    await b.no_more_inputs();
    const [ra, rb] = await Promise.all([receive(a), receive(b)]);
    return { a: { bytes: ra.audio.length, words: ra.words }, b: { bytes: rb.audio.length, words: rb.words } };
  });
  await attempt('ws_cancel', async () => {
    const long = ws.context({ ...options, contextId: 'long' });
    const short = ws.context({ ...options, contextId: 'short' });
    await long.push({ transcript: 'This sentence goes on and on for a while. '.repeat(20) });
    await short.push({ transcript: 'Short and sweet.' });
    await short.no_more_inputs();
    await long.cancel();
    const r = await receive(short);
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { shortBytes: r.audio.length, shortTypes: r.types, longDone: seen.includes('long:done') };
  });
  // Pronunciation dictionaries through the SDK's own calls, used by
  // bytes, SSE and a socket context.
  const who = 'We met the WHO today.';
  const dicts = {};
  await attempt('dict_create', async () => {
    const d = await client.pronunciationDicts.create({ name: 'acronyms', items: [{ text: 'WHO', alias: 'World Health Organization' }] });
    dicts.id = d.id;
    return { dict: d };
  });
  await attempt('dict_use', async () => {
    const bytes = async (extra) => Buffer.from(await (await client.tts.generate({ model_id: 'sonic-3', transcript: who, voice, output_format: raw24k, ...extra })).arrayBuffer()).length;
    const plainBytes = await bytes({});
    const dictBytes = await bytes({ pronunciation_dict_id: dicts.id });
    const spelledBytes = Buffer.from(await (await client.tts.generate({ model_id: 'sonic-3', transcript: 'We met the World Health Organization today.', voice, output_format: raw24k })).arrayBuffer()).length;
    let sseBytes = 0;
    for await (const ev of await client.tts.generateSSE({ model_id: 'sonic-3', transcript: who, voice, output_format: raw24k, pronunciation_dict_id: dicts.id })) {
      if (ev.type === 'chunk') sseBytes += Buffer.from(ev.data, 'base64').length;
    }
    const ctx = ws.context({ ...options, contextId: 'dict', pronunciation_dict_id: dicts.id });
    await ctx.push({ transcript: who });
    await ctx.no_more_inputs();
    const r = await receive(ctx);
    return { plainBytes, dictBytes, spelledBytes, sseBytes, wsBytes: r.audio.length };
  });
  await attempt('dict_update', async () => {
    const updated = await client.pronunciationDicts.update(dicts.id, { items: [{ text: 'WHO', alias: 'World Health Organization' }, { text: 'bayou', alias: '<<b|ɑ|j|u>>' }] });
    const got = await client.pronunciationDicts.retrieve(dicts.id);
    const second = await client.pronunciationDicts.create({ name: 'second', items: [] });
    const listed = [];
    for await (const d of client.pronunciationDicts.list({ limit: 1 })) listed.push(d.id);
    return { dict: got, updatedItems: updated.items.length, listed, second: second.id };
  });
  await attempt('dict_delete', async () => {
    await client.pronunciationDicts.delete(dicts.id);
    await client.pronunciationDicts.retrieve(dicts.id);
  });
  ws.close();

  await attempt('unknown_voice', async () => {
    await client.tts.generate({ model_id: 'sonic-3', transcript: 'Hi.', voice: { mode: 'id', id: 'nobody' }, output_format: raw24k });
  });
  await attempt('bad_key', async () => {
    const bad = new Cartesia({ baseURL, apiKey: 'sk_nope', maxRetries: 0 });
    await bad.voices.list();
  });
  process.stdout.write(JSON.stringify(results));
})();

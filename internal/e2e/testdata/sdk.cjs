// sdk.cjs drives a voxkit server with the official OpenAI Node SDK and
// prints one JSON object of results; the Go test judges them (audio is
// written to files for ffprobe and pocketsphinx).
//
//   node sdk.cjs BASE_URL API_KEY OUT_DIR SENTENCES_JSON
//
// The SDK is found through NODE_PATH (the node_modules directory that
// .ci/install-node-sdk.sh fills).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const OpenAI = require('openai');

const [baseURL, apiKey, outDir, sentencesJSON] = process.argv.slice(2);
const sentences = JSON.parse(sentencesJSON);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60000 });
const results = { sdkVersion: require('openai/version').VERSION };

// describe turns a thrown error into what the test checks.
function describe(e) {
  const out = { name: e && e.constructor && e.constructor.name, message: String(e && e.message) };
  if (e instanceof OpenAI.APIError) {
    Object.assign(out, {
      status: e.status, type: e.type, code: e.code, param: e.param, requestID: e.requestID,
      isNotFound: e instanceof OpenAI.NotFoundError,
      isAuthentication: e instanceof OpenAI.AuthenticationError,
      isBadRequest: e instanceof OpenAI.BadRequestError,
    });
  }
  return out;
}

async function attempt(name, fn) {
  try {
    results[name] = { ok: true, ...(await fn()) };
  } catch (e) {
    results[name] = { ok: false, error: describe(e) };
  }
}

function headersOf(res) {
  return {
    contentType: res.headers.get('content-type'),
    cacheControl: res.headers.get('cache-control'),
    upstream: res.headers.get('x-upstream-ms'),
    gateway: res.headers.get('x-gateway-ms'),
    requestID: res.headers.get('x-request-id'),
    ignoredTags: res.headers.get('x-ignored-tags'),
  };
}

async function save(name, res) {
  const buf = Buffer.from(await res.arrayBuffer());
  const file = path.join(outDir, name);
  fs.writeFileSync(file, buf);
  return { file, bytes: buf.length, ...headersOf(res) };
}

async function main() {
  const formats = ['wav', 'mp3', 'opus', 'flac', 'pcm'];
  for (let i = 0; i < formats.length; i++) {
    const f = formats[i];
    await attempt('format_' + f, async () => {
      const res = await client.audio.speech.create({
        model: 'tts-1', voice: 'alloy', input: sentences[i % sentences.length], response_format: f,
      });
      return { sentence: i % sentences.length, ...(await save('speech.' + f, res)) };
    });
  }

  // The SDK sample without response_format, as pasted from the docs.
  await attempt('default_format', async () => {
    const res = await client.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'coral', input: sentences[0] });
    return await save('speech.default', res);
  });

  // instructions and speed: accepted; speed 2 shortens the audio.
  for (const [name, extra] of [
    ['instructions', { model: 'gpt-4o-mini-tts', instructions: 'Speak in a cheerful and positive tone.' }],
    // Home Assistant's request: gpt-4o-mini-tts, marin, and a style prompt.
    ['instructions_marin', { model: 'gpt-4o-mini-tts', voice: 'marin', instructions: 'Speak slowly and calmly, like a pirate.' }],
    ['speed_1', { speed: 1 }],
    ['speed_2', { speed: 2 }],
    ['speed_1_5', { speed: 1.5 }],
  ]) {
    await attempt(name, async () => {
      const res = await client.audio.speech.create({
        model: 'tts-1', voice: 'alloy', input: sentences[1], response_format: 'wav', ...extra,
      });
      return { sentence: 1, ...(await save(name + '.wav', res)) };
    });
  }

  // pcm read as a stream, chunk by chunk, as the SDK docs show.
  await attempt('pcm_stream', async () => {
    const input = sentences.slice(0, 4).join(' ');
    const t0 = Date.now();
    const res = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input, response_format: 'pcm' });
    const reader = res.body.getReader();
    const chunks = [];
    let firstMs = -1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (firstMs < 0) firstMs = Date.now() - t0;
      chunks.push(Buffer.from(value));
    }
    const buf = Buffer.concat(chunks);
    const file = path.join(outDir, 'stream.pcm');
    fs.writeFileSync(file, buf);
    return { file, bytes: buf.length, chunks: chunks.length, firstMs, totalMs: Date.now() - t0,
      transferEncoding: res.headers.get('transfer-encoding'), ...headersOf(res) };
  });

  // SSE stream_format: parse the events by hand.
  await attempt('sse', async () => {
    const res = await client.audio.speech.create({
      model: 'gpt-4o-mini-tts', voice: 'alloy', input: sentences[2], response_format: 'pcm', stream_format: 'sse',
    });
    const text = await res.text();
    const events = text.split('\n\n').filter((s) => s.trim() !== '').map((s) => s.replace(/^data: /, ''));
    const audio = [];
    const types = [];
    for (const ev of events) {
      if (ev === '[DONE]') { types.push('[DONE]'); continue; }
      const obj = JSON.parse(ev);
      types.push(obj.type);
      if (obj.type === 'speech.audio.delta') audio.push(Buffer.from(obj.audio, 'base64'));
      if (obj.type === 'speech.audio.done') results.sseUsage = obj.usage;
    }
    const buf = Buffer.concat(audio);
    const file = path.join(outDir, 'sse.pcm');
    fs.writeFileSync(file, buf);
    return { file, bytes: buf.length, sentence: 2, types, contentType: res.headers.get('content-type') };
  });

  // voice as an object, and the raw response through withResponse().
  await attempt('voice_object', async () => {
    const { data, response, request_id } = await client.audio.speech
      .create({ model: 'tts-1', voice: { id: 'alloy' }, input: sentences[3], response_format: 'wav' })
      .withResponse();
    const saved = await save('voice_object.wav', data);
    return { sentence: 3, status: response.status, sdkRequestID: request_id, ...saved };
  });

  await attempt('models_list', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    return { models };
  });
  await attempt('models_retrieve', async () => ({ model: await client.models.retrieve('en-us') }));
  await attempt('models_retrieve_unknown', async () => ({ model: await client.models.retrieve('no-such-voice') }));

  // Errors.
  const errCases = {
    unknown_voice: { model: 'tts-1', voice: 'no-such-voice', input: 'Hello.' },
    bad_format: { model: 'tts-1', voice: 'alloy', input: 'Hello.', response_format: 'ogg' },
    aac: { model: 'tts-1', voice: 'alloy', input: 'Hello.', response_format: 'aac' },
    too_long: { model: 'tts-1', voice: 'alloy', input: 'a'.repeat(4097) },
    bad_speed: { model: 'tts-1', voice: 'alloy', input: 'Hello.', speed: 9 },
    empty_input: { model: 'tts-1', voice: 'alloy', input: '' },
  };
  for (const [name, body] of Object.entries(errCases)) {
    await attempt('error_' + name, async () => {
      const res = await client.audio.speech.create(body);
      return { bytes: (await res.arrayBuffer()).byteLength };
    });
  }
  const bad = new OpenAI({ baseURL, apiKey: 'sk_' + 'x'.repeat(43), maxRetries: 0 });
  await attempt('error_bad_key', async () => {
    const res = await bad.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello.' });
    return { bytes: (await res.arrayBuffer()).byteLength };
  });
  await attempt('error_bad_key_models', async () => ({ page: await bad.models.list() }));

  process.stdout.write(JSON.stringify(results));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack) + '\n');
  process.exit(1);
});

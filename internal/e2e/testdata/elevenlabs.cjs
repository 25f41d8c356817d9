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
const cases = require('./cases.cjs');
const { ElevenLabsClient, ElevenLabsError } = require('@elevenlabs/elevenlabs-js');

const [baseUrl, apiKey, outDir, text] = process.argv.slice(2);
const client = new ElevenLabsClient({ baseUrl, apiKey, maxRetries: 0 });
const results = { sdkVersion: require('@elevenlabs/elevenlabs-js/package.json').version };

const attempt = cases.attempter(results, (e) => ({ status: e instanceof ElevenLabsError ? e.statusCode : undefined, body: e.body }));
const save = (stream, name) => cases.save(outDir, stream, name);

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
  // Pronunciation dictionaries: made from a PLS file and from rules, read,
  // changed, downloaded, and named by locators in speech.
  const pls = path.join(outDir, 'acronyms.pls');
  fs.writeFileSync(pls, `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
</lexicon>`);
  let fromFile, fromRules;
  await attempt('dictionary_file', async () => {
    fromFile = await client.pronunciationDictionaries.createFromFile({ name: 'acronyms', file: fs.createReadStream(pls), description: 'said in full' });
    return { dictionary: fromFile };
  });
  await attempt('dictionary_rules', async () => {
    fromRules = await client.pronunciationDictionaries.createFromRules({ name: 'rules', rules: [
      { type: 'alias', stringToReplace: 'NASA', alias: 'the space agency', caseSensitive: true, wordBoundaries: true },
      { type: 'phoneme', stringToReplace: 'tomato', phoneme: 'təˈmɑːtoʊ', alphabet: 'ipa' }] });
    const added = await client.pronunciationDictionaries.rules.add(fromRules.id, { rules: [{ type: 'alias', stringToReplace: 'WHO', alias: 'World Health Organization' }] });
    const removed = await client.pronunciationDictionaries.rules.remove(fromRules.id, { ruleStrings: ['NASA'] });
    const got = await client.pronunciationDictionaries.get(fromRules.id);
    const list = await client.pronunciationDictionaries.list({ pageSize: 10 });
    const doc = await new Response(await client.pronunciationDictionaries.download(fromRules.id, removed.versionId)).text();
    return { dictionary: fromRules, added, removed, rules: got.rules.map((r) => r.stringToReplace), latest: got.latestVersionId,
      listed: list.pronunciationDictionaries.map((d) => d.id), hasMore: list.hasMore, document: doc };
  });
  await attempt('dictionary_speech', async () =>
    save(await client.textToSpeech.convert('en-us', { text: 'We met the WHO today.', outputFormat: 'pcm_24000',
      pronunciationDictionaryLocators: [{ pronunciationDictionaryId: fromFile.id, versionId: fromFile.versionId }] }), 'dictionary.pcm'));
  await attempt('dictionary_unknown', async () =>
    save(await client.textToSpeech.convert('en-us', { text: 'We met the WHO today.',
      pronunciationDictionaryLocators: [{ pronunciationDictionaryId: 'nope' }] }), 'x.mp3'));
  await attempt('unknown_voice', async () => save(await client.textToSpeech.convert('nobody', { text }), 'x.mp3'));
  await attempt('bad_key', async () => new ElevenLabsClient({ baseUrl, apiKey: 'sk_bad', maxRetries: 0 }).voices.getAll());
  process.stdout.write(JSON.stringify(results));
})();

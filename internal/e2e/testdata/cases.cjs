// cases.cjs holds what the SDK scripts share: running a case into the
// results object the Go test reads, and saving streamed audio.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// attempter returns attempt(name, fn): it runs fn and records
// { ok: true, ...its result } under name in results, or, when fn throws,
// { ok: false, error: { name, message, status, body } }, status and body
// being what details(e) reads from the SDK's error.
exports.attempter = (results, details) => async (name, fn) => {
  try {
    results[name] = { ok: true, ...(await fn()) };
  } catch (e) {
    results[name] = { ok: false, error: { name: e.constructor.name, message: String(e.message), ...details(e) } };
  }
};

// save reads a web ReadableStream of audio to the file name in outDir
// and counts its chunks.
exports.save = async (outDir, stream, name) => {
  const parts = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk));
  const file = path.join(outDir, name);
  const all = Buffer.concat(parts);
  fs.writeFileSync(file, all);
  return { file, bytes: all.length, chunks: parts.length };
};

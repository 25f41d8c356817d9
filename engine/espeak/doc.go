//go:build cgo

// Package espeak is the embedded default speech engine, built on
// libespeak-ng through cgo. It needs no model download: every language
// espeak-ng ships is a voice, named by its language code ("en-us",
// "en-gb", "de", "fr", ...). A variant may be appended with "+", as in
// "en-us+f3" or "en-us+whisper".
//
// libespeak-ng keeps global state and is not thread-safe, so this package
// holds one lock around every call into it, and nothing broader: audio is
// handed to the caller after the lock is released, sentence by sentence.
// Some of that state carries from one call to the next: the phoneme list
// that espeak-ng reads past a clause's end is made the same before every
// synthesis, so a request's phonemes and their timing do not depend on
// what ran before; its pitch flutter and gain control cannot be reset
// through the library's API, and vary the audio by about a millisecond
// (see docs/tags.md, "Determinism").
//
// espeak-ng is licensed under the GPL-3.0: a binary that links this
// package is covered by the GPL.
package espeak

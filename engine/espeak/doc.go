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
//
// espeak-ng is licensed under the GPL-3.0: a binary that links this
// package is covered by the GPL.
package espeak

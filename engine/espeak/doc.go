//go:build cgo

// Package espeak is the embedded default speech engine, built on
// libespeak-ng through cgo. It needs no model download: every language
// espeak-ng ships is a voice, named by its language code ("en-us",
// "en-gb", "de", "fr", ...). A variant may be appended with "+", as in
// "en-us+f3" or "en-us+whisper".
//
// libespeak-ng 1.51 crashes on some ordinary inputs (a run of "a." a
// hundred long smashes its stack), so by default it does not run in the
// caller's process: the program's own executable is started again as
// engine processes, one per CPU at most, each serving one call at a time
// (a sentence, or a text's phonemes) over pipes. A crash costs only the
// call that caused it, which fails with engine.ErrCrashed; a new process
// takes the dead one's place. A program that imports this package needs
// nothing for that: the package's init hands such a process to the
// library before main runs. Options.InProcess keeps the library in the
// caller's process instead. Before text reaches the library, the guard
// cuts the known crashing runs into pieces it survives (guard.go).
//
// Within a process libespeak-ng keeps global state and is not
// thread-safe: one lock is held around every call into it, and nothing
// broader. Audio is handed to the caller sentence by sentence. Some of
// that state carries from one call to the next: the phoneme list
// that espeak-ng reads past a clause's end is made the same before every
// synthesis, so a request's phonemes and their timing do not depend on
// what ran before; its pitch flutter and gain control cannot be reset
// through the library's API, and vary a sentence's length by about a
// millisecond, or by about 14 ms in some renderings of a clause that ends on
// its only word (see docs/tags.md, "Determinism").
//
// espeak-ng is licensed under the GPL-3.0: a binary that links this
// package is covered by the GPL.
package espeak

// Package engine defines the small interface every speech engine implements,
// and the optional interfaces some engines add.
//
// An Engine turns one Request into mono PCM audio delivered through a
// ChunkFunc. Capabilities that only some engines have — listing voices,
// phonemizing text — are separate interfaces found by type assertion, the
// way net/http finds http.Flusher:
//
//	if l, ok := e.(engine.VoiceLister); ok {
//		vs, err := l.Voices(ctx)
//		...
//	}
//
// The tts package drives engines; most programs never call an Engine
// directly.
package engine

package layers

// The long-form jobs' libraries (issue 43): the book reader knows nothing
// of speech, and the captions (which take tts's words) nothing of the
// server that calls them.
func init() {
	forbidden["internal/book"] = []string{"encode/...", "engine/...", "tags/...", "tts/...", "voices/...", "lexicon/...", "server/...", "internal/codec/..."}
	forbidden["internal/captions"] = []string{"server/..."}
}

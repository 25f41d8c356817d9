// Package captions makes subtitles of speech from its word timings
// (tts.Word): Cues groups the words into cues of at most two lines of
// 42 characters and 7 seconds, cut at sentence ends and pauses first,
// then at clause ends, and a Writer writes them as SRT or WebVTT.
//
// Cue times are the words' own, from the start of the audio the words
// were timed in. A caller that joins the audio of several requests (the
// segments of a long job) makes each segment's cues and shifts them by
// where the segment starts (Cue.Shift), then writes them all with one
// Writer, which numbers them.
package captions

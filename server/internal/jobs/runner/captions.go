package runner

import (
	"bytes"
	"errors"
	"time"

	"github.com/voxkit/voxkit/internal/captions"
	"github.com/voxkit/voxkit/tts"
)

// segmentCues are the captions of a segment's words (package captions:
// lines of at most 42 characters, two to a cue, cut at sentence ends and
// pauses), moved to where the segment starts in the whole audio. A
// segment lies in one chapter, so no cue runs across chapters.
func segmentCues(text string, words []word, at time.Duration) []captions.Cue {
	tw := make([]tts.Word, len(words))
	for i, w := range words {
		tw[i] = tts.Word{Word: w.W, Start: ms(w.S), End: ms(w.E), CharStart: w.C, CharEnd: w.D}
	}
	cues := captions.Cues(text, tw)
	for i := range cues {
		cues[i] = cues[i].Shift(at)
	}
	return cues
}

// captionFile writes cues as a file of format f.
func captionFile(cues []captions.Cue, f captions.Format) []byte {
	var b bytes.Buffer
	w := captions.NewWriter(&b, f)
	if err := errors.Join(w.Write(cues...), w.Close()); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}

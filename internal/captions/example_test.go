package captions_test

import (
	"os"
	"time"

	"github.com/voxkit/voxkit/internal/captions"
	"github.com/voxkit/voxkit/tts"
)

func Example() {
	text := `"Ready?" she asked. We left at dawn.`
	ms := time.Millisecond
	words := []tts.Word{ // as OnSentence reports them
		{Word: "Ready", Start: 0, End: 400 * ms, CharStart: 1, CharEnd: 6},
		{Word: "she", Start: 450 * ms, End: 600 * ms, CharStart: 9, CharEnd: 12},
		{Word: "asked", Start: 600 * ms, End: 950 * ms, CharStart: 13, CharEnd: 18},
		{Word: "We", Start: 1300 * ms, End: 1400 * ms, CharStart: 20, CharEnd: 22},
		{Word: "left", Start: 1400 * ms, End: 1650 * ms, CharStart: 23, CharEnd: 27},
		{Word: "at", Start: 1650 * ms, End: 1750 * ms, CharStart: 28, CharEnd: 30},
		{Word: "dawn", Start: 1750 * ms, End: 2100 * ms, CharStart: 31, CharEnd: 35},
	}
	// This text is the second segment of a job: its audio starts 90 s in.
	var cues []captions.Cue
	for _, c := range captions.Cues(text, words) {
		cues = append(cues, c.Shift(90*time.Second))
	}
	captions.WriteSRT(os.Stdout, cues)
	// Output:
	// 1
	// 00:01:30,000 --> 00:01:30,950
	// "Ready?" she asked.
	//
	// 2
	// 00:01:31,300 --> 00:01:32,100
	// We left at dawn.
}

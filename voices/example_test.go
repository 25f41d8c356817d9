package voices_test

import (
	"fmt"

	"github.com/voxkit/voxkit/tags"
	"github.com/voxkit/voxkit/voices"
)

// A derived voice's style lies under the input's tags: a tag replaces the
// attribute it sets and keeps the others.
func ExampleVoice_StyleFor() {
	clone := voices.Voice{ID: "quick-anna", Owner: "ann", Base: "en-us", Engine: "espeak", EngineVoice: "en-us",
		Style: tags.Style{Rate: 2, Pitch: 3}}
	fmt.Println(clone.StyleFor(tags.Style{}))
	fmt.Println(clone.StyleFor(tags.Style{Rate: 0.75}))
	fmt.Println(clone.StyleFor(tags.Style{Whisper: true}))
	// Output:
	// rate=2 pitch=+3
	// rate=0.75 pitch=+3
	// rate=2 pitch=+3 whisper
}

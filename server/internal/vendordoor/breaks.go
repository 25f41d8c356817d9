package vendordoor

import (
	"regexp"
	"strconv"
)

// breakTag is the pause ElevenLabs and Cartesia take in a text,
// <break time="1.5s" />: a number of seconds (or milliseconds), in either
// quotes, the slash optional.
var breakTag = regexp.MustCompile(`(?i)<break\s+time\s*=\s*["']\s*(\d+(?:\.\d+)?)\s*(s|ms)\s*["']\s*/?\s*>`)

// Breaks rewrites the vendors' break tags of text as voxkit's pause tags,
// so that they pause, not read aloud ("break time equals one s").
func Breaks(text string) string {
	return breakTag.ReplaceAllStringFunc(text, func(tag string) string {
		m := breakTag.FindStringSubmatch(tag)
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return tag
		}
		if m[2] == "s" || m[2] == "S" {
			n *= 1000
		}
		return "<|pause:" + strconv.Itoa(int(n)) + "ms|>"
	})
}

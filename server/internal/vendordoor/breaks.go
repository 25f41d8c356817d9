package vendordoor

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/tags/ssml"
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
		t, ok := ssml.BreakTime(m[1] + strings.ToLower(m[2]))
		if !ok {
			return tag
		}
		return "<|pause:" + strconv.FormatInt(t.Milliseconds(), 10) + "ms|>"
	})
}

// maxHeld is the longest tail a BreakStream holds: a break tag is
// shorter.
const maxHeld = 64

// A BreakStream rewrites the break tags of a socket context's text as it
// comes in pieces (a word tokenizer sends `<break ` and `time="1s"/>`
// apart): a piece ending inside what may be a break tag holds that tail
// until its rest comes, or the context is flushed or ends.
type BreakStream struct{ held string }

// Text returns piece with its break tags rewritten (Breaks), the tail
// held before it first; final (a flush, the end) holds nothing back.
// A nil BreakStream holds nothing.
func (b *BreakStream) Text(piece string, final bool) string {
	if b == nil {
		return Breaks(piece)
	}
	text := b.held + piece
	b.held = ""
	if i := strings.LastIndexByte(text, '<'); !final && i >= 0 && len(text)-i <= maxHeld && mayBreak(text[i:]) {
		text, b.held = text[:i], text[i:]
	}
	return Breaks(text)
}

// mayBreak reports whether tail, which has no '>' after its '<', may be
// the beginning of a break tag.
func mayBreak(tail string) bool {
	if strings.ContainsRune(tail, '>') {
		return false
	}
	tail = strings.ToLower(tail)
	return strings.HasPrefix("<break", tail) || strings.HasPrefix(tail, "<break")
}

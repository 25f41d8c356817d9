//go:build cgo

package espeak

import (
	"fmt"
	"slices"
	"strings"

	"github.com/voxkit/voxkit/engine"
)

var _ engine.Renderer = (*Engine)(nil)

// Renders reports the Prosody controls espeak-ng renders itself: rate,
// pitch range (SSML prosody range), whisper (its "whisper" voice variant),
// emphasis (SSML emphasis), spelling (SSML say-as characters) and
// phonemes (its [[ ]] phoneme input, see mnemonics). Pitch
// and gain are left to the caller's DSP: espeak-ng's own pitch control
// spans only about −7 to +9 semitones and is not calibrated in semitones,
// and its volume saturates above 100%.
func (e *Engine) Renders(f engine.Feature) bool {
	switch f {
	case engine.FeatureRate, engine.FeatureRange, engine.FeatureWhisper, engine.FeatureEmphasis, engine.FeatureSpell, engine.FeatureBreaks, engine.FeaturePhonemes:
		return true
	}
	return false
}

// needsSSML reports whether p asks for controls rendered through SSML.
func needsSSML(p engine.Prosody) bool {
	return p.Emphasis || p.Spell || (p.Range > 0 && p.Range != 1)
}

// markup wraps one sentence of plain text in the SSML that renders p.
// There is no <speak> root: in library mode espeak-ng adds about 0.3 s of
// silence for it.
func markup(text string, p engine.Prosody) string {
	open, close := markupTags(p)
	return open + escapeXML(text) + close
}

// markupTags returns the SSML elements that markup puts around the text.
func markupTags(p engine.Prosody) (open, close string) {
	var b strings.Builder
	var closers []string
	if p.Range > 0 && p.Range != 1 {
		fmt.Fprintf(&b, `<prosody range="%d%%">`, int(p.Range*100+0.5))
		closers = append(closers, "</prosody>")
	}
	if p.Emphasis {
		b.WriteString("<emphasis>")
		closers = append(closers, "</emphasis>")
	}
	if p.Spell {
		b.WriteString(`<say-as interpret-as="characters">`)
		closers = append(closers, "</say-as>")
	}
	slices.Reverse(closers)
	return b.String(), strings.Join(closers, "")
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }

// whisperVoice returns voice with its variant replaced by espeak-ng's
// whisper variant.
func whisperVoice(voice string) string {
	base, _, _ := strings.Cut(voice, "+")
	return base + "+whisper"
}

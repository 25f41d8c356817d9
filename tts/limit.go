package tts

import (
	"errors"
	"fmt"
	"time"
	"unicode"

	"github.com/voxkit/voxkit/engine/sentence"
	"github.com/voxkit/voxkit/tags"
)

// DefaultMaxAudio is the most audio one request may make when
// Options.MaxAudio is 0. A full-length (DefaultMaxInput) English input at
// speed 1 makes about 4.5 minutes on espeak-ng.
const DefaultMaxAudio = 10 * time.Minute

// ErrAudioTooLong is returned (wrapped) when a request would make, or has
// made, more audio than Options.MaxAudio. Validate and Stream return it
// before writing anything when the estimate of the input's audio is over
// the limit; otherwise Stream returns it as soon as the samples it has
// produced pass the limit, having written the audio before.
var ErrAudioTooLong = errors.New("tts: too much audio")

// AudioLimitError is the error for a request that would make (Estimate,
// before any audio) or has made (Estimate 0) more audio than Limit;
// errors.Is(err, ErrAudioTooLong) holds for it.
type AudioLimitError struct {
	Estimate time.Duration
	Limit    time.Duration
}

func (e *AudioLimitError) Error() string {
	return fmt.Sprintf("%v: %s", ErrAudioTooLong, e.Reason())
}

// Reason says what passed the limit, in a sentence for the caller.
func (e *AudioLimitError) Reason() string {
	if e.Estimate > 0 {
		return fmt.Sprintf("the input would make at least %v of audio, the limit is %v", e.Estimate, e.Limit)
	}
	return fmt.Sprintf("the audio passed the limit of %v", e.Limit)
}

func (e *AudioLimitError) Unwrap() error { return ErrAudioTooLong }

// Speech estimates per character, at speed 1. They are on the low side of
// espeak-ng's rates (docs/decisions.md), so that the estimate never
// refuses input whose audio would fit: the count of samples during
// synthesis is exact and catches the rest.
const (
	estimateLetter   = 70 * time.Millisecond  // a letter or digit of an alphabetic script
	estimateSyllable = 300 * time.Millisecond // a Han, Kana or Hangul character
	estimateSpelled  = 150 * time.Millisecond // a letter or digit read out alone
	estimateEvent    = 300 * time.Millisecond // a breath, sigh, laugh or cough
)

// estimate returns a low estimate of the audio script makes at speed (0
// means 1): pauses exactly, speech from its characters and rate.
func estimate(script tags.Script, speed float64) time.Duration {
	if speed == 0 {
		speed = 1
	}
	var total time.Duration
	for _, p := range script.Parts {
		switch {
		case p.IsEvent() && p.Event.Kind == tags.Pause:
			total += p.Event.Duration
		case p.IsEvent():
			total += estimateEvent
		default:
			rate := speed * p.Style.RateOrDefault()
			if p.Style.Emphasis {
				rate *= emphasisRate
			}
			rate = max(tags.MinRate, min(tags.MaxRate, rate))
			var speech time.Duration
			for _, c := range p.Text {
				switch {
				case unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
					speech += estimateSyllable
				case !unicode.IsLetter(c) && !unicode.IsDigit(c):
				case p.Style.Spell:
					speech += estimateSpelled
				default:
					speech += estimateLetter
				}
			}
			total += time.Duration(float64(speech) / rate)
		}
	}
	return total
}

// checkAudio refuses script when its estimated audio passes max.
func checkAudio(script tags.Script, speed float64, max time.Duration) error {
	if d := estimate(script, speed); d > max {
		return &AudioLimitError{Estimate: d.Round(time.Second), Limit: max}
	}
	return nil
}

// pieceLen is the longest piece, in characters, that the sentences of
// script are cut into (at a clause, else a word): the splitter's 300 at
// normal speed and faster, and proportionally less for slow speech — the
// request's speed times the slowest rate a tag asks for, down to a quarter
// (75 characters) — so that a piece never makes much more audio than a
// long sentence at normal speed. A piece's audio is held whole while it is
// rendered (resampled, given its effects, encoded), so this is what bounds
// a request's memory when the speech is slow.
func pieceLen(script tags.Script, speed float64) int {
	if speed == 0 {
		speed = 1
	}
	slowest := speed
	for _, p := range script.Parts {
		if !p.IsEvent() {
			slowest = min(slowest, speed*p.Style.RateOrDefault())
		}
	}
	return int(float64(sentence.DefaultMaxLen) * max(tags.MinRate, min(1, slowest)))
}

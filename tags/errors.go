package tags

import (
	"errors"
	"fmt"
	"github.com/voxkit/voxkit/engine"
	"strings"
)

// Kinds of tag problems, for errors.Is on a *TagError or on the error
// Parse returns in strict mode.
var (
	// ErrUnknownTag: the name is not in the vocabulary.
	ErrUnknownTag = errors.New("tags: unknown tag")
	// ErrBadValue: the value is missing, unexpected or unreadable.
	ErrBadValue = errors.New("tags: bad value")
	// ErrOutOfRange: the value is outside its limits. Outside strict
	// mode it is clamped and the tag still applies.
	ErrOutOfRange = errors.New("tags: value out of range")
	// ErrUnsupported: the tag is in the vocabulary but the renderer
	// cannot render it (Options.Supports said no).
	ErrUnsupported = errors.New("tags: unsupported tag")
	// ErrUnknownVoice: a voice tag names a voice the caller may not use
	// (Options.Voice said no).
	// It wraps engine.ErrUnknownVoice, voxkit's one sentinel for it.
	ErrUnknownVoice = fmt.Errorf("tags: %w", engine.ErrUnknownVoice)
	// ErrMalformed: text shaped like a tag that is not well formed,
	// such as <|Pause|> or <|pause 1s|>. It is removed, not read aloud.
	ErrMalformed = errors.New("tags: malformed tag")
	// ErrUnmatched: a closing tag closes no open tag.
	ErrUnmatched = errors.New("tags: closing tag without an open tag")
)

// TagError describes one tag that was not applied as written.
type TagError struct {
	// Pos is the byte offset of the tag in the input.
	Pos int
	// Tag is the tag as written, such as "<|rate:9|>".
	Tag string
	// Kind is one of the Err* values above.
	Kind error
	// Detail says more, such as "clamped to 4"; it may be empty.
	Detail string
}

// Error returns a message such as "tags: unknown tag <|foo|> at 3".
func (e *TagError) Error() string {
	msg := fmt.Sprintf("%v %s at %d", e.Kind, e.Tag, e.Pos)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns Kind.
func (e *TagError) Unwrap() error { return e.Kind }

// Dropped reports whether the tag was removed without effect. Only tags
// with an out-of-range value still apply, with the value clamped.
func (e *TagError) Dropped() bool { return e.Kind != ErrOutOfRange }

// Name returns the tag without its delimiters, such as "rate:9" or
// "/slow". A word joined to a stray delimiter ("<|", "x|>", the
// "<|pause:1s" of "<|pause:1s <|x|>"), and tag-shaped text with nothing
// inside ("<||>"), is returned as written: trimmed, it would be nothing,
// or read as a tag of that name.
func (e *TagError) Name() string {
	inner, ok := strings.CutPrefix(e.Tag, "<|")
	if inner, ok2 := strings.CutSuffix(inner, "|>"); ok && ok2 && inner != "" {
		return inner
	}
	return e.Tag
}

// StrictError is what Parse returns in strict mode when any tag is not
// applied as written. It names every such tag; errors.As finds the first
// as a *TagError.
type StrictError struct {
	Tags []*TagError
}

// Error lists the rejected tags.
func (e *StrictError) Error() string {
	if len(e.Tags) == 1 {
		return e.Tags[0].Error()
	}
	parts := make([]string, len(e.Tags))
	for i, t := range e.Tags {
		parts[i] = strings.TrimPrefix(t.Error(), "tags: ")
	}
	return fmt.Sprintf("tags: %d tags rejected: %s", len(e.Tags), strings.Join(parts, "; "))
}

// Unwrap returns the rejected tags' errors.
func (e *StrictError) Unwrap() []error {
	errs := make([]error, len(e.Tags))
	for i, t := range e.Tags {
		errs[i] = t
	}
	return errs
}

package tts

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/engine/sentence"
	"github.com/voxkit/voxkit/lexicon"
	"github.com/voxkit/voxkit/tags"
)

// ErrStreamClosed is returned by a TextStream used after Close or after
// an error ended it.
var ErrStreamClosed = errors.New("tts: text stream closed")

// TextStream synthesizes text that arrives in pieces, such as the tokens
// of a language model as it writes them: each sentence is synthesized and
// written as soon as its end is known, while the rest is still to come.
// It writes one audio stream, in the format's streaming form, as Stream
// does. Its methods synthesize on the caller's goroutine and return once
// the audio of what they synthesized is written. It is not safe for
// concurrent use.
//
// A sentence's end is known when the text after it shows it, by the
// rules of package engine/sentence for the voice's language: at ".", "!"
// or "?" and the like followed by white space and a word that starts a
// sentence, or at a blank line. A terminator at the very end of the text
// so far ends its sentence at once when the sentence splitter would end
// it before a capital, except a period after a digit ("3." may become
// "3.5") and an ellipsis, which wait for the next character; a number's
// period followed only by a word still being written waits for the word
// (German "am 3. Mai" is one sentence, "am 3. Danach" two). Text that does not yet end
// a sentence waits for more, for Flush or for Close. Half of an audio tag
// ("<|pa") waits for the rest of it ("use:300ms|>"); a tag is never read
// aloud, whichever pieces it arrives in. Styles carry across sentences as
// in a whole input.
//
// A stream holds only the text that waits for its sentence's end: what
// was spoken is let go. All it is written counts against
// Options.MaxStreamInput, spoken or not, and at most Options.MaxInput
// characters may wait.
type TextStream struct {
	o       *output
	req     Request
	text    []byte // the text written since the last that was let go
	done    int    // bytes of text synthesized
	spoken  int    // characters written before text[done:]
	written int    // characters written in all
	carry   string // the style tags open where done stands
	started bool   // a sentence was synthesized (QuickStart applies before)
	err     error  // what ended the stream
	ctx     context.Context
	lang    string // the voice's language, by which sentences end ("am 3. Mai" in German)
}

// StreamText starts synthesizing req into w, with req.Input as the first
// piece of text (it may be empty); give it the rest with Write or
// WriteString, and end it with Close. The request is checked as Stream
// checks it, except for the input; req.Format is written in its
// streaming form. ctx bounds the whole stream.
func (s *Synthesizer) StreamText(ctx context.Context, w io.Writer, req Request) (*TextStream, error) {
	v, err := s.check(req)
	if err != nil {
		return nil, err
	}
	req.Resolved = v // each piece's ParseTags looks it up no more
	req.Format.Streaming = true
	o, err := s.newOutput(w, req, v)
	if err != nil {
		return nil, err
	}
	t := &TextStream{o: o, req: req, ctx: ctx, lang: languageOf(v)}
	if req.Input != "" {
		if _, err := t.WriteString(req.Input); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Write adds text (UTF-8; a character may be split between two writes)
// and synthesizes the sentences it completes.
func (t *TextStream) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	if err := t.ctx.Err(); err != nil { // nobody to speak to: no lexicon lookup, no synthesis
		return 0, t.fail(err)
	}
	n := utf8.RuneCount(p)
	if t.written+n > t.o.s.maxStream {
		return 0, t.fail(&InputTooLongError{Length: t.written + n, Max: t.o.s.maxStream, Stream: true})
	}
	t.written += n
	t.text = append(t.text, p...)
	if err := t.synthesize(false); err != nil {
		return len(p), err
	}
	// Only what still waits counts: one write may hold many sentences.
	if n := utf8.RuneCount(t.text[t.done:]); n > t.o.s.maxInput {
		return len(p), t.fail(&InputTooLongError{Length: n, Max: t.o.s.maxInput, Waiting: true})
	}
	return len(p), nil
}

// WriteString is Write of a string.
func (t *TextStream) WriteString(s string) (int, error) { return t.Write([]byte(s)) }

// Written returns the number of characters written so far.
func (t *TextStream) Written() int { return t.written }

// Buffered returns the number of bytes written that wait for the end of
// their sentence.
func (t *TextStream) Buffered() int { return len(t.text) - t.done }

// Flush synthesizes the text written so far, whether or not its last
// sentence has ended (but not half of a tag at its end), and returns once
// its audio is written.
func (t *TextStream) Flush() error {
	if t.err != nil {
		return t.err
	}
	return t.synthesize(true)
}

// Close synthesizes what is left, ends the audio and returns the result of
// the whole stream. After an error, Close returns it with the result so
// far; w then holds audio that stops short (see Synthesizer.Stream).
func (t *TextStream) Close() (Result, error) {
	if t.err != nil {
		return t.o.result(), t.err
	}
	err := t.synthesize(true)
	if err == nil {
		// Half a tag at the very end is tag-shaped text that never
		// closed: Parse drops it, as it drops a stray delimiter's word.
		err = t.speak(string(t.text[t.done:]))
	}
	if err != nil {
		return t.o.result(), t.fail(err)
	}
	res, err := t.o.close()
	if err != nil {
		return res, t.fail(err)
	}
	t.o.release()
	t.err = ErrStreamClosed
	return res, nil
}

func (t *TextStream) fail(err error) error {
	t.err = err
	return err
}

// synthesize speaks the sentences of the pending text whose end is known,
// or all of it when force is set, up to a tag still being written.
func (t *TextStream) synthesize(force bool) error {
	pending := string(t.text[t.done:])
	limit := openTagAt(pending)
	masked := tags.Mask(pending[:limit])
	consumed := 0
	for _, end := range t.wholeGraphemes(pending, sentenceEnds(masked, t.lang, force), force) {
		if err := t.speak(pending[consumed:end]); err != nil {
			return t.fail(err)
		}
		t.done += end - consumed
		t.spoken += utf8.RuneCountInString(pending[consumed:end])
		consumed = end
	}
	if t.done > 0 { // let the spoken text go
		t.text, t.done = append([]byte(nil), t.text[t.done:]...), 0
	}
	return nil
}

// wholeGraphemes returns the sentence ends of pending that cut no
// grapheme of the request's lexicons (one found, or one the text ends
// inside of): a grapheme split between writes waits for the rest, as a
// sentence end does. With force, the last end stays.
func (t *TextStream) wholeGraphemes(pending string, ends []int, force bool) []int {
	if len(t.req.Lexicons) == 0 || len(ends) == 0 {
		return ends
	}
	text := lookupText(pending, nil)
	kept := ends[:0]
	for i, end := range ends {
		if force && i == len(ends)-1 || !lexicon.Straddles(text, end, t.req.Lexicons...) {
			kept = append(kept, end)
		}
	}
	return kept
}

// speak renders the sentences of one piece of text, which begins where
// the text synthesized so far ends.
func (t *TextStream) speak(piece string) error {
	if err := t.ctx.Err(); err != nil {
		return err
	}
	req := t.req
	req.Input = t.carry + piece
	said := piece // the piece as the engines read it
	var source func(start, end int) (int, int)
	if len(req.Lexicons) > 0 {
		x := applyLexicons(req.Input, req.Lexicons, nil)
		if n := utf8.RuneCountInString(piece) + x.grown; n > t.o.s.maxInput {
			return &InputTooLongError{Length: n, Max: t.o.s.maxInput, Lexicons: true}
		}
		// The carry is tags, which lexicons leave as they are: the
		// rewritten piece follows it.
		if x.spans != nil {
			req.Input, said = x.text, x.text[len(t.carry):]
			carry, base := utf8.RuneCountInString(t.carry), t.spoken
			source = func(start, end int) (int, int) {
				a, b := x.source(start-base+carry, end-base+carry)
				return a - carry + base, b - carry + base
			}
		}
	}
	script, err := t.o.s.ParseTags(req)
	if err != nil {
		return err
	}
	t.carry = strings.Join(script.Open, "")
	if t.req.Instructions != "" { // their tags are in the carry from now on
		t.o.res.IgnoredTags = appendNew(t.o.res.IgnoredTags, tags.ReadInstructions(t.req.Instructions).Ignored())
		t.req.Instructions = ""
	}
	t.o.res.IgnoredTags = appendNew(t.o.res.IgnoredTags, script.Ignored())
	t.o.res.ClampedTags = appendNew(t.o.res.ClampedTags, script.Clamped())
	if t.o.r.loc != nil {
		t.o.r.loc.start(said, t.spoken)
		t.o.r.loc.source = source
		if source != nil {
			t.o.r.loc.written, t.o.r.loc.writtenAt = []rune(piece), t.spoken
		} else {
			t.o.r.loc.written = nil
		}
	}
	sens := script.Sentences(pieceLen(script, t.req.Speed))
	if !hasSpeech(sens) {
		return nil // white space, closing tags or stray punctuation
	}
	whole := len(sens)
	if !t.started {
		sens = quickStart(sens, t.o.s.quick)
	}
	cut := len(sens) > whole
	t.started = true
	for i, sen := range sens {
		if err := t.o.sentence(t.ctx, sen, !cut || i > 0); err != nil {
			return err
		}
	}
	return nil
}

// hasSpeech reports whether sens hold an event or a letter or digit to
// say: punctuation alone (the "!" of "?!" arriving late) is not spoken.
func hasSpeech(sens []tags.Sentence) bool {
	for _, sen := range sens {
		for _, p := range sen.Parts {
			if p.IsEvent() || strings.IndexFunc(p.Text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
				return true
			}
		}
	}
	return false
}

// appendNew appends the names of more that list does not hold yet.
func appendNew(list, more []string) []string {
	for _, m := range more {
		if !slices.Contains(list, m) {
			list = append(list, m)
		}
	}
	return list
}

// openTagAt returns where a tag that is still being written begins at the
// end of text ("<|pa"), or len(text): text from there may yet become a
// tag, or tag-shaped text that Parse removes, so it is not spoken yet.
func openTagAt(text string) int {
	i := strings.LastIndex(text, "<|")
	switch {
	case i < 0 && strings.HasSuffix(text, "<"):
		return len(text) - 1
	case i < 0:
		return len(text)
	}
	rest := text[i:]
	if strings.Contains(rest, "|>") || strings.ContainsAny(rest, "\n") || len(rest) > maxTagLen {
		return len(text)
	}
	return i
}

// maxTagLen bounds the tag-shaped text that Parse removes (see
// tags.Parse): a "<|" further back than this cannot start one.
const maxTagLen = 64 + 4

// sentenceEnds returns the byte offsets in text, of language lang, where
// its sentences whose end is known end, in order; with force, the end of
// text ends the last.
func sentenceEnds(text, lang string, force bool) []int {
	pieces := sentence.SplitLang(text, 0, lang)
	var ends []int
	cur := 0
	for _, p := range pieces {
		i := strings.Index(text[cur:], p)
		if i < 0 {
			break
		}
		cur += i + len(p)
		ends = append(ends, cur)
	}
	if len(ends) == 0 {
		if force && strings.TrimSpace(text) != "" {
			return []int{len(text)}
		}
		return nil
	}
	last := ends[len(ends)-1]
	switch {
	case force:
		ends[len(ends)-1] = len(text)
	case !endKnown(text, last, lang):
		ends = ends[:len(ends)-1]
	}
	if n := len(ends); n > 0 && !force && nextWordOpen(text, ends[n-1]) {
		ends = ends[:n-1]
	}
	return ends
}

// nextWordOpen reports whether the sentence ending at end in text ends in
// a number and a period and is followed only by a word still being
// written: whether the period ends the sentence depends on that word
// ("am 3. Ma" may become "am 3. Mai", one sentence, or "am 3. Dann", two;
// see package engine/sentence).
func nextWordOpen(text string, end int) bool {
	rest := strings.TrimLeftFunc(text[end:], unicode.IsSpace)
	if rest == "" || strings.IndexFunc(rest, unicode.IsSpace) >= 0 {
		return false
	}
	s := strings.TrimRightFunc(text[:end], unicode.IsSpace)
	r, size := utf8.DecodeLastRuneInString(s)
	prev, _ := utf8.DecodeLastRuneInString(s[:len(s)-size])
	return r == '.' && unicode.IsDigit(prev)
}

// endKnown reports whether the last sentence of text, of language lang,
// which ends at end, is known to end there although nothing but white
// space follows it.
func endKnown(text string, end int, lang string) bool {
	s := strings.TrimRight(text[:end], "\"')]}”’»」』")
	r, size := utf8.DecodeLastRuneInString(s)
	prev, _ := utf8.DecodeLastRuneInString(s[:len(s)-size])
	switch {
	case r == '…' || r == '.' && prev == '.':
		return false // an ellipsis: "wait... what" goes on
	case r == '.' && unicode.IsDigit(prev) && end == len(text):
		return false // "3." may become "3.5"
	}
	// The splitter's own rules, with a sentence that starts after it.
	probe := sentence.SplitLang(text[:end]+" Probe.", 0, lang)
	return len(probe) > 0 && probe[len(probe)-1] == "Probe." &&
		(len(probe) < 2 || strings.HasSuffix(text[:end], probe[len(probe)-2]))
}

// Package tags parses the audio tags that make speech expressive.
//
// Tags are written inside the input text:
//
//	<|name|>         a style from here on, or an event here
//	<|name:value|>   the same with a value, such as <|rate:1.2|>
//	<|/name|>        the end of a style
//
// A style tag applies from where it stands until its closing tag,
// <|reset|> or the end of the input, so a tag placed before the text
// styles all of it. An event tag happens where it stands. Tag text is never
// read aloud: a well-formed tag with an unknown name, tag-shaped text that
// is not well formed (<|Pause|>, <|pause 1s|>) and words joined to a stray
// delimiter ("<|x") are removed and reported; strict parsing rejects them
// instead. Other text stays as written.
//
// Vocabulary v1:
//
//	pause, pause:250ms, pause:1.5s   silence (500 ms by default, at most 5 s)
//	slow, fast, rate:X               speaking rate ×0.75, ×1.3, ×X (0.25–4)
//	high, low, pitch:±N              pitch +4, −4, N semitones (±12)
//	loud, soft, volume:X             +4 dB, −6 dB, ×X (0–2)
//	whisper, emphasis, spell         whispered, stressed, spelled out
//	excited, sad, calm, angry        presets of rate, pitch, range, loudness
//	breath, sigh, laugh, cough       non-verbal events
//	voice:ID                         another voice of the catalog
//	phoneme:IPA                      the text said as these phonemes
//	                                 ("_" parts words; SSML's phoneme)
//	reset                            ends every open style
//
// Parse turns input into a Script: text parts with their resolved Style,
// and events. Script.Sentences splits it into sentences for streaming;
// styles carry across sentence boundaries. Renderers (package tts) map a
// Style onto an engine's native controls and apply the rest on PCM.
//
// docs/tags.md describes how each engine renders each tag.
package tags

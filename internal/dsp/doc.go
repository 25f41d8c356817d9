// Package dsp holds the signal processing shared by every engine: sample
// rate conversion and the effects that render audio tags on PCM.
package dsp

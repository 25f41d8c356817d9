// Package flaclpc chooses how FLAC codes one block of samples: constant,
// verbatim, a fixed polynomial predictor, or linear prediction found by
// windowed autocorrelation and Levinson-Durbin recursion, with quantized
// coefficients and a Rice partition search for the residual. It computes
// the choice and its residual; writing the bits is left to a FLAC frame
// writer.
package flaclpc

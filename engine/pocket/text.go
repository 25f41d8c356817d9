package pocket

import "github.com/voxkit/voxkit/engine/internal/sherpatext"

// Text is cut into the pieces the model speaks one at a time as
// sherpa-onnx cuts it for PocketTTS, so both speak the same pieces: at
// sentence ends (. ! ? and their full-width forms), then pieces shorter
// than minPiece code points are joined to the next, then pieces longer
// than maxPiece are cut at their last space or clause mark before it.
const (
	minPiece = 30
	maxPiece = 200
)

// pieces cuts text into the pieces to speak, in order.
func pieces(text string) []string {
	var out []string
	for _, s := range sherpatext.MergeShort(sherpatext.Sentences(text), minPiece) {
		out = append(out, sherpatext.SplitLong(s, maxPiece)...)
	}
	return out
}

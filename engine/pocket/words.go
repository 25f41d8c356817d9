package pocket

import (
	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/internal/sherpatext"
)

// emitWithWords passes the chunks of one piece to emit with the piece's
// words, spread over its audio in proportion to their length in
// characters (estimates: the model gives no alignment), each in the chunk
// where it begins. *sent counts the samples emitted before, and is
// advanced.
func emitWithWords(text string, p sherpatext.Span, chunks [][]float32, sent *int, emit engine.ChunkFunc) error {
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	timed := sherpatext.Spread(text, p, *sent, total)
	chunkStart := *sent
	for i, c := range chunks {
		chunkEnd := chunkStart + len(c)
		ch := engine.Chunk{Samples: c, SampleRate: SampleRate}
		for len(timed) > 0 && (timed[0].From < chunkEnd || i == len(chunks)-1) {
			ch.Words = append(ch.Words, timed[0])
			timed = timed[1:]
		}
		if err := emit(ch); err != nil {
			return err
		}
		chunkStart = chunkEnd
	}
	*sent = chunkStart
	return nil
}

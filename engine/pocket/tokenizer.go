package pocket

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// spaceMark is SentencePiece's visible space, "▁".
const spaceMark = "\u2581"

// noScore stands for "no segmentation reaches here" in the tokenizer's
// search, as in sherpa-onnx (a float32 sum with it stays it).
const noScore float32 = -1e30

// tokenizer splits text into SentencePiece pieces by the highest total
// score (a unigram model's Viterbi search), given the pieces' ids
// (vocab.json) and scores (token_scores.json). A byte that starts no piece
// becomes its byte piece, <0xNN>. The segmentation is sherpa-onnx's: the
// same pieces for the same text, ties going to the shorter piece.
type tokenizer struct {
	root  *trieNode
	bytes [256]piece // the <0xNN> pieces; id -1 when the vocabulary lacks one
}

type piece struct {
	id    int64
	score float32
}

type trieNode struct {
	next map[byte]*trieNode
	piece
}

// loadTokenizer reads vocab.json ({"piece": id}) and token_scores.json
// ({"piece": score}).
func loadTokenizer(vocabPath, scoresPath string) (*tokenizer, error) {
	var vocab map[string]int64
	var scores map[string]float32
	if err := readJSON(vocabPath, &vocab); err != nil {
		return nil, err
	}
	if err := readJSON(scoresPath, &scores); err != nil {
		return nil, err
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("pocket: %s holds no pieces", vocabPath)
	}
	t := &tokenizer{root: &trieNode{piece: piece{id: -1}}}
	for text, id := range vocab {
		n := t.root
		for i := 0; i < len(text); i++ {
			if n.next == nil {
				n.next = map[byte]*trieNode{}
			}
			c, ok := n.next[text[i]]
			if !ok {
				c = &trieNode{piece: piece{id: -1}}
				n.next[text[i]] = c
			}
			n = c
		}
		n.piece = piece{id: id, score: scores[text]}
	}
	for b := range t.bytes {
		name := fmt.Sprintf("<0x%02X>", b)
		if id, ok := vocab[name]; ok {
			t.bytes[b] = piece{id: id, score: scores[name]}
		} else {
			t.bytes[b] = piece{id: -1, score: noScore}
		}
	}
	return t, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("pocket: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("pocket: %s: %w", path, err)
	}
	return nil
}

// encode returns the piece ids of text. Spaces become "▁", and one is put
// before text that does not start with it. It fails when a byte of text
// has neither a piece nor a byte piece.
func (t *tokenizer) encode(text string) ([]int64, error) {
	s := strings.ReplaceAll(text, " ", spaceMark)
	if !strings.HasPrefix(s, spaceMark) {
		s = spaceMark + s
	}
	n := len(s)
	best := make([]float32, n+1) // best score of a segmentation of s[i:]
	next := make([]int, n+1)     // where the best segmentation's first piece ends
	ids := make([]int64, n+1)    // and that piece's id
	for i := range n {
		best[i] = noScore
		next[i] = -1
	}
	for i := n - 1; i >= 0; i-- {
		node := t.root
		for j := i; j < n; j++ {
			node = node.next[s[j]]
			if node == nil {
				break
			}
			if node.id >= 0 {
				if score := node.score + best[j+1]; score > best[i] {
					best[i], next[i], ids[i] = score, j+1, node.id
				}
			}
		}
		if next[i] < 0 {
			b := t.bytes[s[i]]
			if b.id < 0 {
				return nil, fmt.Errorf("pocket: the vocabulary has no piece for byte 0x%02X of %q", s[i], text)
			}
			best[i], next[i], ids[i] = b.score+best[i+1], i+1, b.id
		}
	}
	var out []int64
	for i := 0; i < n; i = next[i] {
		out = append(out, ids[i])
	}
	return out, nil
}

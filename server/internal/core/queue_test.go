package core

import (
	"strings"
	"testing"
)

// TestQueueJoinsText: text waiting behind text is one message, so a
// stream fed word by word is held to the byte budget alone; flushes are
// messages of their own, held to MaxOps; what was taken no longer
// counts.
func TestQueueJoinsText(t *testing.T) {
	q := NewQueue()
	for range 3 * MaxOps {
		if !q.Put(Op{Text: "Word. "}, 6) {
			t.Fatal("appends refused: they should wait as one message")
		}
	}
	if ops := q.take(); len(ops) != 1 || ops[0].Text != strings.Repeat("Word. ", 3*MaxOps) {
		t.Fatalf("%d ops waited, want the appends joined as one", len(ops))
	}

	for i := range MaxOps {
		if !q.Put(Op{Flush: true, Ref: "f"}, 1) {
			t.Fatalf("flush %d refused, want %d to wait", i, MaxOps)
		}
	}
	if q.Put(Op{Flush: true, Ref: "f"}, 1) {
		t.Errorf("flush %d accepted: more than MaxOps messages wait", MaxOps+1)
	}
	q.take()

	if !q.Put(Op{Text: "a"}, MaxPending) || q.Put(Op{Text: "b"}, 1) {
		t.Error("the byte budget does not hold: want MaxPending bytes to wait, not one more")
	}
	q.take()
	if !q.Put(Op{Text: "c"}, MaxPending) {
		t.Error("what was taken still counts")
	}

	// Text after a flush does not join the text before it.
	q.take()
	q.Put(Op{Text: "one"}, 3)
	q.Put(Op{Flush: true}, 0)
	q.Put(Op{Text: "two"}, 3)
	if ops := q.take(); len(ops) != 3 || ops[0].Text != "one" || !ops[1].Flush || ops[2].Text != "two" {
		t.Errorf("ops %+v, want one, the flush, two", ops)
	}
}

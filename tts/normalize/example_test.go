package normalize_test

import (
	"fmt"

	"github.com/voxkit/voxkit/tts/normalize"
)

func ExampleNormalize() {
	t := normalize.Normalize("Pay $9.50 by Nov 24, 2026.", "en-us")
	fmt.Println(t.Text)
	// Which written characters made the word "fifty"?
	src := "Pay $9.50 by Nov 24, 2026."
	i := len("Pay nine dollars and ")
	start, end := t.Source(i, i+len("fifty"))
	fmt.Println(src[start:end])
	// Output:
	// Pay nine dollars and fifty cents by November twenty fourth, twenty twenty six.
	// $9.50
}

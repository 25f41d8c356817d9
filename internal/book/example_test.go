package book_test

import (
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/internal/book"
)

func ExampleParse() {
	md := "# The Harbour\n\nShips **came** in at [dawn](https://example.com).\n\n" +
		"## Nightfall\n\n- lamps\n- bells\n"
	chapters, err := book.Parse("harbour.md", "text/markdown", []byte(md))
	if err != nil {
		panic(err)
	}
	for _, c := range chapters {
		fmt.Printf("%s: %q\n", c.Title, c.Text)
	}

	_, err = book.Parse("old.txt", "text/plain", []byte("caf\xe9"))
	var fe *book.FormatError
	fmt.Println(errors.As(err, &fe), errors.Is(err, book.ErrEncoding))
	fmt.Println(err)
	// Output:
	// The Harbour: "Ships came in at dawn."
	// Nightfall: "lamps\nbells"
	// true true
	// book: text: the text is not UTF-8 (invalid byte 0xe9 at offset 3); save it as UTF-8
}

package tags_test

import (
	"errors"
	"fmt"

	"github.com/voxkit/voxkit/tags"
)

func ExampleParse() {
	script, err := tags.Parse("<|slow|>Hello there.<|pause:250ms|> <|whisper|>It's a secret.", tags.Options{})
	if err != nil {
		panic(err)
	}
	for _, p := range script.Parts {
		fmt.Println(p)
	}
	// Output:
	// text "Hello there." {rate=0.75}
	// event pause 250ms {rate=0.75}
	// text " " {rate=0.75}
	// text "It's a secret." {rate=0.75 whisper}
}

func ExampleParse_ignored() {
	script, _ := tags.Parse("Hi <|wink|>there<|rate:9|>!", tags.Options{})
	fmt.Printf("%q\n", script.Text())
	fmt.Println(script.Ignored(), script.Clamped())
	for _, e := range script.Issues {
		fmt.Println(e)
	}
	// Output:
	// "Hi there!"
	// [wink] [rate:9]
	// tags: unknown tag <|wink|> at 3
	// tags: value out of range <|rate:9|> at 16: clamped to 4
}

func ExampleParse_strict() {
	_, err := tags.Parse("Hi <|wink|>there", tags.Options{Strict: true})
	var te *tags.TagError
	if errors.As(err, &te) {
		fmt.Println(te.Tag, te.Pos, errors.Is(err, tags.ErrUnknownTag))
	}
	fmt.Println(err)
	// Output:
	// <|wink|> 3 true
	// tags: unknown tag <|wink|> at 3
}

func ExampleScript_Sentences() {
	script, _ := tags.Parse("<|loud|>One. Two.<|/loud|> Three<|breath|>", tags.Options{})
	for i, s := range script.Sentences(0) {
		fmt.Println(i, s.Parts)
	}
	// Output:
	// 0 [text "One." {gain=+4.0dB}]
	// 1 [text "Two." {gain=+4.0dB}]
	// 2 [text "Three" {neutral} event breath {neutral}]
}

package testserver

// whoPLS aliases WHO to the organization's name.
const WhoPLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>WHO</grapheme><alias>World Health Organization</alias></lexeme>
</lexicon>`

// near reports whether two audio lengths are within 5% of each other.
func Near(a, b int) bool { return a*100 >= b*95 && a*100 <= b*105 }

// Package book turns an uploaded book into chapters of plain text, ready to
// be spoken: plain text (one chapter, or split at lines such as
// "Chapter 3" or "CHAPTER III" when a text has several of them), Markdown
// (each "#" or "##" heading starts a chapter and becomes its title; the
// rest of the Markdown syntax is stripped), an HTML page (cut at its h1
// and h2 headings) and EPUB 2 and 3 (the spine's
// reading order, the chapter titles of the navigation document or of
// toc.ncx, each XHTML document as text with its paragraphs).
//
// Parse is the common case; a Parser value sets the limits that guard
// against archives that decompress to far more than they weigh. Every
// error about the input itself is a *FormatError, which says what is
// wrong; it wraps ErrEmpty, ErrEncoding, ErrTooLarge or ErrUnsupported
// where one of those is the reason, so that a server can answer 400 (or
// 413) with its message.
package book

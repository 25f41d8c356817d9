// Package id3 writes ID3v2 tags of chapters, to put before an MP3 stream:
// a CHAP frame per chapter (its start and end in milliseconds and its
// title as a TIT2 sub-frame) and a CTOC frame listing them in order, as
// the ID3v2 Chapter Frame Addendum (1.0) defines them. Podcast and
// audiobook players and FFmpeg (ffprobe -show_chapters) read them.
//
// Tags are ID3v2.3 by default, the version most players read; Version 4
// writes ID3v2.4 (UTF-8 text, sync-safe frame sizes).
package id3

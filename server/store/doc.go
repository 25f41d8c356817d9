// Package store defines the Store interface behind which voxkit keeps
// accounts, API keys and voice clones, and the rules every
// implementation shares (key format and hashing, account names, what a
// stored voice may hold). Implementations live in packages of their own, as
// database/sql keeps drivers apart: server/store/sqlite is the embedded
// one (modernc.org/sqlite, pure Go), server/store/postgres the one for
// several servers on one database, and a program that brings its own
// store links neither. The two share their queries and transactions,
// written once in server/store/sqlstore over database/sql; each keeps
// only its SQL dialect, its connection and its migrations. Optional interfaces, as database/sql/driver has
// them, add what a store may keep beside: Sessions (playground passwords
// and sign-ins), Lexicons (accounts' pronunciation lexicons, their
// versions and default lexicons), Limiter (request counts shared by every
// server on the store), VoiceWatcher (telling each server of clones the
// others made or deleted) and Pinger (whether it is reachable, for
// readiness).
//
// A lexicon is a W3C PLS document that a store keeps as bytes, with the
// count of lexemes its caller found in it: parsing belongs to the
// lexicon package. Each change stores a new version with an id of its own
// (ElevenLabs' dictionaries have version ids); the newest is the latest,
// which is used when no version is named, and the oldest beyond
// LexiconVersionsKept are removed. Like voice clones, lexicons are per
// account: their ids are unique within an account, and another account's
// lexicon is not found, whatever is asked of it.
//
// An API key is "sk_" followed by 43 base62 characters (256 random bits).
// Only its SHA-256 hash and a short display prefix ("sk_" and the next 8
// characters) are stored; the plaintext exists once, in the return value
// of CreateKey. A key this random needs no slow password hash: the hash
// only keeps a copy of the database from being a copy of the keys.
// Verification looks the key up by its prefix and compares hashes in
// constant time.
package store

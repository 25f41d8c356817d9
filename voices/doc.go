// Package voices is the voice catalog: which voice ids exist, who may use
// them, and which engine voice each one selects.
//
// A voice is either global (Owner is empty: every account may use it) or a
// clone owned by one account. The catalog answers lookups in the name of an
// account, so one account never sees or uses another account's voices.
package voices

package wire

import "github.com/voxkit/voxkit/server/internal/fault"

// Error is an API error: voxkit's own error (fault.Error), which the
// core and its rooms return and which this package's OpenAI shape
// renders as {"error":{"message","type","param","code"}}.
type Error = fault.Error

// The error types and codes, as fault names them, for clients of the
// OpenAI shapes.
const (
	TypeInvalidRequest     = fault.TypeInvalidRequest
	TypeProxy              = fault.TypeProxy
	TypeServer             = fault.TypeServer
	TypePermission         = fault.TypePermission
	TypeRateLimit          = fault.TypeRateLimit
	CodeInvalidJSON        = fault.CodeInvalidJSON
	CodeMissingParameter   = fault.CodeMissingParameter
	CodeInvalidType        = fault.CodeInvalidType
	CodeInvalidValue       = fault.CodeInvalidValue
	CodeInvalidTags        = fault.CodeInvalidTags
	CodeStringTooShort     = fault.CodeStringTooShort
	CodeStringTooLong      = fault.CodeStringTooLong
	CodeAudioTooLong       = fault.CodeAudioTooLong
	CodeDecimalTooSmall    = fault.CodeDecimalTooSmall
	CodeDecimalTooLarge    = fault.CodeDecimalTooLarge
	CodeUnsupportedFormat  = fault.CodeUnsupportedFormat
	CodeMissingAPIKey      = fault.CodeMissingAPIKey
	CodeInvalidAPIKey      = fault.CodeInvalidAPIKey
	CodeVoiceNotFound      = fault.CodeVoiceNotFound
	CodeModelNotFound      = fault.CodeModelNotFound
	CodeNotFound           = fault.CodeNotFound
	CodeMethodNotAllowed   = fault.CodeMethodNotAllowed
	CodeBodyTooLarge       = fault.CodeBodyTooLarge
	CodeUnsupportedMedia   = fault.CodeUnsupportedMedia
	CodeEngineError        = fault.CodeEngineError
	CodeEngineCrashed      = fault.CodeEngineCrashed
	CodeInternalError      = fault.CodeInternalError
	CodeSignupDisabled     = fault.CodeSignupDisabled
	CodeAccountExists      = fault.CodeAccountExists
	CodeKeyNotFound        = fault.CodeKeyNotFound
	CodeServiceUnavailable = fault.CodeServiceUnavailable
	CodeQueueFull          = fault.CodeQueueFull
	CodeRequestTimeout     = fault.CodeRequestTimeout
	CodeUpgradeRequired    = fault.CodeUpgradeRequired
	CodeInsufficientScope  = fault.CodeInsufficientScope
	CodeUnauthenticated    = fault.CodeUnauthenticated
	CodeKeyLimit           = fault.CodeKeyLimit
	CodeVoiceLimit         = fault.CodeVoiceLimit
	CodeOriginNotAllowed   = fault.CodeOriginNotAllowed
	CodeBufferFull         = fault.CodeBufferFull
	CodeIdleTimeout        = fault.CodeIdleTimeout
	CodeInvalidCredentials = fault.CodeInvalidCredentials
	CodeTooManyAttempts    = fault.CodeTooManyAttempts
	CodeBadCSRFToken       = fault.CodeBadCSRFToken
	CodeSessionExpired     = fault.CodeSessionExpired
	CodeRateLimit          = fault.CodeRateLimit
	CodeServerBusy         = fault.CodeServerBusy
	CodeAudioTooShort      = fault.CodeAudioTooShort
	CodeAudioSilent        = fault.CodeAudioSilent
	CodeUnsupportedAudio   = fault.CodeUnsupportedAudio
	CodeInvalidLexicon     = fault.CodeInvalidLexicon
	CodeLexiconTooLarge    = fault.CodeLexiconTooLarge
	CodeLexiconNotFound    = fault.CodeLexiconNotFound
	CodeLexiconLimit       = fault.CodeLexiconLimit
	CodeLexiconStorage     = fault.CodeLexiconStorage
	CodeSampleNeeded       = fault.CodeSampleNeeded
	CodeBadSample          = fault.CodeBadSample
	CodeTooManyContexts    = fault.CodeTooManyContexts
	CodeUnknownParameter   = fault.CodeUnknownParameter
	CodeVoiceExists        = fault.CodeVoiceExists
)

package fault

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/voxkit/voxkit/lexicon"
)

// Codes of the lexicon errors.
const (
	CodeInvalidLexicon  = "invalid_lexicon"
	CodeLexiconTooLarge = "lexicon_too_large"
	CodeLexiconNotFound = "lexicon_not_found"
	CodeLexiconLimit    = "lexicon_limit_reached"
	CodeLexiconStorage  = "lexicon_storage_limit_reached"
)

// BadLexicon is the 400 of a PLS document lexicon.Parse refused, naming
// where it is at fault.
func BadLexicon(err error) *Error {
	var syn *lexicon.SyntaxError
	var limit *lexicon.LimitError
	switch {
	case errors.As(err, &syn):
		return BadRequest(CodeInvalidLexicon, "", "The lexicon is not a PLS 1.0 document voxkit takes: line %d, column %d: %s.", syn.Line, syn.Column, Clip(syn.Msg, 300))
	case errors.As(err, &limit) && limit.Line > 0:
		return BadRequest(CodeLexiconTooLarge, "", "The lexicon is too large: line %d, column %d: more than %d %s.", limit.Line, limit.Column, limit.Max, limit.What)
	case errors.As(err, &limit):
		return BadRequest(CodeLexiconTooLarge, "", "The lexicon is too large: more than %d %s.", limit.Max, limit.What)
	}
	return BadRequest(CodeInvalidLexicon, "", "The lexicon is not one voxkit takes: %s.", Clip(err.Error(), 300))
}

// LexiconNotFound is the 404 of a lexicon the account does not have
// (another account's is as unknown). Its words serve every door: the
// vendors call a lexicon a pronunciation dictionary.
func LexiconNotFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: CodeLexiconNotFound, Param: "lexicons",
		Message: fmt.Sprintf("This account has no lexicon (pronunciation dictionary) %s.", Echo(id))}
}

// LexiconVersionNotFound is the 404 of a version that the account's
// lexicon id does not have.
func LexiconVersionNotFound(id, version string) *Error {
	return &Error{Status: http.StatusNotFound, Type: TypeInvalidRequest, Code: CodeLexiconNotFound, Param: "lexicons",
		Message: fmt.Sprintf("The lexicon (pronunciation dictionary) %s has no version %s.", Echo(id), Echo(version))}
}

// NoLexicons is the answer of a server whose store keeps no lexicons to
// a request that names one.
func NoLexicons() *Error {
	return BadRequest(CodeInvalidValue, "lexicons", "This server keeps no pronunciation lexicons.")
}

// LexiconLimit is the 400 of an account that holds the most lexicons it
// may.
func LexiconLimit(max int) *Error {
	return BadRequest(CodeLexiconLimit, "", "This account holds %d lexicons, the most it may; delete one first.", max)
}

// LexiconStorage is the 400 of a change that would leave an account's
// lexicons holding more than max bytes of documents.
func LexiconStorage(max int64) *Error {
	return BadRequest(CodeLexiconStorage, "", "This account's lexicons would hold more than %s of documents, every kept version counted, the most they may; delete a lexicon first.", bytesText(max))
}

// bytesText writes n bytes in MB or MiB when it is a whole number of
// them.
func bytesText(n int64) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%d MB", n/1e6)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Package layers holds the test of the module's import graph: which
// packages may depend on which. It has no code.
package layers

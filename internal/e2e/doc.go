// Package e2e holds voxkit's end-to-end tests: the real server handler on
// loopback, driven from the outside the way users and graders drive it —
// the official OpenAI Node SDK (installed by .ci/install-node-sdk.sh), raw
// HTTP as curl sends it, adversarial bodies and a fuzz target, WebSocket
// abuse, and a peer check of the Piper (ONNX) phoneme ids and audio
// against an independent Python implementation.
//
// The package has no non-test code.
package e2e

package admin

import (
	"time"

	"github.com/voxkit/voxkit/server/internal/throttle"
)

// SetAddressAttempts makes a client address's sign-in bucket hold burst
// attempts, refilled one every every, until the returned restore is
// called: a test that empties it must not race the refill. Tests that
// call it must not run in parallel.
func SetAddressAttempts(burst int, every time.Duration) (restore func()) {
	old := addressAttempts
	addressAttempts = throttle.Rate{Burst: burst, Every: every}
	return func() { addressAttempts = old }
}

package core

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
)

// Engine crashes are contained (the engine process that crashed is
// replaced), but each costs the server a process start beside the
// request, which every account's requests wait behind. An account whose
// requests crash an engine CrashesPerMinute times within a minute is
// refused speech (429, Retry-After) until Config.CrashCooldown has
// passed since its last crash; a crash of a request admitted before the
// cooldown began extends it. Crash log lines are rate-limited: one
// ERROR per crashLogEvery, with the count of those left out.

// CrashesPerMinute is how many engine crashes an account's requests may
// cause within a minute before its cooldown (Config.CrashCooldown).
const CrashesPerMinute = 5

// crashLogEvery is the least time between two crash log lines.
const crashLogEvery = 10 * time.Second

type crashes struct {
	mu       sync.Mutex
	accounts map[string]*crashRecord
	// logged is when the last crash was logged; suppressed counts the
	// crashes since, not logged.
	logged     time.Time
	suppressed int
}

type crashRecord struct {
	times []time.Time // within the last minute, oldest first
	until time.Time   // refused until then
}

// crashed counts a crash of account's request at now, and reports
// whether it is to be logged, with the crashes left out of the log since
// the last line.
func (cs *crashes) crashed(account string, now time.Time, cooldown time.Duration) (log bool, suppressed int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.accounts == nil {
		cs.accounts = map[string]*crashRecord{}
	}
	// Forget what is past, so the map holds only accounts crashing now.
	for name, r := range cs.accounts {
		r.trim(now)
		if len(r.times) == 0 && !now.Before(r.until) {
			delete(cs.accounts, name)
		}
	}
	r := cs.accounts[account]
	if r == nil {
		r = &crashRecord{}
		cs.accounts[account] = r
	}
	r.times = append(r.times, now)
	if cooldown > 0 && len(r.times) >= CrashesPerMinute {
		r.until = now.Add(cooldown)
	}
	if now.Sub(cs.logged) < crashLogEvery {
		cs.suppressed++
		return false, 0
	}
	cs.logged, suppressed, cs.suppressed = now, cs.suppressed, 0
	return true, suppressed
}

func (r *crashRecord) trim(now time.Time) {
	i := 0
	for i < len(r.times) && now.Sub(r.times[i]) >= time.Minute {
		i++
	}
	r.times = r.times[i:]
}

// coolingDown returns how long account is still refused, 0 if it is not.
func (cs *crashes) coolingDown(account string, now time.Time) time.Duration {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if r := cs.accounts[account]; r != nil && now.Before(r.until) {
		return r.until.Sub(now)
	}
	return 0
}

// crashCooldown is AdmitSpeech's refusal of an account in its cooldown.
// A gateway's key carries every account of the gateway, which keeps
// their crashes itself: a worker neither counts them against it nor
// refuses it (that would refuse every account of the gateway, on one
// worker after another).
func (c *Core) crashCooldown(ctx context.Context, account string) *fault.Error {
	if route.GatewayCaller(ctx) {
		return nil
	}
	left := c.crashes.coolingDown(account, time.Now())
	if left <= 0 {
		return nil
	}
	retry := max(1, int(left.Seconds()+0.999))
	return &fault.Error{Status: http.StatusTooManyRequests, Type: fault.TypeRateLimit, Code: fault.CodeRateLimit,
		Message: fmt.Sprintf("Rate limit reached: this account's requests crashed the speech engine %d times within a minute; "+
			"speech is refused for %d s. Sending the same input again will crash it again.", CrashesPerMinute, retry),
		RetryAfter: time.Duration(retry) * time.Second}
}

// engineCrashed counts a crash of account's request and logs it, unless
// a crash was logged within crashLogEvery. On a gateway the crash is a
// worker's engine_crashed answer.
func (c *Core) engineCrashed(ctx context.Context, log *slog.Logger, account string, err error) {
	cooldown := c.CrashCooldown
	if route.GatewayCaller(ctx) {
		cooldown = 0
	}
	if ok, suppressed := c.crashes.crashed(account, time.Now(), cooldown); ok {
		log.Error("server: synthesis failed: the engine crashed", "account", account, "err", err,
			"crashes_not_logged", suppressed)
	}
}

// Package browsertest starts the headless Chromium that the browser tests
// drive (through chromedp), one per test.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Start launches Chromium for t and returns a chromedp context of a new
// tab, which ends after timeout or with the test. The test is skipped
// with -short, and when Chromium is not installed (it fails instead under
// CI, whose set-up installs it). Options in extra are added to the ones
// every test uses, e.g. a fake microphone.
func Start(t testing.TB, timeout time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests are slow; make test runs them")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (.ci/deps.sh test installs it)")
		}
		t.Skip("chromium is not installed")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
	opts = append(opts, extra...)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("chromium does not start: %v", err)
	}
	ctx, cancel = context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	return ctx
}

// FakeMicrophone is the extra options of Start that make the WAV file wav
// Chromium's microphone, played in a loop, and grant every page its use
// without asking.
func FakeMicrophone(wav string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", wav),
	}
}

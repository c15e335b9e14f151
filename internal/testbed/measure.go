package testbed

import (
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"
)

// ProfileCPU writes a CPU profile of this process to path until the
// returned stop is called; with no path it profiles nothing.
func ProfileCPU(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// CPUTime is the user and system CPU time this process has used so far
// (getrusage): around a piece of work, what it cost whatever else the
// machine runs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Percentile is the p-quantile (0 < p ≤ 1) of sorted durations by the
// nearest rank: the smallest duration at least a fraction p of them do
// not exceed. It is 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// The tolerance keeps p·n that is whole in exact arithmetic whole
	// in floating point (0.9·10 is not quite 9).
	rank := int(math.Ceil(p*float64(len(sorted)) - 1e-9))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Describe sorts durations and gives their p50, p90, p99, p99.9 and
// maximum in milliseconds, and how many there are.
func Describe(durations []time.Duration) string {
	if len(durations) == 0 {
		return "none (n=0)"
	}
	slices.Sort(durations)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  p99.9 %s  max %s (n=%d)",
		ms(Percentile(durations, 0.5)), ms(Percentile(durations, 0.9)), ms(Percentile(durations, 0.99)),
		ms(Percentile(durations, 0.999)), ms(durations[len(durations)-1]), len(durations))
}

// Package par runs independent simulations in parallel with a fixed order
// of results, so output does not depend on how many run at once.
package par

import (
	"runtime"
	"sync"
)

// Do calls f(i) for every i in [0, n), up to workers at a time (0 or less:
// GOMAXPROCS; never more than n), and returns the error of the lowest i that failed, with i.
// Each f(i) must write only its own results.
func Do(n, workers int, f func(i int) error) (int, error) {
	return DoReport(n, workers, f, nil)
}

// DoReport is Do that also calls report, if not nil, with how many calls
// have returned, each time one does (from one goroutine at a time).
func DoReport(n, workers int, f func(i int) error, report func(done, n int)) (int, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n) // no goroutine without a job: a huge count costs nothing
	errs := make([]error, n)
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
				if report != nil {
					mu.Lock()
					done++
					report(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}

// Package par runs independent simulations in parallel with a fixed order
// of results, so output does not depend on how many run at once.
package par

import (
	"runtime"
	"sync"
)

// Do calls f(i) for every i in [0, n), up to workers at a time (0 or less:
// GOMAXPROCS), and returns the error of the lowest i that failed, with i.
// Each f(i) must write only its own results.
func Do(n, workers int, f func(i int) error) (int, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
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

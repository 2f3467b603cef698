// Package retry runs a function until it succeeds.
package retry

import "time"

// Do calls f up to attempts times, waiting between failures, and returns the
// last error.
func Do(attempts int, wait time.Duration, f func() error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = f(); err == nil {
			return nil
		}
		time.Sleep(wait)
	}
	return err
}

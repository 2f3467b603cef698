package retry

import "time"

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

package counter

import "sync"

type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

func New() *Counter { return &Counter{n: map[string]int{}} }

func (c *Counter) Inc(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[key]++
}

func (c Counter) Reset(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.n, key)
}

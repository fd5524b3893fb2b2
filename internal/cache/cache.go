// Package cache is the one bounded cache of built values the engine's
// caches share: a value is built on first use by one goroutine while
// others asking for the same key wait for it, a failed build is not kept,
// and when the built values' costs add up to more than the bound the least
// recently used are dropped (the value just built is always kept, and one
// still being built is never dropped).
package cache

import (
	"container/list"
	"sync"
)

// Cache maps keys to built values. Safe for concurrent use.
type Cache[K comparable, V any] struct {
	max  int64
	cost func(V) int64

	mu    sync.Mutex
	m     map[K]*entry[K, V]
	lru   *list.List // of *entry[K, V], most recent first
	total int64
}

type entry[K comparable, V any] struct {
	key   K
	ready chan struct{} // closed when built
	val   V
	err   error
	elem  *list.Element
}

// New returns a cache keeping built values whose costs sum to at most max;
// cost nil counts each value as 1, bounding the number of values.
func New[K comparable, V any](max int64, cost func(V) int64) *Cache[K, V] {
	if cost == nil {
		cost = func(V) int64 { return 1 }
	}
	return &Cache[K, V]{max: max, cost: cost, m: map[K]*entry[K, V]{}, lru: list.New()}
}

// Get returns the value of k, calling build once to make it.
func (c *Cache[K, V]) Get(k K, build func() (V, error)) (V, error) {
	c.mu.Lock()
	if e := c.m[k]; e != nil {
		c.lru.MoveToFront(e.elem)
		c.mu.Unlock()
		<-e.ready
		return e.val, e.err
	}
	e := &entry[K, V]{key: k, ready: make(chan struct{})}
	c.m[k] = e
	e.elem = c.lru.PushFront(e)
	c.mu.Unlock()

	e.val, e.err = build()

	c.mu.Lock()
	defer c.mu.Unlock()
	close(e.ready)
	if c.m[k] != e { // removed while it was built: not counted
		return e.val, e.err
	}
	if e.err != nil {
		c.drop(e)
		return e.val, e.err
	}
	c.total += c.cost(e.val)
	for el := c.lru.Back(); el != nil && c.total > c.max; {
		prev := el.Prev()
		if x := el.Value.(*entry[K, V]); x != e {
			select {
			case <-x.ready:
				c.drop(x)
			default: // still building: not counted yet
			}
		}
		el = prev
	}
	return e.val, e.err
}

// Remove drops k's value, if any; a build under way finishes for its
// callers but is not kept.
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[k]; e != nil {
		c.drop(e)
	}
}

// drop removes e (c.mu held), giving back a built value's cost.
func (c *Cache[K, V]) drop(e *entry[K, V]) {
	delete(c.m, e.key)
	c.lru.Remove(e.elem)
	select {
	case <-e.ready:
		if e.err == nil {
			c.total -= c.cost(e.val)
		}
	default: // still building: its cost was never added
	}
}

// Held is what the cache holds: the built values' summed cost, and the
// number of values (built or being built).
func (c *Cache[K, V]) Held() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, len(c.m)
}

package access

import (
	"sync"

	"frameindex/internal/cache"
)

// versionCache keeps one value per dataset id, for one version at a time:
// the shared bounded cache (internal/cache) keyed by id and version, with
// an id's older version dropped when a newer one is asked for.
type versionCache[T any] struct {
	c *cache.Cache[versionKey, T]

	mu     sync.Mutex
	latest map[string]int // id -> the version last asked for
}

type versionKey struct {
	id      string
	version int
}

func newVersionCache[T any](maxBytes int64, size func(T) int64) *versionCache[T] {
	return &versionCache[T]{c: cache.New[versionKey](maxBytes, size), latest: map[string]int{}}
}

// get returns the value of id at version, building it with build once.
func (c *versionCache[T]) get(id string, version int, build func() (T, error)) (T, error) {
	c.mu.Lock()
	if v, ok := c.latest[id]; ok && v != version {
		c.c.Remove(versionKey{id, v})
	}
	c.latest[id] = version
	c.mu.Unlock()
	return c.c.Get(versionKey{id, version}, build)
}

// held is what the cache holds: bytes and values.
func (c *versionCache[T]) held() (int64, int) { return c.c.Held() }

package access

import (
	"container/list"
	"sync"
)

// versionCache keeps one value per dataset id, for one version at a time:
// built on first use by one goroutine while others wait for it, dropped
// when another version is asked for or, least recently used first, when
// the values' sizes add up to more than maxBytes (the newest is always
// kept). A failed build is not kept. Safe for concurrent use.
type versionCache[T any] struct {
	maxBytes int64
	size     func(T) int64

	mu    sync.Mutex
	byID  map[string]*versionEntry[T]
	lru   *list.List // of *versionEntry[T], most recent first
	bytes int64
}

type versionEntry[T any] struct {
	id      string
	version int
	ready   chan struct{} // closed when built
	val     T
	err     error
	elem    *list.Element
}

func newVersionCache[T any](maxBytes int64, size func(T) int64) *versionCache[T] {
	return &versionCache[T]{maxBytes: maxBytes, size: size, byID: map[string]*versionEntry[T]{}, lru: list.New()}
}

// get returns the value of id at version, building it with build once.
func (c *versionCache[T]) get(id string, version int, build func() (T, error)) (T, error) {
	c.mu.Lock()
	e := c.byID[id]
	if e != nil && e.version != version {
		c.drop(e)
		e = nil
	}
	if e != nil {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		<-e.ready
		return e.val, e.err
	}
	e = &versionEntry[T]{id: id, version: version, ready: make(chan struct{})}
	c.byID[id] = e
	e.elem = c.lru.PushFront(e)
	c.mu.Unlock()

	e.val, e.err = build()

	c.mu.Lock()
	current := c.byID[id] == e
	switch {
	case e.err != nil && current:
		c.drop(e)
	case e.err == nil && current:
		c.bytes += c.size(e.val)
		for el := c.lru.Back(); el != nil && c.bytes > c.maxBytes; {
			prev := el.Prev()
			if x := el.Value.(*versionEntry[T]); x != e {
				select {
				case <-x.ready:
					c.drop(x)
				default: // still building: not counted yet
				}
			}
			el = prev
		}
	}
	close(e.ready)
	c.mu.Unlock()
	return e.val, e.err
}

// drop removes e (c.mu held); a built value's bytes are given back.
func (c *versionCache[T]) drop(e *versionEntry[T]) {
	delete(c.byID, e.id)
	if e.elem != nil {
		c.lru.Remove(e.elem)
		e.elem = nil
	}
	select {
	case <-e.ready:
		if e.err == nil {
			c.bytes -= c.size(e.val)
		}
	default: // still building: its bytes were never added
	}
}

// held is what the cache holds: bytes and values.
func (c *versionCache[T]) held() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, len(c.byID)
}

package cache

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestGet_BuildsOnceForConcurrentCallers(t *testing.T) {
	c := New[string, int](10, nil)
	var builds atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = c.Get("a", func() (int, error) {
				builds.Add(1)
				<-release
				return 42, nil
			})
		}()
	}
	close(release)
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("built %d times, want 1", n)
	}
	for i, v := range got {
		if v != 42 {
			t.Fatalf("caller %d got %d", i, v)
		}
	}
}

func TestGet_FailedBuildIsNotKept(t *testing.T) {
	c := New[string, int](10, nil)
	boom := errors.New("boom")
	if _, err := c.Get("a", func() (int, error) { return 0, boom }); err != boom {
		t.Fatalf("err %v", err)
	}
	if _, n := c.Held(); n != 0 {
		t.Fatalf("holds %d values after a failed build", n)
	}
	v, err := c.Get("a", func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("retry: %d %v", v, err)
	}
}

func TestGet_EvictsLeastRecentlyUsedByCost(t *testing.T) {
	c := New[string, int](10, func(v int) int64 { return int64(v) })
	c.Get("a", func() (int, error) { return 4, nil })
	c.Get("b", func() (int, error) { return 4, nil })
	c.Get("a", func() (int, error) { t.Fatal("a rebuilt"); return 0, nil }) // a is now the most recent
	c.Get("c", func() (int, error) { return 4, nil })                       // 12 > 10: b goes
	if total, n := c.Held(); total != 8 || n != 2 {
		t.Fatalf("held %d in %d values, want 8 in 2", total, n)
	}
	rebuilt := false
	c.Get("b", func() (int, error) { rebuilt = true; return 4, nil })
	if !rebuilt {
		t.Fatal("b was kept past the bound")
	}
	// A value larger than the bound is kept alone: the newest always stays.
	c.Get("big", func() (int, error) { return 50, nil })
	if total, n := c.Held(); total != 50 || n != 1 {
		t.Fatalf("held %d in %d values, want 50 in 1", total, n)
	}
}

func TestRemove_DuringBuildIsNotCounted(t *testing.T) {
	c := New[string, int](10, nil)
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan int)
	go func() {
		v, _ := c.Get("a", func() (int, error) { close(started); <-release; return 3, nil })
		done <- v
	}()
	<-started
	c.Remove("a")
	close(release)
	if v := <-done; v != 3 {
		t.Fatalf("caller got %d", v)
	}
	if total, n := c.Held(); total != 0 || n != 0 {
		t.Fatalf("held %d in %d values after removal", total, n)
	}
}

func TestGet_CountBound(t *testing.T) {
	c := New[int, int](3, nil)
	for i := range 10 {
		c.Get(i, func() (int, error) { return i, nil })
	}
	if total, n := c.Held(); total != 3 || n != 3 {
		t.Fatalf("held %d in %d values, want 3", total, n)
	}
}

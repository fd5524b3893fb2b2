package access

import (
	"math"
	"testing"
)

func TestPrice(t *testing.T) {
	for _, c := range []struct {
		price  int64
		frames int
		want   int64
	}{
		{3, 0, 0},
		{3, 1, 3},
		{3, 100, 3},
		{3, 101, 6},
		{1, 10000, 100},
		{1, 209347, 2094},
		{0, 500, 0},
		{math.MaxInt64 / 2, 300, math.MaxInt64}, // saturates, never wraps
	} {
		if got := Price(c.price, c.frames); got != c.want {
			t.Errorf("Price(%d, %d) = %d, want %d", c.price, c.frames, got, c.want)
		}
	}
}

package redisstore

import (
	"context"
	"regexp"
	"testing"
	"time"

	"frameindex/limiter"
)

// wellFormed is the form the script writes a bucket in (and reads back).
var wellFormed = regexp.MustCompile(`^-?[0-9]{1,14}:[0-9]{1,9}$|^[0-9]{1,15}:[0-9]{1,9}$`)

// FuzzStoredValue writes arbitrary bytes as a bucket's value in Redis, as
// a stray client or a corrupted server might, then takes from the bucket:
// the take must succeed, a value not in the script's own form must read as
// a full bucket, and any decision must be one a bucket of that limit can
// give.
func FuzzStoredValue(f *testing.F) {
	for _, seed := range []string{
		"1740819600:123456789", "-5:0", "0:0", "", "junk", "1e3:0", "nan:0", "inf:0",
		"0x10:5", "1:1234567890", "999999999999999:999999999", "-99999999999999:0",
		"1740819601:0\n", "\xff\x00:1", "1740819600:5:6",
	} {
		f.Add([]byte(seed), uint8(3))
	}
	r := startRedis(f)
	s := testStore(f, r, "fuzz:")
	c := rawClient(f, r)
	key := Key("fuzz:", limiter.KindKey, "k")
	b := []limiter.Bucket{{Kind: limiter.KindKey, ID: "k"}}
	f.Fuzz(func(t *testing.T, value []byte, burst uint8) {
		l := []limiter.Limit{{PerMinute: 60, Burst: int(burst%10) + 1}}
		if err := c.Set(context.Background(), key, value, 0).Err(); err != nil {
			t.Fatal(err)
		}
		d, err := s.Take(t0, b, l)
		if err != nil {
			t.Fatalf("value %q: %v", value, err)
		}
		full := limiter.Decision{Allowed: true, State: limiter.State{Limit: l[0].Burst, Remaining: l[0].Burst - 1, Reset: time.Second}}
		if !wellFormed.Match(value) && d != full {
			t.Fatalf("value %q is not the script's form but reads as %+v, want a full bucket %+v", value, d, full)
		}
		st := d.State
		if st.Limit != l[0].Burst || st.Remaining < 0 || st.Remaining >= st.Limit || st.Reset < 0 ||
			(d.Allowed && (st.RetryAfter != 0 || st.Reset < time.Second)) || (!d.Allowed && st.RetryAfter <= 0) {
			t.Fatalf("value %q: impossible decision %+v", value, d)
		}
	})
}

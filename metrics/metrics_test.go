package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/handlers"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func testRegistry(datasetsErr error) *Registry {
	return New(Options{Node: "node-a", Version: "v1.4.0", Commit: "abc123", NoProcess: true,
		Frames: func() int { return 1234 },
		Ledger: func() bolt.LedgerStats {
			return bolt.LedgerStats{Groups: 40, Writes: 150, WriteTime: 3500 * time.Microsecond, Folds: 2}
		},
		Datasets: func() ([]handlers.DatasetVersion, error) {
			if datasetsErr != nil {
				return nil, datasetsErr
			}
			return []handlers.DatasetVersion{{ID: "population", Version: 3}, {ID: "health", Version: 1}}, nil
		}})
}

// scrape fetches /metrics from the listener and returns the text.
func scrape(t *testing.T, addr string) string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d %s", res.StatusCode, b)
	}
	return string(b)
}

func TestRegistry_CountersMove(t *testing.T) {
	r := testRegistry(nil)
	srv, err := Listen("127.0.0.1:0", r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(context.Background())

	r.Request("GET /v1/frames/at", 200, 300*time.Microsecond)
	r.Request("GET /v1/frames/at", 200, 2*time.Millisecond)
	r.Request("GET /v1/frames/at", 429, time.Millisecond)
	r.Request("", 404, time.Millisecond)
	r.RateLimit(handlers.RateKindRequest, handlers.RateAllowed)
	r.RateLimit(handlers.RateKindInsight, handlers.RateRefused)
	r.RateLimit(handlers.RateKindInvalid, handlers.RateUnmetered)
	r.Charges(2, 5, 1)
	r.Charges(1, 3, 0)
	r.Wording(handlers.WordingKept, "")
	r.Wording(handlers.WordingDiscarded, "wrong_number")
	r.Wording(handlers.WordingDiscarded, "wrong_number")

	text := scrape(t, srv.Addr())
	for _, want := range []string{
		`frameindex_http_requests_total{route="GET /v1/frames/at",status="200"} 2`,
		`frameindex_http_requests_total{route="GET /v1/frames/at",status="429"} 1`,
		`frameindex_http_requests_total{route="unmatched",status="404"} 1`,
		`frameindex_http_request_duration_seconds_bucket{route="GET /v1/frames/at",le="0.0005"} 1`,
		`frameindex_http_request_duration_seconds_count{route="GET /v1/frames/at"} 3`,
		`frameindex_ratelimit_decisions_total{kind="request",outcome="allowed"} 1`,
		`frameindex_ratelimit_decisions_total{kind="insight",outcome="refused"} 1`,
		`frameindex_ratelimit_decisions_total{kind="invalid",outcome="unmetered"} 1`,
		`frameindex_charges_total 3`,
		`frameindex_charged_credits_total 8`,
		`frameindex_charges_left_out_total 1`,
		`frameindex_wording_total{outcome="kept",reason=""} 1`,
		`frameindex_wording_total{outcome="discarded",reason="wrong_number"} 2`,
		`frameindex_dataset_info{dataset="population",version="3"} 1`,
		`frameindex_dataset_info{dataset="health",version="1"} 1`,
		`frameindex_grid_frames 1234`,
		`frameindex_ledger_journal_records_total 40`,
		`frameindex_ledger_journal_writes_total 150`,
		`frameindex_ledger_journal_write_seconds_total 0.0035`,
		`frameindex_ledger_folds_total 2`,
		`frameindex_build_info{commit="abc123",node="node-a",version="v1.4.0"} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("the scrape lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", text)
	}
	// Only /metrics is served.
	if res, err := http.Get("http://" + srv.Addr() + "/v1/frames/at"); err != nil || res.StatusCode != 404 {
		t.Errorf("GET /v1/frames/at on the metrics listener: %v %v", res, err)
	}
}

func TestRegistry_DatasetsUnreadable(t *testing.T) {
	r := testRegistry(errors.New("data file closed"))
	if n, err := testutil.GatherAndCount(r.Gatherer(), "frameindex_dataset_info"); err != nil || n != 0 {
		t.Errorf("dataset_info series %d (%v), want none", n, err)
	}
	if v := testutil.ToFloat64(r.scrapeErrors); v != 1 {
		t.Errorf("scrape errors %v, want 1", v)
	}
	if err := testutil.GatherAndCompare(r.Gatherer(), strings.NewReader(`
# HELP frameindex_grid_frames Frames of the grid the node serves.
# TYPE frameindex_grid_frames gauge
frameindex_grid_frames 1234
`), "frameindex_grid_frames"); err != nil {
		t.Error(err)
	}
}

func TestRegistry_Lint(t *testing.T) {
	problems, err := testutil.GatherAndLint(testRegistry(nil).Gatherer())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
}

func TestListen_BadAddress(t *testing.T) {
	_, err := Listen("127.0.0.1:notaport", testRegistry(nil), nil)
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:notaport") {
		t.Errorf("error %v does not name the address", err)
	}
}

// BenchmarkRegistry_Request is the cost a request pays for its metrics.
func BenchmarkRegistry_Request(b *testing.B) {
	r := New(Options{NoProcess: true})
	b.ReportAllocs()
	for b.Loop() {
		r.Request("GET /v1/frames/at", 200, time.Millisecond)
		r.RateLimit(handlers.RateKindRequest, handlers.RateAllowed)
	}
}

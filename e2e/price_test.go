package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"frameindex/admin"
	"frameindex/state"
)

// TestE2E_OnePriceEveryDoor reads the same frames of a dataset licensed
// per query (1 credit) through the data call, one OGC items page and one
// OGC tile at a merged zoom: each costs within 10 % of the others (the
// price rule: 1 credit per started 100 frames read). Before the rule the
// page and the tile cost 1 credit each, the data calls 9. Then the
// ledger: every credit moved is an entry with its reason, and the entries
// sum to the balance.
func TestE2E_OnePriceEveryDoor(t *testing.T) {
	s := newOGCSite(t)
	mustCLI(t, "licence", "grant", "--data", s.data, "--org", "rival", "--dataset", "population", "--mode", "per_query")
	mustCLI(t, "org", "credits", "rival", "--add", "1000", "--note", "opening balance", "--data", s.data)
	balance := func() int64 {
		var d admin.OrgDetail
		if err := json.Unmarshal([]byte(mustCLI(t, "org", "show", "rival", "--history", "0", "--json", "--data", s.data)), &d); err != nil {
			t.Fatal(err)
		}
		return d.Credits
	}
	frames := len(s.frames)
	want := int64((frames + 99) / 100)

	// The data call, 100 frames at a time.
	before := balance()
	for i := 0; i < frames; i += 100 {
		var ids []string
		for _, id := range s.frames[i:min(i+100, frames)] {
			ids = append(ids, strconv.FormatUint(id, 10))
		}
		if a, r := s.srv.data(t, s.rival, strings.Join(ids, ",")); r.Status != 200 || len(a.Charged) != 1 {
			t.Fatalf("data call: %d %s", r.Status, r.Data)
		}
	}
	byData := before - balance()

	// One OGC items page of every frame.
	before = balance()
	status, _, body := s.ogcGet(t, "Bearer "+s.rival, "/ogc/collections/population/items?limit=10000")
	if status != 200 || strings.Count(string(body), `"frame_id"`) != frames {
		t.Fatalf("items: %d, %d frames", status, strings.Count(string(body), `"frame_id"`))
	}
	byItems := before - balance()

	// One tile at zoom 8 (cells of 2 x 2 frames) holding the whole site.
	z := 8
	x := int(math.Floor((s.minLon + 180) / 360 * 256))
	tileY := func(lat float64) int {
		r := lat * math.Pi / 180
		return int(math.Floor((1 - math.Log(math.Tan(r)+1/math.Cos(r))/math.Pi) / 2 * 256))
	}
	y := tileY(s.minLat)
	if y != tileY(s.maxLat) || x != int(math.Floor((s.maxLon+180)/360*256)) {
		t.Fatalf("the site spans more than one zoom-8 tile")
	}
	before = balance()
	status, _, body = s.ogcGet(t, "Bearer "+s.rival, fmt.Sprintf("/ogc/collections/population/tiles/WebMercatorQuad/%d/%d/%d", z, y, x))
	if status != 200 {
		t.Fatalf("tile: %d %s", status, body)
	}
	byTile := before - balance()

	t.Logf("%d frames: data call %d credits, items %d, tile %d", frames, byData, byItems, byTile)
	if byData != want {
		t.Errorf("the data calls cost %d, want %d", byData, want)
	}
	for door, got := range map[string]int64{"OGC items": byItems, "OGC tile": byTile} {
		if math.Abs(float64(got-byData)) > 0.1*float64(byData) {
			t.Errorf("%s cost %d for the frames the data calls read for %d", door, got, byData)
		}
	}

	// The ledger: the opening balance and one charge per request, each
	// naming the dataset, the request and the frames read; the entries sum
	// to the balance.
	var d admin.OrgDetail
	if err := json.Unmarshal([]byte(mustCLI(t, "org", "show", "rival", "--history", "0", "--json", "--data", s.data)), &d); err != nil {
		t.Fatal(err)
	}
	var sum, charged int64
	for i, e := range d.Ledger {
		sum += e.Credits
		if e.Balance != sum || e.Seq != uint64(i+1) {
			t.Fatalf("ledger entry %d: %+v, running sum %d", i, e, sum)
		}
		switch e.Kind {
		case state.LedgerGrant:
		case state.LedgerCharge:
			charged -= e.Credits
			if e.Dataset != "population" || e.RequestID == "" || !strings.HasSuffix(e.Note, "frames read") {
				t.Errorf("a charge without its reason: %+v", e)
			}
		default:
			t.Errorf("unexpected ledger entry %+v", e)
		}
	}
	if sum != d.Credits || charged != byData+byItems+byTile || d.Credits != 1000-charged {
		t.Errorf("ledger sums to %d, balance %d, charges %d, measured %d", sum, d.Credits, charged, byData+byItems+byTile)
	}
}

package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/state"
)

// Organisations the demo creates.
const (
	// OrgDemo is the demo agency: it owns the open demo datasets and
	// licenses the marketplace's night-lights per query.
	OrgDemo = "demo"
	// OrgMarket is the data marketplace that owns the per-query dataset.
	OrgMarket = "geodata"

	// demoCredits is what the demo agency starts with: enough for a few
	// dozen charged data calls, so that both charges and leftOut show.
	demoCredits = 50
	demoNote    = "demo: starting credits for per-query datasets"
)

// Dataset ids the demo writes, in the order it writes them.
const (
	DatasetAdmin       = "admin"
	DatasetPopulation  = "population"
	DatasetBuildings   = "buildings"
	DatasetSettlement  = "settlement"
	DatasetHealth      = "health"
	DatasetNightlights = "nightlights"
)

// Summary is what Build wrote: the datasets as stored (in the order
// written) and the organisations the demo uses.
type Summary struct {
	Datasets []state.Dataset
	Orgs     []string
}

// source is the Source of every demo dataset.
var source = fmt.Sprintf("frameindex demo: synthetic, generated in Go with fixed seed %#x", seed)

// Build writes the demo organisations and datasets into s, whose grid (the
// national lattice) is already built. It is deterministic (fixed seeds):
// two builds over the same grid store the same bytes for every frame.
//
// Organisations "demo" (plan pro) and "geodata" (plan scale) are created
// when missing and kept as they are when present; "demo" is granted 50
// credits once (a ledger entry with the demo's note), and is licensed to
// read "nightlights" per query. Each dataset is written with one
// ImportDataset call, replacing any earlier version, so running Build
// again replaces the datasets rather than adding to them. progress, when
// not nil, is called before each dataset is written and once at the end:
// step names the dataset (or "done"), done and total count datasets.
//
// Build takes several seconds and a few hundred megabytes for the national
// grid of 1.1 million frames (the datasets are built in memory one at a
// time). Other writers to s can run between its transactions. ctx is
// checked between steps and while computing.
//
// Errors: ErrNoGrid (wrapped) when s holds no grid; an error when the grid
// is not a lattice (imported polygon grids are not supported); ctx's
// error; errors from s, wrapped with the step that failed.
func Build(ctx context.Context, s *bolt.Store, now time.Time, progress func(step string, done, total int64)) (Summary, error) {
	if progress == nil {
		progress = func(string, int64, int64) {}
	}
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC()
	info, runs, _, err := s.Grid()
	if err != nil {
		return Summary{}, fmt.Errorf("demo: read grid: %w", err)
	}
	if info.Kind != bolt.GridLattice || len(runs) == 0 {
		return Summary{}, fmt.Errorf("demo: the stored grid is %s; the demo datasets need the 30-arc-second lattice (frameindex grid build)", info.Kind)
	}
	if err := ensureOrgs(s, now); err != nil {
		return Summary{}, err
	}
	m, err := buildModel(ctx, newLattice(runs))
	if err != nil {
		return Summary{}, fmt.Errorf("demo: model: %w", err)
	}

	steps := []struct {
		id    string
		build func(context.Context, *model) (state.Dataset, []bolt.FrameRecord, error)
	}{
		{DatasetAdmin, buildAdmin},
		{DatasetPopulation, buildPopulation},
		{DatasetBuildings, buildBuildings},
		{DatasetSettlement, buildSettlement},
		{DatasetHealth, buildHealth},
		{DatasetNightlights, buildNightlights},
	}
	sum := Summary{Orgs: []string{OrgDemo, OrgMarket}}
	total := int64(len(steps))
	for k, st := range steps {
		progress(st.id, int64(k), total)
		d, records, err := st.build(ctx, m)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return sum, fmt.Errorf("demo: dataset %s: %w", st.id, err)
		}
		d.Source = source
		if d, err = s.ImportDataset(d, records, now); err != nil {
			return sum, fmt.Errorf("demo: dataset %s: %w", st.id, err)
		}
		sum.Datasets = append(sum.Datasets, d)
	}
	if _, err := s.GrantLicence(OrgDemo, DatasetNightlights, state.LicencePerQuery, now); err != nil {
		return sum, fmt.Errorf("demo: licence %s to %s: %w", DatasetNightlights, OrgDemo, err)
	}
	progress("done", total, total)
	return sum, nil
}

// ensureOrgs creates the demo organisations when missing and grants the
// demo agency its starting credits once.
func ensureOrgs(s *bolt.Store, now time.Time) error {
	orgs := []state.Org{
		{ID: OrgDemo, Name: "Demo agency", Plan: state.PlanPro, Created: now},
		{ID: OrgMarket, Name: "GeoData Marketplace Ltd", Plan: state.PlanScale, Created: now},
	}
	for _, o := range orgs {
		if _, err := s.AddOrg(o); err != nil && !errors.Is(err, state.ErrExists) {
			return fmt.Errorf("demo: organisation %s: %w", o.ID, err)
		}
	}
	ledger, err := s.Ledger(OrgDemo, 0)
	if err != nil {
		return fmt.Errorf("demo: organisation %s: %w", OrgDemo, err)
	}
	for _, e := range ledger {
		if e.Note == demoNote {
			return nil
		}
	}
	if _, _, err := s.AddCredits(OrgDemo, demoCredits, demoNote, now); err != nil {
		return fmt.Errorf("demo: credits for %s: %w", OrgDemo, err)
	}
	return nil
}

// recordBuilder collects one dataset's records with all their bytes in a
// few large buffers, so that a million records are a handful of
// allocations. Records must be added in ascending frame order.
type recordBuilder struct {
	frames []uint64
	ends   []int // ends[k] is where record k's attributes end in buf
	buf    []byte
	feats  map[int][][]byte // features by record index
}

func newRecordBuilder(n, bytesPer int) *recordBuilder {
	return &recordBuilder{
		frames: make([]uint64, 0, n),
		ends:   make([]int, 0, n),
		buf:    make([]byte, 0, n*bytesPer),
	}
}

// end ends a record for frame whose attributes object the caller has just
// appended to b.buf (nothing appended: no attributes).
func (b *recordBuilder) end(frame uint64) {
	b.frames = append(b.frames, frame)
	b.ends = append(b.ends, len(b.buf))
}

// feature attaches a feature to the last record.
func (b *recordBuilder) feature(f []byte) {
	if b.feats == nil {
		b.feats = map[int][][]byte{}
	}
	k := len(b.frames) - 1
	b.feats[k] = append(b.feats[k], f)
}

// records returns the records; b must not be used afterwards.
func (b *recordBuilder) records() []bolt.FrameRecord {
	out := make([]bolt.FrameRecord, len(b.frames))
	start := 0
	for k, f := range b.frames {
		end := b.ends[k]
		out[k] = bolt.FrameRecord{Frame: f, Features: b.feats[k]}
		if end > start {
			out[k].Attrs = b.buf[start:end:end]
		}
		start = end
	}
	return out
}

// quoted returns s as a JSON string.
func quoted(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

func frameID(row, col int) uint64 { return grid.CellID(row, col) }

// The Description of every dataset begins so, to say plainly what it is.
const synthetic = "SYNTHETIC demo data, not survey or official figures: generated by frameindex demo with fixed seeds. "

func buildAdmin(ctx context.Context, m *model) (state.Dataset, []bolt.FrameRecord, error) {
	d := state.Dataset{
		ID:    DatasetAdmin,
		Name:  "Administrative areas (approximate)",
		Owner: OrgDemo,
		Price: 1,
		Description: synthetic + "State, local government area and ward per frame are APPROXIMATIONS, not official boundaries: " +
			fmt.Sprintf("each frame belongs to the nearest of %d real towns and cities (the 36 state capitals, Abuja, and other towns, positions from public sources), ", len(m.places)) +
			"a plain nearest-point (Voronoi) split inside the national grid; its state is that town's state and its local government area is named after the town. " +
			"Wards split each area further, around seeds about 14 km apart (3.7 km in urban frames), numbered within the area. " +
			"Against real state boundaries about 85% of frames get the right state. Importing real boundary polygons as zones with `frameindex import` " +
			"(real state and LGA boundary files, as docs/data.md describes) replaces this dataset.",
		Attributes: []state.Attribute{
			{Name: "state", Label: "State", Type: state.TypeCategory, Aggregation: state.AggMode,
				Aliases: []string{"state", "states", "state name"}},
			{Name: "lga", Label: "Local government area", Type: state.TypeCategory, Aggregation: state.AggMode,
				Aliases: []string{"lga", "lgas", "local government", "local government area", "district"}},
			{Name: "ward", Label: "Ward", Type: state.TypeCategory, Aggregation: state.AggMode,
				Aliases: []string{"ward", "wards", "electoral ward"}},
		},
	}
	stateText := make([][]byte, len(capitals))
	for i, c := range capitals {
		stateText[i] = quoted(c.State)
	}
	lgaText := make([][]byte, len(m.places))
	for i, p := range m.places {
		lgaText[i] = quoted(p.Name)
	}
	b := newRecordBuilder(m.l.n, 64)
	err := m.l.each(ctx, func(i, row, col int, _, _ float64) {
		lga := lgaText[m.lga[i]]
		b.buf = append(b.buf, `{"state":`...)
		b.buf = append(b.buf, stateText[m.state[i]]...)
		b.buf = append(b.buf, `,"lga":`...)
		b.buf = append(b.buf, lga...)
		b.buf = append(b.buf, `,"ward":`...)
		b.buf = append(b.buf, lga[:len(lga)-1]...) // the LGA's quoted name without its closing quote
		b.buf = append(b.buf, " Ward "...)
		b.buf = strconv.AppendInt(b.buf, int64(m.ward[i]), 10)
		b.buf = append(b.buf, `"}`...)
		b.end(frameID(row, col))
	})
	return d, b.records(), err
}

func buildPopulation(ctx context.Context, m *model) (state.Dataset, []bolt.FrameRecord, error) {
	d := state.Dataset{
		ID:    DatasetPopulation,
		Name:  "Estimated population",
		Owner: OrgDemo,
		Price: 1,
		Description: synthetic + "People per frame in 2020, modelled: a rural background whose density varies by region " +
			"(denser in the Kano close-settled zone, the south-east and the south-west, sparser in the middle belt and the north-east; " +
			"lakes and national parks empty) with smooth noise, plus each real town and city spread around its centre as two exponential kernels " +
			"(Lagos about 15 million, Kano 4 million, Ibadan 3.6 million, Abuja 3 million with its satellites). " +
			"Calibrated to a national total of about 206 million, the UN estimate for 2020. Whole people; frames with none record 0.",
		Attributes: []state.Attribute{{
			Name: "population_2020", Label: "Estimated population", Unit: "people", Type: state.TypeNumber,
			Aggregation: state.AggSum, Year: 2020,
			Aliases: []string{"population", "people", "residents", "inhabitants", "population 2020"},
		}},
	}
	b := newRecordBuilder(m.l.n, 28)
	err := m.l.each(ctx, func(i, row, col int, _, _ float64) {
		b.buf = append(b.buf, `{"population_2020":`...)
		b.buf = strconv.AppendInt(b.buf, int64(m.pop[i]), 10)
		b.buf = append(b.buf, '}')
		b.end(frameID(row, col))
	})
	return d, b.records(), err
}

// Building footprints are drawn on a sample of sampleRows x sampleCols
// frames in central Abuja, at most footprintsPerFrame on each.
const (
	sampleRows, sampleCols = 10, 10
	sampleLat, sampleLon   = 9.0600, 7.4850 // between the Central Business District, Wuse and Garki
	footprintGrid          = 6              // footprints sit on a 6 x 6 plan within a frame
	footprintsPerFrame     = footprintGrid * footprintGrid
	peoplePerBuilding      = 5.5
)

// inSample reports whether cell (row, col) is in the footprint sample.
func inSample(row, col int) bool {
	r0, c0 := grid.CellAt(sampleLat, sampleLon)
	r0, c0 = r0-sampleRows/2, c0-sampleCols/2
	return row >= r0 && row < r0+sampleRows && col >= c0 && col < c0+sampleCols
}

func buildBuildings(ctx context.Context, m *model) (state.Dataset, []bolt.FrameRecord, error) {
	d := state.Dataset{
		ID:    DatasetBuildings,
		Name:  "Buildings",
		Owner: OrgDemo,
		Price: 1,
		Description: synthetic + fmt.Sprintf("Buildings per frame, modelled from the estimated population: about one building for every %.1f people, ", peoplePerBuilding) +
			"with random variation of up to a fifth either way; frames without people record nothing. " +
			fmt.Sprintf("On a sample of %d x %d frames in central Abuja, building footprints are drawn as Polygon features ", sampleRows, sampleCols) +
			fmt.Sprintf("(small rectangles, properties id and height_m), at most %d per frame, laid out on a plan within the frame; ", footprintsPerFrame) +
			"they illustrate features and are fewer than the frame's building_count.",
		Attributes: []state.Attribute{{
			Name: "building_count", Label: "Buildings", Unit: "buildings", Type: state.TypeNumber, Aggregation: state.AggSum,
			Year:    2020,
			Aliases: []string{"buildings", "building count", "houses", "structures", "rooftops"},
		}},
	}
	b := newRecordBuilder(m.l.n, 26)
	err := m.l.each(ctx, func(i, row, col int, lat, _ float64) {
		if m.pop[i] <= 0 {
			return
		}
		jitter := 0.8 + 0.4*rnd(streamBuildings, uint64(row), uint64(col))
		n := int64(math.Round(float64(m.pop[i]) / peoplePerBuilding * jitter))
		if n <= 0 {
			return
		}
		b.buf = append(b.buf, `{"building_count":`...)
		b.buf = strconv.AppendInt(b.buf, n, 10)
		b.buf = append(b.buf, '}')
		b.end(frameID(row, col))
		if inSample(row, col) {
			for _, f := range footprints(row, col, int(min(n, footprintsPerFrame)), lat) {
				b.feature(f)
			}
		}
	})
	return d, b.records(), err
}

// footprints draws n building footprints in cell (row, col): one per slot
// of a footprintGrid x footprintGrid plan, each a rectangle of 10 to 40 m
// a side wholly inside its slot, so that its centre is inside the frame.
func footprints(row, col, n int, lat float64) [][]byte {
	box := grid.CellBox(row, col)
	slot := 1.0 / grid.CellsPerDegree / footprintGrid // degrees
	mLat := 1 / (kmPerDegLat * 1000)
	mLon := 1 / (kmPerDegLon * 1000 * math.Cos(lat*math.Pi/180))
	id := grid.CellID(row, col)
	out := make([][]byte, 0, n)
	for k := 0; k < n; k++ {
		h := hash3(streamFootprint, id, uint64(k))
		w := (10 + 30*unit(h)) * mLon
		hgt := (10 + 30*unit(mix(h))) * mLat
		sx, sy := k%footprintGrid, k/footprintGrid
		x0 := box.MinLon + float64(sx)*slot + (slot-w)*unit(mix(h+1))
		y0 := box.MaxLat - float64(sy+1)*slot + (slot-hgt)*unit(mix(h+2))
		height := 3 + 3*math.Floor(4*unit(mix(h+3))) // one to four storeys
		if unit(mix(h+4)) < 0.08 {
			height = 15 + 3*math.Floor(10*unit(mix(h+5))) // a few towers
		}
		f := []byte(`{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[`)
		for _, p := range [5][2]float64{{x0, y0}, {x0 + w, y0}, {x0 + w, y0 + hgt}, {x0, y0 + hgt}, {x0, y0}} {
			if f[len(f)-1] == ']' {
				f = append(f, ',')
			}
			f = append(f, '[')
			f = grid.AppendCoord(f, p[0])
			f = append(f, ',')
			f = grid.AppendCoord(f, p[1])
			f = append(f, ']')
		}
		f = append(f, `]]},"properties":{"id":"`...)
		f = strconv.AppendUint(f, id, 10)
		f = append(f, '-')
		f = strconv.AppendInt(f, int64(k+1), 10)
		f = append(f, `","height_m":`...)
		f = strconv.AppendFloat(f, height, 'f', -1, 64)
		f = append(f, `}}`...)
		out = append(out, f)
	}
	return out
}

func buildSettlement(ctx context.Context, m *model) (state.Dataset, []bolt.FrameRecord, error) {
	d := state.Dataset{
		ID:    DatasetSettlement,
		Name:  "Settlement class",
		Owner: OrgDemo,
		Price: 1,
		Description: synthetic + "Each frame's class from the density of the estimated population, after the thresholds of the Degree of Urbanisation: " +
			fmt.Sprintf("urban from %d people per km², peri-urban from %d, rural below that, uninhabited where the model puts nobody.", urbanDensity, periUrbanDensity),
		Attributes: []state.Attribute{{
			Name: "settlement_class", Label: "Settlement class", Type: state.TypeCategory, Aggregation: state.AggMode, Year: 2020,
			Aliases: []string{"settlement", "settlement type", "urban", "rural", "urbanisation", "urbanization"},
		}},
	}
	text := map[string][]byte{}
	for _, c := range []string{"urban", "peri-urban", "rural", "uninhabited"} {
		text[c] = []byte(`{"settlement_class":"` + c + `"}`)
	}
	out := make([]bolt.FrameRecord, 0, m.l.n)
	err := m.l.each(ctx, func(i, row, col int, lat, _ float64) {
		out = append(out, bolt.FrameRecord{Frame: frameID(row, col), Attrs: text[settlementClass(m.pop[i], cellAreaKm2(lat))]})
	})
	return d, out, err
}

// Health facility types, from the smallest up, and their shares by
// settlement class (teaching hospitals only in urban frames).
var facilityTypes = [4]string{"primary health centre", "clinic", "general hospital", "teaching hospital"}

var facilityTitles = [4]string{"Primary Health Centre", "Clinic", "General Hospital", "Teaching Hospital"}

// peoplePerFacility is the population one health facility serves.
const peoplePerFacility = 25000

// facilityType picks a type for a facility in a frame of class c from u in [0, 1).
func facilityType(c string, u float64) int {
	var general, clinic, teaching float64
	switch c {
	case "urban":
		teaching, general, clinic = 0.02, 0.15, 0.40
	case "peri-urban":
		general, clinic = 0.08, 0.30
	default:
		general, clinic = 0.03, 0.15
	}
	switch {
	case u < teaching:
		return 3
	case u < teaching+general:
		return 2
	case u < teaching+general+clinic:
		return 1
	}
	return 0
}

func buildHealth(ctx context.Context, m *model) (state.Dataset, []bolt.FrameRecord, error) {
	d := state.Dataset{
		ID:    DatasetHealth,
		Name:  "Health facilities",
		Owner: OrgDemo,
		Price: 1,
		Description: synthetic + fmt.Sprintf("Health facilities as Point features, about one for every %d people, placed at random where the estimated population lives ", peoplePerFacility) +
			"(each frame gets its population divided by that number, the fraction by chance, at a random spot in the frame). " +
			"Types (primary health centre, clinic, general hospital, teaching hospital) are drawn by settlement class, teaching hospitals only in urban frames; " +
			"names are made up from the nearest town. facility_count is recorded only on frames with at least one facility: a frame without a record has none.",
		Attributes: []state.Attribute{{
			Name: "facility_count", Label: "Health facilities", Unit: "facilities", Type: state.TypeNumber, Aggregation: state.AggSum,
			Year:    2020,
			Aliases: []string{"health facilities", "facilities", "clinics", "hospitals", "health centres", "health centers"},
		}},
	}
	numbers := map[[2]int]int{} // (place, type) -> facilities named so far
	b := newRecordBuilder(0, 0)
	err := m.l.each(ctx, func(i, row, col int, lat, _ float64) {
		if m.pop[i] <= 0 {
			return
		}
		id := frameID(row, col)
		expect := float64(m.pop[i]) / peoplePerFacility
		n := int(expect)
		if rnd(streamHealthCount, id, 0) < expect-float64(n) {
			n++
		}
		if n == 0 {
			return
		}
		class := settlementClass(m.pop[i], cellAreaKm2(lat))
		box := grid.CellBox(row, col)
		b.buf = append(b.buf, `{"facility_count":`...)
		b.buf = strconv.AppendInt(b.buf, int64(n), 10)
		b.buf = append(b.buf, '}')
		b.end(id)
		for k := 0; k < n; k++ {
			t := facilityType(class, rnd(streamHealthType, id, uint64(k)))
			key := [2]int{int(m.lga[i]), t}
			numbers[key]++
			name := m.places[m.lga[i]].Name + " " + facilityTitles[t] + " " + strconv.Itoa(numbers[key])
			h := hash3(streamHealthPos, id, uint64(k))
			w := 1.0 / grid.CellsPerDegree
			lon := box.MinLon + w*(0.05+0.9*unit(h))
			plat := box.MinLat + w*(0.05+0.9*unit(mix(h)))
			f := []byte(`{"type":"Feature","geometry":{"type":"Point","coordinates":[`)
			f = grid.AppendCoord(f, lon)
			f = append(f, ',')
			f = grid.AppendCoord(f, plat)
			f = append(f, `]},"properties":{"name":`...)
			f = append(f, quoted(name)...)
			f = append(f, `,"type":"`...)
			f = append(f, facilityTypes[t]...)
			f = append(f, `"}}`...)
			b.feature(f)
		}
	})
	return d, b.records(), err
}

// Night-time lights: radiance grows with density as lightScale *
// density^lightPower; frames below lightFloor are dark and record nothing.
const (
	lightScale = 0.02
	lightPower = 0.7
	lightFloor = 1.0
)

// flareBox is where the model puts gas flares: the oil fields of the Niger
// Delta, about one frame in flareOdds.
var flareBox = grid.Box{MinLon: 5.6, MinLat: 4.6, MaxLon: 7.2, MaxLat: 5.7}

const flareOdds = 2500

func buildNightlights(ctx context.Context, m *model) (state.Dataset, []bolt.FrameRecord, error) {
	d := state.Dataset{
		ID:    DatasetNightlights,
		Name:  "Night-time lights",
		Owner: OrgMarket,
		Price: 1,
		Description: synthetic + "Night-time light radiance (a VIIRS-like annual composite for 2022), modelled from the estimated population density " +
			fmt.Sprintf("as %.2f x density^%.1f with random variation of up to 30%% either way, plus a few bright gas flares in the Niger Delta. ", lightScale, lightPower) +
			fmt.Sprintf("Frames darker than %.0f nW/cm²/sr record nothing. Sold per query by GeoData Marketplace Ltd: each request it contributes to costs the licensee credits.", lightFloor),
		Attributes: []state.Attribute{{
			Name: "radiance", Label: "Night-time light radiance", Unit: "nW/cm²/sr", Type: state.TypeNumber, Aggregation: state.AggMean,
			Year:    2022,
			Aliases: []string{"night lights", "nightlights", "night-time lights", "lights", "light", "brightness", "radiance"},
		}},
	}
	b := newRecordBuilder(m.l.n/4, 22)
	err := m.l.each(ctx, func(i, row, col int, lat, lon float64) {
		id := frameID(row, col)
		r := 0.0
		if m.pop[i] > 0 {
			dens := float64(m.pop[i]) / cellAreaKm2(lat)
			r = lightScale * math.Pow(dens, lightPower) * (0.7 + 0.6*rnd(streamLight, id, 0))
		}
		if flareBox.Contains(lon, lat) && rnd(streamFlare, id, 0) < 1.0/flareOdds {
			r += 80 + 220*rnd(streamFlare, id, 1)
		}
		r = math.Round(r*100) / 100
		if r < lightFloor {
			return
		}
		b.buf = append(b.buf, `{"radiance":`...)
		b.buf = strconv.AppendFloat(b.buf, r, 'f', -1, 64)
		b.buf = append(b.buf, '}')
		b.end(id)
	})
	return d, b.records(), err
}

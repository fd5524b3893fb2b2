package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"frameindex/bolt"
	"frameindex/limiter"
	"frameindex/state"
)

// *bolt.Store is the DataStore of the running server.
var _ DataStore = (*bolt.Store)(nil)

// fakeData is a DataStore whose methods are set per test; it records what
// ReadFrames and Charge were asked.
type fakeData struct {
	ReadableFn   func(k state.Key) ([]state.Access, error)
	ReadFramesFn func(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error)
	ChargeFn     func(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) ([]string, []string, error)
	// The national scans of the question call (nil: nothing recorded).
	ScanRecordsFn  func(id string, ranges []bolt.IDRange, fn func(frame uint64, features int, attrs []byte) bool) error
	ScanFeaturesFn func(id string, ranges []bolt.IDRange, from bolt.FeatureKey, fn func(k bolt.FeatureKey, feature []byte) bool) error

	mu      sync.Mutex
	reads   []readCall
	charges []chargeCall
}

type readCall struct {
	ids          []string
	frames       []uint64
	withFeatures bool
	featureCap   int
}

type chargeCall struct {
	orgID, keyID, requestID string
	ds                      []state.DatasetPrice
	now                     time.Time
}

func (f *fakeData) Readable(k state.Key) ([]state.Access, error) { return f.ReadableFn(k) }

func (f *fakeData) ScanRecords(id string, ranges []bolt.IDRange, fn func(uint64, int, []byte) bool) error {
	if f.ScanRecordsFn == nil {
		return nil
	}
	return f.ScanRecordsFn(id, ranges, fn)
}

func (f *fakeData) ScanFeatures(id string, ranges []bolt.IDRange, from bolt.FeatureKey, fn func(bolt.FeatureKey, []byte) bool) error {
	if f.ScanFeaturesFn == nil {
		return nil
	}
	return f.ScanFeaturesFn(id, ranges, from, fn)
}

func (f *fakeData) ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error) {
	f.mu.Lock()
	f.reads = append(f.reads, readCall{slices.Clone(ids), slices.Clone(frames), withFeatures, featureCap})
	f.mu.Unlock()
	return f.ReadFramesFn(ids, frames, withFeatures, featureCap)
}

func (f *fakeData) Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) ([]string, []string, error) {
	f.mu.Lock()
	f.charges = append(f.charges, chargeCall{orgID, keyID, requestID, slices.Clone(ds), now})
	f.mu.Unlock()
	return f.ChargeFn(orgID, keyID, requestID, ds, now)
}

// memStore is an in-memory dataset store that behaves as the contract says
// *bolt.Store does: Readable returns every dataset sorted by id, ReadFrames
// applies the feature cap per dataset over the whole call, frame by frame,
// and Charge debits in ascending id order while the balance covers it.
type memStore struct {
	datasets []memDataset // sorted by id

	mu      sync.Mutex
	balance int64
}

type memDataset struct {
	access   state.Access
	attrs    map[uint64]string
	features map[uint64][]string
}

func (m *memStore) Readable(state.Key) ([]state.Access, error) {
	out := make([]state.Access, len(m.datasets))
	for i, d := range m.datasets {
		out[i] = d.access
	}
	return out, nil
}

func (m *memStore) ReadFrames(ids []string, frames []uint64, withFeatures bool, featureCap int) ([]bolt.FrameData, error) {
	used := map[string]int{}
	var out []bolt.FrameData
	for _, fr := range frames {
		fd := bolt.FrameData{Frame: fr}
		for _, id := range ids {
			i := slices.IndexFunc(m.datasets, func(d memDataset) bool { return d.access.Dataset.ID == id })
			if i < 0 {
				return nil, fmt.Errorf("no dataset %q", id)
			}
			d := m.datasets[i]
			attrs, feats := d.attrs[fr], d.features[fr]
			if attrs == "" && len(feats) == 0 {
				continue
			}
			df := bolt.DatasetFrame{Dataset: id, FeatureCount: len(feats)}
			if attrs != "" {
				df.Attrs = []byte(attrs)
			}
			if withFeatures && len(feats) > 0 {
				n := min(len(feats), featureCap-used[id])
				for _, f := range feats[:n] {
					df.Features = append(df.Features, []byte(f))
				}
				used[id] += n
				df.FeaturesTruncated = n < len(feats)
			}
			fd.Datasets = append(fd.Datasets, df)
		}
		out = append(out, fd)
	}
	return out, nil
}

func (m *memStore) Charge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) (charged, leftOut []string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ds {
		if m.balance >= p.Price {
			m.balance -= p.Price
			charged = append(charged, p.ID)
		} else {
			leftOut = append(leftOut, p.ID)
		}
	}
	return charged, leftOut, nil
}

// fake returns a fakeData whose methods are m's.
func (m *memStore) fake() *fakeData {
	return &fakeData{ReadableFn: m.Readable, ReadFramesFn: m.ReadFrames, ChargeFn: m.Charge,
		ScanRecordsFn: m.ScanRecords, ScanFeaturesFn: m.ScanFeatures}
}

// dataset finds a dataset of m by id.
func (m *memStore) dataset(id string) *memDataset {
	for i := range m.datasets {
		if m.datasets[i].access.Dataset.ID == id {
			return &m.datasets[i]
		}
	}
	return nil
}

// ScanRecords calls fn for every frame dataset id records something on,
// ascending (ranges are not narrowed: the question call scans them all).
func (m *memStore) ScanRecords(id string, _ []bolt.IDRange, fn func(uint64, int, []byte) bool) error {
	m.mu.Lock()
	d := m.dataset(id)
	m.mu.Unlock()
	if d == nil {
		return nil
	}
	var frames []uint64
	for f := range d.attrs {
		frames = append(frames, f)
	}
	for f := range d.features {
		if _, ok := d.attrs[f]; !ok {
			frames = append(frames, f)
		}
	}
	slices.Sort(frames)
	for _, f := range frames {
		var attrs []byte
		if a := d.attrs[f]; a != "" {
			attrs = []byte(a)
		}
		if !fn(f, len(d.features[f]), attrs) {
			break
		}
	}
	return nil
}

// ScanFeatures calls fn for every feature of dataset id, ascending frame.
func (m *memStore) ScanFeatures(id string, _ []bolt.IDRange, _ bolt.FeatureKey, fn func(bolt.FeatureKey, []byte) bool) error {
	m.mu.Lock()
	d := m.dataset(id)
	m.mu.Unlock()
	if d == nil {
		return nil
	}
	var frames []uint64
	for f := range d.features {
		frames = append(frames, f)
	}
	slices.Sort(frames)
	for _, f := range frames {
		for k, ft := range d.features[f] {
			if !fn(bolt.FeatureKey{Frame: f, Seq: uint32(k)}, []byte(ft)) {
				return nil
			}
		}
	}
	return nil
}

// Test frames: three cells of the abuja grid and an id it does not hold.
var (
	frameA   = id(9710, 22487)
	frameB   = id(9710, 22488)
	frameC   = id(9711, 22487)
	frameOut = "5"
)

func mustID(s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

// Stored records of the test datasets, byte for byte.
const (
	adminAttrs    = `{"state":"Federal Capital Territory","lga":"Abuja Municipal","ward":"Garki"}`
	buildingAttrs = `{"buildings":312,"density":1.50e3}`
	paidAttrs     = `{"score":0.125,"label":"caf\u00e9 \"B\""}`
	buildingFeat  = `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[7.392,9.076],[7.3921,9.076],[7.3921,9.0761],[7.392,9.0761],[7.392,9.076]]]},"properties":{"height":6.5}}`
	clinicFeat    = `{"type":"Feature","geometry":{"type":"Point","coordinates":[7.4005,9.077]},"properties":{"name":"PHC Garki","beds":12}}`
)

// testStore returns the test datasets with the given balance: admin and
// buildings are the organisation's own, health is licensed by subscription,
// paid (price 2) and another per-query dataset that records nothing on the
// test frames are licensed per query.
func testStore(balance int64) *memStore {
	ds := func(id, name string, price int64, perQuery bool) state.Access {
		return state.Access{Dataset: state.Dataset{ID: id, Name: name, Price: price, Owner: "org1"}, PerQuery: perQuery}
	}
	a, b, c := mustID(frameA), mustID(frameB), mustID(frameC)
	return &memStore{balance: balance, datasets: []memDataset{
		{access: ds("admin", "Administrative areas", 1, false),
			attrs: map[uint64]string{a: adminAttrs, b: adminAttrs, c: adminAttrs}},
		{access: ds("buildings", "Buildings", 1, false),
			attrs:    map[uint64]string{a: buildingAttrs, c: buildingAttrs},
			features: map[uint64][]string{a: {buildingFeat, buildingFeat, buildingFeat}, c: {buildingFeat, buildingFeat}}},
		{access: ds("health", "Health facilities", 1, false),
			features: map[uint64][]string{b: {clinicFeat, clinicFeat}}},
		{access: ds("paid", `Paid "scores"`, 2, true),
			attrs: map[uint64]string{b: paidAttrs}},
		{access: ds("paid_elsewhere", "Paid elsewhere", 1, true),
			attrs: map[uint64]string{1: `{"x":1}`}},
	}}
}

// Keys of the data tests, besides testKeys.
const (
	secretFeatures = "svc_sk_FeaturesFeaturesFeaturesFea06"
	secretAskOnly  = "svc_sk_AskOnlyAskOnlyAskOnlyAskOn07"
)

var dataKeys = &fakeKeys{LookupFn: func(secret string, now time.Time) (state.Key, error) {
	switch secret {
	case secretFeatures:
		return state.Key{ID: "key_feat", OrgID: "org1", Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead}}, nil
	case secretAskOnly:
		return state.Key{ID: "key_ask", OrgID: "org1", Caps: []state.Capability{state.CapFeatureRead, state.CapAskQuery}}, nil
	}
	return testKeys.Lookup(secret, now)
}}

var dataNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// dataServer returns a Server over the abuja grid with store as its
// DataStore (nil for none), logging JSON to the returned buffer.
func dataServer(t testing.TB, store DataStore) (*Server, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := Config{
		Frames: func() FrameIndex { return abuja },
		Keys:   func() KeyLookup { return dataKeys },
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    func() time.Time { return dataNow },
	}
	if store != nil {
		cfg.Data = store
	}
	return New(cfg), &logs
}

// dataJSON is the data of GET /v1/frames/data.
type dataJSON struct {
	Frames []struct {
		ID       string          `json:"id"`
		BBox     []float64       `json:"bbox"`
		Datasets []dataEntryJSON `json:"datasets"`
	} `json:"frames"`
	Charged []string `json:"charged"`
	LeftOut []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"leftOut"`
}

type dataEntryJSON struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Attributes json.RawMessage `json:"attributes"`
	Features   *struct {
		Type     string            `json:"type"`
		Features []json.RawMessage `json:"features"`
	} `json:"features"`
	FeatureCount      *int  `json:"featureCount"`
	FeaturesTruncated *bool `json:"featuresTruncated"`
}

// dataOK decodes a 200 answer of the data call, checking the envelope.
func dataOK(t testing.TB, w *httptest.ResponseRecorder) dataJSON {
	t.Helper()
	env := decode(t, w)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var d dataJSON
	dec := json.NewDecoder(bytes.NewReader(env.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("data does not decode strictly: %v\n%.500s", err, env.Data)
	}
	for _, f := range d.Frames {
		if f.Datasets == nil {
			t.Fatalf("frame %s has no datasets member: %.500s", f.ID, env.Data)
		}
	}
	return d
}

// summary describes an answer compactly: per frame "id[bbox]:ds(a,f2/3,t),..."
// where a = attributes, fN = N features shown, /M = featureCount, t =
// featuresTruncated.
func (d dataJSON) summary() string {
	var parts []string
	for _, f := range d.Frames {
		s := f.ID
		if f.BBox != nil {
			s += "[bbox]"
		}
		s += ":"
		for i, e := range f.Datasets {
			if i > 0 {
				s += ","
			}
			s += e.ID + "("
			var fl []string
			if e.Attributes != nil {
				fl = append(fl, "a")
			}
			if e.Features != nil {
				fl = append(fl, "f"+strconv.Itoa(len(e.Features.Features)))
			}
			if e.FeatureCount != nil {
				fl = append(fl, "/"+strconv.Itoa(*e.FeatureCount))
			}
			if e.FeaturesTruncated != nil {
				fl = append(fl, "t")
			}
			s += strings.Join(fl, " ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

func TestServer_HandleFramesData(t *testing.T) {
	A, B, C, X := frameA, frameB, frameC, frameOut
	tests := []struct {
		name      string
		query     string
		secret    string
		balance   int64
		want      string   // dataJSON.summary()
		charged   []string // nil: no charged member
		leftOut   []string // ids; nil: no leftOut member
		asked     []state.DatasetPrice
		features  bool     // ReadFrames was asked for features
		readFrame []string // frames handed to ReadFrames
		balanceTo int64
	}{
		{name: "order, duplicates, unknown id", query: "ids=" + C + "," + A + "," + X + "&ids=" + A + "," + C, secret: secretFeatures, balance: 10,
			want:     C + "[bbox]:admin(a),buildings(a f2 /2) | " + A + "[bbox]:admin(a),buildings(a f3 /3) | " + X + ":",
			features: true, readFrame: []string{C, A}, balanceTo: 10},
		{name: "only unknown ids", query: "ids=" + X + ",6", secret: secretFeatures, balance: 10,
			want: X + ": | 6:", features: true, balanceTo: 10},
		{name: "per-query dataset charged", query: "ids=" + B, secret: secretFeatures, balance: 10,
			want:    B + "[bbox]:admin(a),health(f2 /2),paid(a)",
			charged: []string{"paid"}, asked: []state.DatasetPrice{{ID: "paid", Price: 2, Frames: 1}},
			features: true, readFrame: []string{B}, balanceTo: 8},
		{name: "per-query dataset left out", query: "ids=" + A + "," + B, secret: secretFeatures, balance: 1,
			want:    A + "[bbox]:admin(a),buildings(a f3 /3) | " + B + "[bbox]:admin(a),health(f2 /2)",
			leftOut: []string{"paid"}, asked: []state.DatasetPrice{{ID: "paid", Price: 2, Frames: 1}},
			features: true, readFrame: []string{A, B}, balanceTo: 1},
		{name: "no feature.read: counts, no features", query: "ids=" + B + "," + A, secret: secretGood, balance: 2,
			want:    B + "[bbox]:admin(a),health(/2),paid(a) | " + A + "[bbox]:admin(a),buildings(a /3)",
			charged: []string{"paid"}, asked: []state.DatasetPrice{{ID: "paid", Price: 2, Frames: 1}},
			readFrame: []string{B, A}, balanceTo: 0},
		{name: "bbox and limit are ignored", query: "ids=" + A + "&bbox=x&limit=0", secret: secretGood, balance: 0,
			want: A + "[bbox]:admin(a),buildings(a /3)", readFrame: []string{A}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testStore(tt.balance)
			fake := m.fake()
			s, _ := dataServer(t, fake)
			w := get(s, "/v1/frames/data?"+tt.query, tt.secret)
			d := dataOK(t, w)
			if got := d.summary(); got != tt.want {
				t.Errorf("answer\n got %s\nwant %s", got, tt.want)
			}
			if !slices.Equal(d.Charged, tt.charged) {
				t.Errorf("charged = %v, want %v", d.Charged, tt.charged)
			}
			if tt.charged == nil && strings.Contains(w.Body.String(), `"charged"`) {
				t.Errorf("a charged member without charges: %s", w.Body)
			}
			var left []string
			for _, l := range d.LeftOut {
				left = append(left, l.ID)
				if l.Reason != reasonInsufficientCredits || l.Name != `Paid "scores"` {
					t.Errorf("leftOut entry %+v", l)
				}
			}
			if !slices.Equal(left, tt.leftOut) {
				t.Errorf("leftOut = %v, want %v", left, tt.leftOut)
			}
			if tt.leftOut == nil && strings.Contains(w.Body.String(), `"leftOut"`) {
				t.Errorf("a leftOut member without any left out: %s", w.Body)
			}
			if !tt.features && strings.Contains(w.Body.String(), `"features":`) {
				t.Errorf("features without feature.read: %s", w.Body)
			}
			// What the store was asked.
			var frames []uint64
			for _, f := range tt.readFrame {
				frames = append(frames, mustID(f))
			}
			if frames == nil {
				if len(fake.reads) != 0 {
					t.Errorf("ReadFrames asked %+v, want no call", fake.reads)
				}
			} else if len(fake.reads) != 1 {
				t.Errorf("ReadFrames called %d times, want once", len(fake.reads))
			} else {
				rc := fake.reads[0]
				if !slices.Equal(rc.frames, frames) || rc.withFeatures != tt.features || rc.featureCap != 200 ||
					!slices.Equal(rc.ids, []string{"admin", "buildings", "health", "paid", "paid_elsewhere"}) {
					t.Errorf("ReadFrames(%v, %v, %v, %d), want frames %v, features %v, cap 200, every readable dataset",
						rc.ids, rc.frames, rc.withFeatures, rc.featureCap, frames, tt.features)
				}
			}
			if tt.asked == nil {
				if len(fake.charges) != 0 {
					t.Errorf("Charge called: %+v", fake.charges)
				}
			} else if len(fake.charges) != 1 {
				t.Errorf("Charge called %d times, want once", len(fake.charges))
			} else {
				c := fake.charges[0]
				wantKey := "key_feat"
				if tt.secret == secretGood {
					wantKey = "key_good"
				}
				if c.orgID != "org1" || c.keyID != wantKey || c.requestID != w.Header().Get("X-Request-Id") ||
					!c.now.Equal(dataNow) || !slices.Equal(c.ds, tt.asked) {
					t.Errorf("Charge(%q, %q, %q, %v, %v), want org1, %s, the X-Request-Id %s, %v, %v",
						c.orgID, c.keyID, c.requestID, c.ds, c.now, wantKey, w.Header().Get("X-Request-Id"), tt.asked, dataNow)
				}
			}
			if m.balance != tt.balanceTo {
				t.Errorf("balance %d, want %d", m.balance, tt.balanceTo)
			}
		})
	}
}

func TestServer_HandleFramesData_Verbatim(t *testing.T) {
	// Attributes and features are copied byte for byte: 1.50e3 stays
	// 1.50e3, escapes stay escapes, numbers stay numbers.
	s, _ := dataServer(t, testStore(10).fake())
	w := get(s, "/v1/frames/data?ids="+frameB+","+frameA, secretFeatures)
	d := dataOK(t, w)
	body := w.Body.String()
	for _, want := range []string{
		`"attributes":` + adminAttrs,
		`"attributes":` + buildingAttrs,
		`"attributes":` + paidAttrs,
		`{"type":"FeatureCollection","features":[` + clinicFeat + `,` + clinicFeat + `]}`,
		`{"id":"paid","name":"Paid \"scores\"","attributes":`,
		`{"id":"` + frameB + `","bbox":[7.4,9.075,7.4083333,9.0833333],"datasets":[`,
		`"charged":["paid"]}}` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %s\n%s", want, body)
		}
	}
	var attrs map[string]any
	if err := json.Unmarshal(d.Frames[1].Datasets[1].Attributes, &attrs); err != nil || attrs["buildings"] != 312.0 || attrs["density"] != 1500.0 {
		t.Errorf("buildings attributes decode to %v, %v", attrs, err)
	}
	if w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
		t.Errorf("Content-Length %q for %d bytes", w.Header().Get("Content-Length"), w.Body.Len())
	}
}

func TestServer_HandleFramesData_FeatureCap(t *testing.T) {
	// Features per frame of dataset "many": the cap of 200 is filled frame
	// by frame in request order, over the whole request.
	ids := []string{id(9700, 22480), id(9700, 22481), id(9700, 22482), id(9700, 22483)}
	perFrame := []int{150, 40, 30, 5}
	mk := func() *memStore {
		md := memDataset{access: state.Access{Dataset: state.Dataset{ID: "many", Name: "Many"}},
			attrs: map[uint64]string{}, features: map[uint64][]string{}}
		for i, fr := range ids {
			for k := range perFrame[i] {
				md.features[mustID(fr)] = append(md.features[mustID(fr)], `{"type":"Feature","geometry":{"type":"Point","coordinates":[7.3,9.1]},"properties":{"n":`+strconv.Itoa(k)+`}}`)
			}
		}
		return &memStore{datasets: []memDataset{md}}
	}
	query := "/v1/frames/data?ids=" + strings.Join(ids, ",")
	t.Run("store caps", func(t *testing.T) {
		s, _ := dataServer(t, mk().fake())
		d := dataOK(t, get(s, query, secretFeatures))
		want := ids[0] + "[bbox]:many(f150 /150) | " + ids[1] + "[bbox]:many(f40 /40) | " + ids[2] + "[bbox]:many(f10 /30 t) | " + ids[3] + "[bbox]:many(/5 t)"
		if got := d.summary(); got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("handler caps an over-generous store", func(t *testing.T) {
		m := mk()
		fake := m.fake()
		fake.ReadFramesFn = func(ids []string, frames []uint64, withFeatures bool, _ int) ([]bolt.FrameData, error) {
			return m.ReadFrames(ids, frames, withFeatures, 1000)
		}
		s, _ := dataServer(t, fake)
		d := dataOK(t, get(s, query, secretFeatures))
		want := ids[0] + "[bbox]:many(f150 /150) | " + ids[1] + "[bbox]:many(f40 /40) | " + ids[2] + "[bbox]:many(f10 /30 t) | " + ids[3] + "[bbox]:many(/5 t)"
		if got := d.summary(); got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		// The features shown are the first ones, in order.
		var p struct{ Properties struct{ N int } }
		f := d.Frames[2].Datasets[0].Features.Features
		if err := json.Unmarshal(f[9], &p); err != nil || p.Properties.N != 9 {
			t.Errorf("tenth feature of the third frame is %s", f[9])
		}
	})
	t.Run("without feature.read", func(t *testing.T) {
		s, _ := dataServer(t, mk().fake())
		w := get(s, query, secretGood)
		d := dataOK(t, w)
		want := ids[0] + "[bbox]:many(/150) | " + ids[1] + "[bbox]:many(/40) | " + ids[2] + "[bbox]:many(/30) | " + ids[3] + "[bbox]:many(/5)"
		if got := d.summary(); got != want {
			t.Errorf("\n got %s\nwant %s", got, want)
		}
		if strings.Contains(w.Body.String(), `"features":`) || strings.Contains(w.Body.String(), `featuresTruncated`) {
			t.Errorf("features part without feature.read: %.300s", w.Body)
		}
	})
	t.Run("store hands features to a key without feature.read", func(t *testing.T) {
		m := mk()
		fake := m.fake()
		fake.ReadFramesFn = func(ids []string, frames []uint64, _ bool, c int) ([]bolt.FrameData, error) {
			return m.ReadFrames(ids, frames, true, c)
		}
		s, _ := dataServer(t, fake)
		w := get(s, query, secretGood)
		dataOK(t, w)
		if strings.Contains(w.Body.String(), `"features":`) || strings.Contains(w.Body.String(), `featuresTruncated`) {
			t.Errorf("features part without feature.read: %.300s", w.Body)
		}
	})
}

func TestServer_HandleFramesData_LeftOutRemovedEverywhere(t *testing.T) {
	// Two per-query datasets on several frames; the balance covers the one
	// whose id sorts first. The other is gone from every frame.
	a, b := mustID(frameA), mustID(frameB)
	m := &memStore{balance: 3, datasets: []memDataset{
		{access: state.Access{Dataset: state.Dataset{ID: "own", Name: "Own"}}, attrs: map[uint64]string{a: `{"v":1}`}},
		{access: state.Access{Dataset: state.Dataset{ID: "pq1", Name: "PQ one", Price: 3}, PerQuery: true},
			attrs: map[uint64]string{a: `{"v":2}`, b: `{"v":3}`}},
		{access: state.Access{Dataset: state.Dataset{ID: "pq2", Name: "PQ two", Price: 1}, PerQuery: true},
			attrs: map[uint64]string{a: `{"v":4}`}, features: map[uint64][]string{b: {clinicFeat}}},
	}}
	s, _ := dataServer(t, m.fake())
	w := get(s, "/v1/frames/data?ids="+frameA+","+frameB, secretFeatures)
	d := dataOK(t, w)
	want := frameA + "[bbox]:own(a),pq1(a) | " + frameB + "[bbox]:pq1(a)"
	if got := d.summary(); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if !slices.Equal(d.Charged, []string{"pq1"}) || len(d.LeftOut) != 1 || d.LeftOut[0].ID != "pq2" || d.LeftOut[0].Name != "PQ two" {
		t.Errorf("charged %v, leftOut %+v", d.Charged, d.LeftOut)
	}
	if strings.Contains(w.Body.String(), `{"v":4}`) || strings.Contains(w.Body.String(), "PHC Garki") {
		t.Errorf("a left-out dataset's records are in the answer: %s", w.Body)
	}
	if m.balance != 0 {
		t.Errorf("balance %d, want 0", m.balance)
	}
}

func TestServer_HandleFramesData_ConcurrentCharges(t *testing.T) {
	// 50 parallel requests against a balance that covers 10 charges: exactly
	// 10 answers name the dataset in charged, 40 in leftOut, and no answer
	// shows its records without a charge.
	m := testStore(20)
	s, _ := dataServer(t, m.fake())
	var wg sync.WaitGroup
	var mu sync.Mutex
	charged, left := 0, 0
	for range 50 {
		wg.Go(func() {
			w := get(s, "/v1/frames/data?ids="+frameB, secretGood)
			var env struct{ Data dataJSON }
			if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil || w.Code != 200 {
				t.Errorf("%d %v", w.Code, err)
				return
			}
			shows := strings.Contains(w.Body.String(), `"attributes":`+paidAttrs)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case slices.Equal(env.Data.Charged, []string{"paid"}) && shows && len(env.Data.LeftOut) == 0:
				charged++
			case len(env.Data.LeftOut) == 1 && !shows && len(env.Data.Charged) == 0:
				left++
			default:
				t.Errorf("inconsistent answer %s", w.Body)
			}
		})
	}
	wg.Wait()
	if charged != 10 || left != 40 || m.balance != 0 {
		t.Errorf("%d charged, %d left out, balance %d; want 10, 40, 0", charged, left, m.balance)
	}
}

func TestServer_HandleFramesData_Errors(t *testing.T) {
	hundred := make([]string, 100)
	for i := range hundred {
		hundred[i] = strconv.Itoa(i + 1)
	}
	tests := []struct {
		name      string
		query     string
		secret    string
		status    int
		code      string
		fragments []string
	}{
		{"no ids", "", secretGood, 400, codeInvalid, []string{"ids is required"}},
		{"only other parameters", "bbox=1,2,3,4", secretGood, 400, codeInvalid, []string{"ids is required"}},
		{"empty ids", "ids=", secretGood, 400, codeInvalid, []string{"ids is empty"}},
		{"empty entry", "ids=1,,2", secretGood, 400, codeInvalid, []string{"ids has an empty entry"}},
		{"not a number", "ids=1,abc", secretGood, 400, codeInvalid, []string{`ids entry "abc" is not a frame id`}},
		{"too large", "ids=18446744073709551616", secretGood, 400, codeInvalid, []string{"is not a frame id"}},
		{"101 ids", "ids=" + strings.Join(hundred, ",") + "&ids=1", secretGood, 400, codeInvalid, []string{"ids lists 101 ids; at most 100"}},
		{"bad escape", "ids=1%zz", secretGood, 400, codeInvalid, []string{"ids is not valid URL encoding"}},
		{"no key", "ids=1", "", 401, codeUnauthorized, []string{"needs an API key"}},
		{"revoked key", "ids=1", secretRevoked, 401, codeInvalidKey, []string{"revoked"}},
		{"key without frame.read", "ids=1", secretAskOnly, 403, codeInsufficientScope, []string{"frame.read"}},
		{"key without frame.read, bad ids", "ids=x", secretNoCap, 403, codeInsufficientScope, []string{"frame.read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := testStore(10).fake()
			s, _ := dataServer(t, fake)
			wantError(t, get(s, "/v1/frames/data?"+tt.query, tt.secret), tt.status, tt.code, tt.fragments...)
			if len(fake.reads) != 0 || len(fake.charges) != 0 {
				t.Errorf("the store was used: %d reads, %d charges", len(fake.reads), len(fake.charges))
			}
		})
	}
	t.Run("100 ids with duplicates", func(t *testing.T) {
		s, _ := dataServer(t, testStore(10).fake())
		all := slices.Repeat([]string{frameA}, 100)
		d := dataOK(t, get(s, "/v1/frames/data?ids="+strings.Join(all, ","), secretGood))
		if len(d.Frames) != 1 || d.Frames[0].ID != frameA {
			t.Errorf("%s", d.summary())
		}
	})
}

func TestServer_HandleFramesData_ServerErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	bad := func(mod func(m *memStore, f *fakeData)) func() *fakeData {
		return func() *fakeData {
			m := testStore(10)
			f := m.fake()
			mod(m, f)
			return f
		}
	}
	readReturns := func(fd ...bolt.FrameData) func(*memStore, *fakeData) {
		return func(_ *memStore, f *fakeData) {
			f.ReadFramesFn = func([]string, []uint64, bool, int) ([]bolt.FrameData, error) { return fd, nil }
		}
	}
	chargeReturns := func(charged, leftOut []string) func(*memStore, *fakeData) {
		return func(_ *memStore, f *fakeData) {
			f.ChargeFn = func(string, string, string, []state.DatasetPrice, time.Time) ([]string, []string, error) {
				return charged, leftOut, nil
			}
		}
	}
	a, b := mustID(frameA), mustID(frameB)
	tests := []struct {
		name    string
		store   func() *fakeData // nil: no DataStore
		charges int              // Charge calls expected
		cause   string           // in the log
	}{
		{"no store", nil, 0, "no dataset store"},
		{"Readable fails", bad(func(_ *memStore, f *fakeData) {
			f.ReadableFn = func(state.Key) ([]state.Access, error) { return nil, boom }
		}), 0, "reading the datasets key key_feat may read: disk on fire"},
		{"ReadFrames fails", bad(func(_ *memStore, f *fakeData) {
			f.ReadFramesFn = func([]string, []uint64, bool, int) ([]bolt.FrameData, error) { return nil, boom }
		}), 0, "reading 5 datasets on 2 frames: disk on fire"},
		{"Charge fails", bad(func(_ *memStore, f *fakeData) {
			f.ChargeFn = func(string, string, string, []state.DatasetPrice, time.Time) ([]string, []string, error) {
				return nil, nil, boom
			}
		}), 1, "charging 1 per-query datasets to organisation org1: disk on fire"},
		{"frame not asked for", bad(readReturns(bolt.FrameData{Frame: 5})), 0, "frame 5, which was not asked for"},
		{"frames out of order", bad(readReturns(bolt.FrameData{Frame: b}, bolt.FrameData{Frame: a})), 0, "which was not asked for or is out of order"},
		{"dataset not readable", bad(readReturns(bolt.FrameData{Frame: a, Datasets: []bolt.DatasetFrame{{Dataset: "secret", Attrs: []byte(`{}`)}}})), 0, `dataset "secret"`},
		{"dataset twice", bad(readReturns(bolt.FrameData{Frame: a, Datasets: []bolt.DatasetFrame{{Dataset: "admin", Attrs: []byte(`{}`)}, {Dataset: "admin", Attrs: []byte(`{}`)}}})), 0, `"admin" appears twice`},
		{"attributes not an object", bad(readReturns(bolt.FrameData{Frame: a, Datasets: []bolt.DatasetFrame{{Dataset: "admin", Attrs: []byte(`[1]`)}}})), 0, "not a JSON object"},
		{"feature not an object", bad(readReturns(bolt.FrameData{Frame: a, Datasets: []bolt.DatasetFrame{{Dataset: "health", FeatureCount: 1, Features: [][]byte{[]byte(`"x"`)}}}})), 0, "a feature of dataset \"health\""},
		{"Charge names nothing", bad(chargeReturns(nil, nil)), 1, `"paid" neither charged nor left out`},
		{"Charge names another", bad(chargeReturns([]string{"admin"}, nil)), 1, `"admin" as charged`},
		{"Charge names both", bad(chargeReturns([]string{"paid"}, []string{"paid"})), 1, `"paid" as left out`},
		{"Charge names twice", bad(chargeReturns([]string{"paid", "paid"}, nil)), 1, "reported twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var store *fakeData
			var s *Server
			var logs *bytes.Buffer
			if tt.store != nil {
				store = tt.store()
				s, logs = dataServer(t, store)
			} else {
				s, logs = dataServer(t, nil)
			}
			w := get(s, "/v1/frames/data?ids="+frameA+","+frameB, secretFeatures)
			env := wantError(t, w, 500, codeInternal)
			if env.Error.Message != internalMessage {
				t.Errorf("message %q says more than the vague one", env.Error.Message)
			}
			line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
			if cause, _ := line["error"].(string); !strings.Contains(cause, tt.cause) || line["level"] != "ERROR" {
				t.Errorf("log line %v, want an error with %q", line, tt.cause)
			}
			if store != nil && len(store.charges) != tt.charges {
				t.Errorf("Charge called %d times, want %d", len(store.charges), tt.charges)
			}
		})
	}
}

func TestServer_HandleFramesData_DeadlineBeforeCharge(t *testing.T) {
	// A request whose budget is spent before the charge is not charged.
	m := testStore(10)
	fake := m.fake()
	s := New(Config{
		Frames:         func() FrameIndex { return abuja },
		Keys:           func() KeyLookup { return dataKeys },
		Data:           fake,
		RequestTimeout: time.Nanosecond,
	})
	w := get(s, "/v1/frames/data?ids="+frameB, secretGood)
	wantError(t, w, 500, codeInternal)
	if len(fake.charges) != 0 || m.balance != 10 {
		t.Errorf("charged after the deadline: %+v, balance %d", fake.charges, m.balance)
	}
}

func TestServer_HandleFramesData_UnsortedReadable(t *testing.T) {
	// Datasets appear in ascending id whatever order the store uses, and
	// the store's slice is not reordered in place.
	m := testStore(10)
	fake := m.fake()
	var given []state.Access
	fake.ReadableFn = func(k state.Key) ([]state.Access, error) {
		acc, _ := m.Readable(k)
		slices.Reverse(acc)
		given = acc
		return acc, nil
	}
	fake.ReadFramesFn = func(ids []string, frames []uint64, f bool, c int) ([]bolt.FrameData, error) {
		fd, err := m.ReadFrames(ids, frames, f, c)
		for _, x := range fd {
			slices.Reverse(x.Datasets)
		}
		return fd, err
	}
	s, _ := dataServer(t, fake)
	d := dataOK(t, get(s, "/v1/frames/data?ids="+frameB, secretFeatures))
	if got, want := d.summary(), frameB+"[bbox]:admin(a),health(f2 /2),paid(a)"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if given[0].Dataset.ID != "paid_elsewhere" {
		t.Errorf("the store's slice was reordered: %v", given[0].Dataset.ID)
	}
}

func TestServer_HandleFramesData_NothingReadable(t *testing.T) {
	fake := (&memStore{}).fake()
	s, _ := dataServer(t, fake)
	w := get(s, "/v1/frames/data?ids="+frameA+","+frameOut, secretFeatures)
	d := dataOK(t, w)
	if got, want := d.summary(), frameA+"[bbox]: | "+frameOut+":"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	want := `{"data":{"frames":[{"id":"` + frameA + `","bbox":[7.3916667,9.075,7.4,9.0833333],"datasets":[]},{"id":"5","datasets":[]}]}}` + "\n"
	if w.Body.String() != want {
		t.Errorf("body\n got %s\nwant %s", w.Body, want)
	}
	if len(fake.reads) != 0 {
		t.Errorf("ReadFrames called with nothing to read")
	}
}

// bigStore is 6 datasets recording on every frame of frames: attributes on
// all six, features on three (building footprints, clinics, roads), one
// dataset per query.
func bigStore(frames []uint64, featuresPerFrame int) *memStore {
	m := &memStore{balance: 1 << 40}
	specs := []struct {
		id, name string
		attrs    func(i int) string
		feature  string
		perQuery bool
	}{
		{"admin", "Administrative areas", func(i int) string {
			return `{"state":"Kano","lga":"Nassarawa","ward":"Gama ` + strconv.Itoa(i) + `"}`
		}, "", false},
		{"buildings", "Buildings", func(i int) string { return `{"buildings":` + strconv.Itoa(100+i) + `}` }, buildingFeat, false},
		{"health", "Health facilities", func(i int) string { return `{"facilities":2}` }, clinicFeat, false},
		{"population", "Estimated population", func(i int) string {
			return `{"population_2020":` + strconv.FormatFloat(1234.5+float64(i), 'f', 1, 64) + `}`
		}, "", false},
		{"roads", "Roads", func(i int) string { return `{"road_km":3.25}` },
			`{"type":"Feature","geometry":{"type":"LineString","coordinates":[[8.51,11.99],[8.52,12.0],[8.53,12.01]]},"properties":{"class":"primary","name":"Zaria Road"}}`, false},
		{"settlement", "Settlement class", func(i int) string { return `{"class":"urban"}` }, "", true},
	}
	for _, sp := range specs {
		md := memDataset{access: state.Access{Dataset: state.Dataset{ID: sp.id, Name: sp.name, Price: 1}, PerQuery: sp.perQuery},
			attrs: map[uint64]string{}, features: map[uint64][]string{}}
		for i, fr := range frames {
			md.attrs[fr] = sp.attrs(i)
			if sp.feature != "" {
				md.features[fr] = slices.Repeat([]string{sp.feature}, featuresPerFrame)
			}
		}
		m.datasets = append(m.datasets, md)
	}
	return m
}

func TestServer_HandleFramesData_Big(t *testing.T) {
	// 100 frames x 6 datasets with features: streamed in chunks, valid JSON,
	// every frame and dataset present, the caps applied.
	var ids []string
	var frames []uint64
	for i := range 100 {
		ids = append(ids, id(9700+i/10, 22480+i%10))
		frames = append(frames, mustID(ids[i]))
	}
	m := bigStore(frames, 5)
	s, _ := dataServer(t, m.fake())
	w := get(s, "/v1/frames/data?ids="+strings.Join(ids, ","), secretFeatures)
	if w.Body.Len() < chunkSize {
		t.Fatalf("only %d bytes: not a streamed answer", w.Body.Len())
	}
	if w.Header().Get("Content-Length") != "" {
		t.Errorf("a streamed answer has a Content-Length")
	}
	d := dataOK(t, w)
	if len(d.Frames) != 100 || !slices.Equal(d.Charged, []string{"settlement"}) {
		t.Fatalf("%d frames, charged %v", len(d.Frames), d.Charged)
	}
	shown := map[string]int{}
	for i, f := range d.Frames {
		if f.ID != ids[i] || len(f.Datasets) != 6 {
			t.Fatalf("frame %d: %s with %d datasets", i, f.ID, len(f.Datasets))
		}
		for _, e := range f.Datasets {
			if e.Features != nil {
				shown[e.ID] += len(e.Features.Features)
			}
			if e.FeatureCount != nil && *e.FeatureCount != 5 {
				t.Errorf("featureCount %d", *e.FeatureCount)
			}
		}
	}
	if shown["buildings"] != 200 || shown["health"] != 200 || shown["roads"] != 200 || len(shown) != 3 {
		t.Errorf("features shown per dataset %v, want 200 each for three", shown)
	}
	if !json.Valid(w.Body.Bytes()) {
		t.Error("not valid JSON")
	}
}

// FuzzParseDataQuery checks the data call's query parsing from a raw query
// string: it never panics, errors are invalid naming ids, and an accepted
// query gives 1 to 100 distinct ids that round-trip.
func FuzzParseDataQuery(f *testing.F) {
	for _, seed := range []string{
		"ids=419494487",                          // one lattice id
		"ids=3,1,2,1&ids=1",                      // order, duplicates, a repeated parameter
		"ids=1&bbox=1,2,3,4&limit=0",             // parameters of GET /v1/frames are ignored
		"",                                       // nothing
		"ids=",                                   // empty
		"ids=1,,2",                               // empty entry
		"ids=%zz",                                // bad escape
		"ids=%31%2C2",                            // escaped digits and comma
		"ids=1+2",                                // a plus is a space
		"ids=18446744073709551615",               // the largest id
		"ids=18446744073709551616",               // one more
		"ids=1;ids=2",                            // a semicolon is no separator
		"IDS=1",                                  // names are case-sensitive
		"ids=" + keyPrefix + "secret",            // a key in the wrong place is not echoed
		"ids=" + strings.Repeat("1,", 100) + "1", // 101 ids
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ids, err := parseDataQuery(parseQuery(raw))
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.code != codeInvalid || !strings.Contains(ae.message, "ids") {
				t.Fatalf("parseDataQuery(%q): error %v is not an invalid naming ids", raw, err)
			}
			if i := strings.Index(ae.message, keyPrefix); i >= 0 && !strings.HasPrefix(ae.message[i:], keyPrefix+"[redacted]") {
				t.Fatalf("the message echoes a key: %s", ae.message)
			}
			return
		}
		if len(ids) == 0 || len(ids) > maxIDs {
			t.Fatalf("parseDataQuery(%q) accepted %d ids", raw, len(ids))
		}
		text := make([]string, len(ids))
		for i, id := range ids {
			if slices.Contains(ids[:i], id) {
				t.Fatalf("parseDataQuery(%q) = %v repeats %d", raw, ids, id)
			}
			text[i] = strconv.FormatUint(id, 10)
		}
		again, err := parseDataQuery(parseQuery("ids=" + strings.Join(text, ",")))
		if err != nil || !slices.Equal(again, ids) {
			t.Fatalf("round trip %q -> %v -> %v, %v", raw, ids, again, err)
		}
	})
}

// BenchmarkHandleFramesData100x6 is the data call for 100 frames and 6
// datasets through the whole Server (routing, auth, the real limiter,
// parsing, the grid, assembling, one charge, streaming, logging), with a key
// that reads features: 5 features per frame on three datasets, capped at 200
// each, about 200 KB of answer. The store is a fake that returns prepared
// records, so the figure is the handler's own.
func BenchmarkHandleFramesData100x6(b *testing.B) {
	ix := benchIndex(b)
	const secret = "svc_sk_BenchBenchBenchBenchBenchBench00"
	keys := digestKeys{state.Digest(secret): {ID: "key_bench", OrgID: "org_bench", Digest: state.Digest(secret),
		Caps: []state.Capability{state.CapFrameRead, state.CapFeatureRead}}}
	lc := limiter.DefaultConfig()
	lc.Key = limiter.Limit{PerMinute: 6e10, Burst: 1e9}
	lc.Org = lc.Key

	var ids []string
	var frames []uint64
	for i := range 100 {
		ids = append(ids, id(9500+i/10, 22500+i%10))
		frames = append(frames, mustID(ids[i]))
	}
	m := bigStore(frames, 5)
	access, _ := m.Readable(state.Key{})
	names := make([]string, len(access))
	for i := range access {
		names[i] = access[i].Dataset.ID
	}
	prepared, _ := m.ReadFrames(names, frames, true, featureCap)
	store := preparedData{access: access, frames: prepared}
	s := New(Config{
		Frames:  func() FrameIndex { return ix },
		Keys:    func() KeyLookup { return keys },
		Logger:  slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Limiter: limiter.New(lc, limiter.NewMemory(lc), nil),
		Data:    store,
	})
	r := benchRequest("/v1/frames/data?ids=" + strings.Join(ids, ","))
	w := &discardWriter{header: http.Header{}}
	s.ServeHTTP(w, r)
	if w.status != http.StatusOK || w.n < 100<<10 {
		b.Fatalf("status %d, %d bytes", w.status, w.n)
	}
	b.SetBytes(int64(w.n))
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		w.status, w.n = 0, 0
		s.ServeHTTP(w, r)
	}
}

// preparedData is a DataStore that answers with prepared records and
// charges every dataset asked, recording nothing: a store of no cost.
type preparedData struct {
	access []state.Access
	frames []bolt.FrameData
}

func (p preparedData) Readable(state.Key) ([]state.Access, error) { return p.access, nil }

func (p preparedData) ReadFrames([]string, []uint64, bool, int) ([]bolt.FrameData, error) {
	return p.frames, nil
}

func (p preparedData) Charge(_, _, _ string, ds []state.DatasetPrice, _ time.Time) ([]string, []string, error) {
	charged := make([]string, len(ds))
	for i, d := range ds {
		charged[i] = d.ID
	}
	return charged, nil, nil
}

// startingData is fakeData whose charges are decided before they are
// durable (state.ChargeStarter, as *bolt.Store's): durable runs once the
// handler has the decision, and says whether anything was written yet.
type startingData struct {
	*fakeData
	durable func() error
}

func (d startingData) StartCharge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) ([]string, []string, func() error, error) {
	charged, leftOut, err := d.Charge(orgID, keyID, requestID, ds, now)
	return charged, leftOut, d.durable, err
}

// The data call writes its answer while the charge commits and sends
// nothing before the charge is durable; when the commit fails, the answer
// is 500 internal and reports no charge.
func TestServer_HandleFramesData_SentOnlyWhenDurable(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("commit fails=", fail), func(t *testing.T) {
			m := testStore(10)
			w := httptest.NewRecorder()
			waited := 0
			store := startingData{fakeData: m.fake(), durable: func() error {
				waited++
				if w.Body.Len() > 0 || w.Header().Get("Content-Type") != "" {
					t.Errorf("the answer was sent before the charge was durable: %d %q", w.Code, w.Body)
				}
				if fail {
					return errors.New("fsync: input/output error")
				}
				return nil
			}}
			s, logs := dataServer(t, store)
			r := httptest.NewRequest(http.MethodGet, "/v1/frames/data?ids="+frameB, nil)
			r.Header.Set("Authorization", "Bearer "+secretGood)
			s.ServeHTTP(w, r)
			if waited != 1 {
				t.Fatalf("durable called %d times, want 1", waited)
			}
			if !fail {
				if d := dataOK(t, w); !slices.Equal(d.Charged, []string{"paid"}) {
					t.Errorf("charged %v, want [paid]", d.Charged)
				}
				return
			}
			wantError(t, w, 500, codeInternal)
			if strings.Contains(w.Body.String(), "paid") {
				t.Errorf("a failed charge's answer shows the dataset: %s", w.Body)
			}
			line := accessLine(t, logs, w.Header().Get("X-Request-Id"))
			if cause, _ := line["error"].(string); !strings.Contains(cause, "charging 1 per-query datasets to organisation org1: fsync: input/output error") {
				t.Errorf("log line %v", line)
			}
		})
	}
}

// expectingData is startingData that is also told when a charge is
// coming (state.ChargeExpecter, as *bolt.Store is): it counts the
// expectations still open, and records whether one was open when each
// charge started.
type expectingData struct {
	startingData
	open          *int
	openAtCharges *[]int
}

func (d expectingData) ExpectCharge() func() {
	*d.open++
	done := false
	return func() {
		if !done {
			done = true
			*d.open--
		}
	}
}

func (d expectingData) StartCharge(orgID, keyID, requestID string, ds []state.DatasetPrice, now time.Time) ([]string, []string, func() error, error) {
	*d.openAtCharges = append(*d.openAtCharges, *d.open)
	return d.startingData.StartCharge(orgID, keyID, requestID, ds, now)
}

// A data call says a charge may come before it reads, and ends that
// expectation whatever happens: charged, uncharged, refused before reading
// and failed. An expectation left open would hold the store's next group
// of charges for its full delay.
func TestServer_HandleFramesData_ExpectsItsCharge(t *testing.T) {
	for _, c := range []struct {
		name, query string
		fail        bool
		charges     int
		code        int
	}{
		{"charged", "ids=" + frameB, false, 1, 200},
		{"nothing to charge", "ids=" + frameC, false, 0, 200},
		{"bad ids", "ids=nope", false, 0, 400},
		{"commit fails", "ids=" + frameB, true, 1, 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := testStore(10)
			open := 0
			var atCharges []int
			store := expectingData{
				startingData: startingData{fakeData: m.fake(), durable: func() error {
					if c.fail {
						return errors.New("fsync: input/output error")
					}
					return nil
				}},
				open: &open, openAtCharges: &atCharges,
			}
			s, _ := dataServer(t, store)
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodGet, "/v1/frames/data?"+c.query, nil)
			r.Header.Set("Authorization", "Bearer "+secretGood)
			s.ServeHTTP(w, r)
			if w.Code != c.code {
				t.Fatalf("status %d, want %d: %s", w.Code, c.code, w.Body)
			}
			if len(atCharges) != c.charges {
				t.Fatalf("%d charges, want %d", len(atCharges), c.charges)
			}
			for _, n := range atCharges {
				if n != 1 {
					t.Errorf("%d expectations open when the charge started, want 1 (its own)", n)
				}
			}
			if open != 0 {
				t.Errorf("%d expectations left open after the request", open)
			}
		})
	}
}

package admin

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"frameindex/bolt"
	"frameindex/grid"
	"frameindex/index"
)

// Dataset and licence operation names.
const (
	OpDatasetImport = "dataset.import"
	OpDatasetList   = "dataset.list"
	OpDatasetShow   = "dataset.show"
	OpDatasetPrice  = "dataset.price"
	OpDatasetRemove = "dataset.remove"
	OpLicenceGrant  = "licence.grant"
	OpLicenceRevoke = "licence.revoke"
	OpLicenceList   = "licence.list"
)

// DatasetManifest describes one dataset version to import: the dataset's
// description, its declared attributes, and the input files that make it.
// It is also the JSON file format `frameindex import --manifest F` reads
// (ReadManifest), for example:
//
//	{
//	  "id": "admin", "name": "Administrative identity", "owner": "demo",
//	  "description": "State and LGA of every frame", "price": 1,
//	  "source": "geoBoundaries NGA ADM1/ADM2 (CC BY 4.0)",
//	  "attributes": [
//	    {"name": "state", "label": "State", "type": "category", "aggregation": "mode"},
//	    {"name": "lga", "label": "Local government area", "type": "category", "aggregation": "mode"},
//	    {"name": "population_2020", "label": "Estimated population", "unit": "people",
//	     "type": "number", "aggregation": "sum", "year": 2020, "aliases": ["people"]}
//	  ],
//	  "inputs": [
//	    {"zones": "/data/nga_states.geojson", "properties": {"state_name": "state"}},
//	    {"zones": "/data/nga_lgas.geojson", "properties": {"lga_name": "lga"}},
//	    {"csv": "/data/population.csv"},
//	    {"features": "/data/clinics.geojson", "outside": "skip"}
//	  ]
//	}
//
// Members: id (the organisation-id rule, ^[a-z0-9][a-z0-9_-]{0,63}$), name
// (default: the id), description, owner (an existing organisation), price
// (credits a per-query licensee pays per contributing request; absent or 0
// means 1), source (default: the inputs' file names), attributes (see
// bolt.Attribute; aggregation defaults to "mode" for category and text and
// must be given for numbers), inputs (at least one). Unknown members are
// refused.
//
// Inputs merge into one dataset version: a frame's attributes from all
// inputs go into one object (in declared order), and features are appended
// in input order. A frame given the same attribute twice — by two inputs,
// two rows of one CSV, or two zones inputs — is an error naming both
// places. Each input is exactly one of:
//
//   - "csv": a UTF-8 CSV file with a header row, keyed by a frame_id column
//     or by lat and lon columns (decimal degrees, resolved to the frame
//     holding the point). Every other column must be a declared attribute;
//     every cell of a number attribute must be a finite decimal number
//     (written as a JSON number: integers exactly as given without leading
//     zeros, other numbers in their shortest form), category and text cells
//     become JSON strings; an empty cell leaves the attribute absent on that
//     frame.
//   - "features": GeoJSON features (points, lines, polygons), each stored on
//     the frame holding its representative point (see RepresentativePoint).
//   - "zones": GeoJSON Polygon/MultiPolygon features with "properties", a
//     map from property name to declared attribute name: each zone's
//     property values (JSON kept as it is; a missing or null property
//     leaves the attribute absent) go to every frame whose centre the zone
//     contains (a lattice cell's centre; for imported polygon frames, the
//     centre of the frame's bounding box). Where two zones of one input
//     contain a frame's centre, the first zone in the file wins.
//
// "outside": "skip" on a csv or features input skips rows and features on
// no frame of the grid (counted in DatasetView.Skipped) instead of refusing
// the import. Input paths must be absolute when sent to a server.
type DatasetManifest struct {
	ID          string           `json:"id"`
	Name        string           `json:"name,omitempty"`
	Description string           `json:"description,omitempty"`
	Owner       string           `json:"owner"`
	Price       int64            `json:"price,omitempty"`
	Source      string           `json:"source,omitempty"`
	Attributes  []bolt.Attribute `json:"attributes,omitempty"`
	Inputs      []DatasetInput   `json:"inputs"`
}

// DatasetInput is one input file of a DatasetManifest: exactly one of CSV,
// Features and Zones is set.
type DatasetInput struct {
	CSV        string            `json:"csv,omitempty"`
	Features   string            `json:"features,omitempty"`
	Zones      string            `json:"zones,omitempty"`
	Properties map[string]string `json:"properties,omitempty"` // zones: property -> attribute
	Outside    string            `json:"outside,omitempty"`    // csv, features: "" or "error" (default), "skip"
}

// DatasetImport imports a new version of a dataset, replacing the old one.
type DatasetImport struct {
	Manifest DatasetManifest `json:"manifest"`
}

// DatasetShow shows a dataset with its licences.
type DatasetShow struct {
	ID string `json:"id"`
}

// DatasetPrice sets what a per-query licensee pays per contributing request.
type DatasetPrice struct {
	ID      string `json:"id"`
	Credits int64  `json:"credits"`
}

// DatasetRemove deletes a dataset, its records and its licences.
type DatasetRemove struct {
	ID string `json:"id"`
}

// LicenceGrant lets an organisation read a dataset, in mode subscription or
// per_query (replacing an earlier licence of the pair).
type LicenceGrant struct {
	OrgID   string `json:"org"`
	Dataset string `json:"dataset"`
	Mode    string `json:"mode"`
}

// LicenceRevoke ends an organisation's licence to a dataset.
type LicenceRevoke struct {
	OrgID   string `json:"org"`
	Dataset string `json:"dataset"`
}

// LicenceList lists the licences of one organisation, or all when OrgID is
// empty.
type LicenceList struct {
	OrgID string `json:"org,omitempty"`
}

// DatasetView is the result of DatasetImport: the dataset as stored, and
// how many rows or features "outside": "skip" left out. It encodes as one
// flat JSON object.
type DatasetView struct {
	bolt.Dataset
	Skipped int `json:"skipped,omitempty"`
}

// DatasetDetail is the result of DatasetShow: the dataset and the licences
// granted on it (never nil).
type DatasetDetail struct {
	bolt.Dataset
	Licences []bolt.Licence `json:"licences"`
}

// doDataset runs the dataset and licence operations; ok is false for an
// operation it does not know.
func (o *Ops) doDataset(ctx context.Context, op string, args json.RawMessage) (res any, ok bool, err error) {
	switch op {
	case OpDatasetImport:
		var a DatasetImport
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		v, err := o.ImportDataset(ctx, a.Manifest)
		if err != nil {
			return nil, true, err
		}
		return v, true, nil
	case OpDatasetList:
		ds, err := o.Store.Datasets()
		if err != nil {
			return nil, true, err
		}
		if ds == nil {
			ds = []bolt.Dataset{}
		}
		return ds, true, nil
	case OpDatasetShow:
		var a DatasetShow
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		d, err := o.Store.Dataset(a.ID)
		if err != nil {
			return nil, true, err
		}
		all, err := o.Store.Licences("")
		if err != nil {
			return nil, true, err
		}
		ls := []bolt.Licence{}
		for _, l := range all {
			if l.Dataset == d.ID {
				ls = append(ls, l)
			}
		}
		return DatasetDetail{Dataset: d, Licences: ls}, true, nil
	case OpDatasetPrice:
		var a DatasetPrice
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		if a.Credits < 0 {
			return nil, true, fmt.Errorf("%w: price of dataset %q: %d credits is negative", bolt.ErrInvalid, a.ID, a.Credits)
		}
		d, err := o.Store.SetPrice(a.ID, a.Credits)
		if err != nil {
			return nil, true, err
		}
		o.changed(ChangeDatasets)
		return d, true, nil
	case OpDatasetRemove:
		var a DatasetRemove
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		d, err := o.Store.Dataset(a.ID)
		if err != nil {
			return nil, true, err
		}
		if err := o.Store.RemoveDataset(a.ID); err != nil {
			return nil, true, err
		}
		o.changed(ChangeDatasets)
		return d, true, nil
	case OpLicenceGrant:
		var a LicenceGrant
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		if a.Mode != bolt.LicenceSubscription && a.Mode != bolt.LicencePerQuery {
			return nil, true, fmt.Errorf("%w: licence mode %q: want %s or %s", bolt.ErrInvalid, a.Mode,
				bolt.LicenceSubscription, bolt.LicencePerQuery)
		}
		l, err := o.Store.GrantLicence(a.OrgID, a.Dataset, a.Mode, o.now())
		if err != nil {
			return nil, true, err
		}
		o.changed(ChangeDatasets)
		return l, true, nil
	case OpLicenceRevoke:
		var a LicenceRevoke
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		ls, err := o.Store.Licences(a.OrgID)
		if err != nil {
			return nil, true, err
		}
		var found bolt.Licence
		for _, l := range ls {
			if l.OrgID == a.OrgID && l.Dataset == a.Dataset {
				found = l
			}
		}
		if err := o.Store.RevokeLicence(a.OrgID, a.Dataset); err != nil {
			return nil, true, err
		}
		if found.OrgID == "" {
			found = bolt.Licence{OrgID: a.OrgID, Dataset: a.Dataset}
		}
		o.changed(ChangeDatasets)
		return found, true, nil
	case OpLicenceList:
		var a LicenceList
		if err := decodeArgs(args, &a); err != nil {
			return nil, true, err
		}
		ls, err := o.Store.Licences(a.OrgID)
		if err != nil {
			return nil, true, err
		}
		if ls == nil {
			ls = []bolt.Licence{}
		}
		return ls, true, nil
	}
	return nil, false, nil
}

// ReadManifest reads a DatasetManifest from a JSON file, strictly (unknown
// members and trailing data are errors), and makes relative input paths
// absolute against the manifest's own directory. Errors wrap bolt.ErrInvalid
// and name the file. The manifest is not checked further here: ImportDataset
// does that.
func ReadManifest(path string) (DatasetManifest, error) {
	var m DatasetManifest
	f, err := os.Open(path)
	if err != nil {
		return m, fmt.Errorf("%w: manifest: %v", bolt.ErrInvalid, err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%w: manifest %s: %v", bolt.ErrInvalid, path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return m, fmt.Errorf("%w: manifest %s: data after the JSON object", bolt.ErrInvalid, path)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return m, fmt.Errorf("%w: manifest %s: %v", bolt.ErrInvalid, path, err)
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i := range m.Inputs {
		in := &m.Inputs[i]
		in.CSV, in.Features, in.Zones = abs(in.CSV), abs(in.Features), abs(in.Zones)
	}
	return m, nil
}

var (
	datasetIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	attrNamePattern  = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)
)

// Input kinds.
const (
	inputCSV = iota
	inputFeatures
	inputZones
)

// maxDeclared bounds the attributes and the inputs of one manifest (they
// are numbered in 16 bits while importing).
const maxDeclared = 1000

// checkedInput is a DatasetInput after checking.
type checkedInput struct {
	kind  int
	path  string
	skip  bool
	props []zoneProp // zones: sorted by property name
}

type zoneProp struct {
	property string
	attr     int
}

// checkManifest checks everything about m that needs no input file and
// returns the dataset to store and its inputs. Errors wrap bolt.ErrInvalid.
func checkManifest(m DatasetManifest) (bolt.Dataset, []checkedInput, error) {
	bad := func(format string, args ...any) (bolt.Dataset, []checkedInput, error) {
		return bolt.Dataset{}, nil, fmt.Errorf("%w: dataset %q: %s", bolt.ErrInvalid, m.ID, fmt.Sprintf(format, args...))
	}
	if !datasetIDPattern.MatchString(m.ID) {
		return bolt.Dataset{}, nil, fmt.Errorf("%w: invalid dataset id %q: must match ^[a-z0-9][a-z0-9_-]{0,63}$", bolt.ErrInvalid, m.ID)
	}
	if m.Owner == "" {
		return bad("no owner organisation")
	}
	if m.Price < 0 {
		return bad("price %d is negative", m.Price)
	}
	d := bolt.Dataset{ID: m.ID, Name: m.Name, Description: m.Description, Owner: m.Owner,
		Price: m.Price, Source: m.Source}
	if d.Name == "" {
		d.Name = d.ID
	}
	if d.Price == 0 {
		d.Price = 1
	}
	attrIndex := map[string]int{}
	for i, a := range m.Attributes {
		if !attrNamePattern.MatchString(a.Name) {
			return bad("attribute %d: name %q must match ^[A-Za-z0-9_]{1,64}$", i, a.Name)
		}
		switch a.Name {
		case "frame_id", "lat", "lon":
			return bad("attribute %q: the name is reserved for the CSV key columns", a.Name)
		}
		if _, dup := attrIndex[a.Name]; dup {
			return bad("attribute %q is declared twice", a.Name)
		}
		attrIndex[a.Name] = i
		if a.Label == "" {
			a.Label = a.Name
		}
		switch a.Type {
		case bolt.TypeNumber:
			if a.Aggregation == "" {
				return bad("attribute %q: a number needs an aggregation (sum, mean or mode)", a.Name)
			}
		case bolt.TypeCategory, bolt.TypeText:
			if a.Aggregation == "" {
				a.Aggregation = bolt.AggMode
			}
			if a.Aggregation == bolt.AggSum || a.Aggregation == bolt.AggMean {
				return bad("attribute %q: aggregation %q is only for numbers; a %s takes mode", a.Name, a.Aggregation, a.Type)
			}
		default:
			return bad("attribute %q: type %q: want number, category or text", a.Name, a.Type)
		}
		switch a.Aggregation {
		case bolt.AggSum, bolt.AggMean, bolt.AggMode:
		default:
			return bad("attribute %q: aggregation %q: want sum, mean or mode", a.Name, a.Aggregation)
		}
		if a.Year < 0 || a.Year > 9999 {
			return bad("attribute %q: year %d is not a year", a.Name, a.Year)
		}
		for _, al := range a.Aliases {
			if strings.TrimSpace(al) == "" {
				return bad("attribute %q: an alias is empty", a.Name)
			}
		}
		d.Attributes = append(d.Attributes, a)
	}
	if len(m.Attributes) > maxDeclared {
		return bad("%d attributes; at most %d", len(m.Attributes), maxDeclared)
	}
	if len(m.Inputs) == 0 {
		return bad("no inputs")
	}
	if len(m.Inputs) > maxDeclared {
		return bad("%d inputs; at most %d", len(m.Inputs), maxDeclared)
	}
	var ins []checkedInput
	var names []string
	for i, in := range m.Inputs {
		var c checkedInput
		n := 0
		if in.CSV != "" {
			c.kind, c.path, n = inputCSV, in.CSV, n+1
		}
		if in.Features != "" {
			c.kind, c.path, n = inputFeatures, in.Features, n+1
		}
		if in.Zones != "" {
			c.kind, c.path, n = inputZones, in.Zones, n+1
		}
		if n != 1 {
			return bad("input %d: give exactly one of csv, features and zones", i)
		}
		if !filepath.IsAbs(c.path) {
			return bad("input %d: path %q must be absolute", i, c.path)
		}
		switch in.Outside {
		case "", "error":
		case "skip":
			if c.kind == inputZones {
				return bad("input %d (%s): outside: skip is for csv and features inputs", i, c.path)
			}
			c.skip = true
		default:
			return bad("input %d (%s): outside %q: want error or skip", i, c.path, in.Outside)
		}
		if c.kind != inputZones && len(in.Properties) > 0 {
			return bad("input %d (%s): properties are for zones inputs", i, c.path)
		}
		if c.kind == inputZones {
			if len(in.Properties) == 0 {
				return bad("input %d (%s): a zones input needs properties (property -> attribute)", i, c.path)
			}
			seen := map[int]string{}
			for p, a := range in.Properties {
				k, ok := attrIndex[a]
				if !ok {
					return bad("input %d (%s): property %q maps to %q, which is not a declared attribute", i, c.path, p, a)
				}
				if q, dup := seen[k]; dup {
					p, q = min(p, q), max(p, q)
					return bad("input %d (%s): properties %q and %q both map to attribute %q", i, c.path, p, q, a)
				}
				seen[k] = p
				c.props = append(c.props, zoneProp{property: p, attr: k})
			}
			sort.Slice(c.props, func(x, y int) bool { return c.props[x].property < c.props[y].property })
		}
		ins = append(ins, c)
		names = append(names, [...]string{"csv ", "features ", "zones "}[c.kind]+baseName(c.path))
	}
	if d.Source == "" {
		d.Source = strings.Join(names, "; ")
	}
	return d, ins, nil
}

// ImportDataset imports the dataset version m describes and stores it with
// Store.ImportDataset, which replaces the dataset's previous version
// atomically. Inputs are streamed (a CSV row or a GeoJSON feature at a time)
// and reported through o.Progress; what they yield is kept compactly in
// memory until every input has been read and checked, so nothing is written
// when any input is bad. The grid is loaded once, from the store.
//
// Errors wrap bolt.ErrInvalid for bad input and name the file and the line
// (CSV, counted from 1, the header being line 1) or the feature (GeoJSON,
// counted from 0 as in grid.ReadFeatures) with the reason; bolt.ErrNotFound
// when the owner does not exist; bolt.ErrNoGrid when the file holds no
// grid; ctx's error when ctx ends. Safe for concurrent use (imports run one
// after another in the store's writer).
func (o *Ops) ImportDataset(ctx context.Context, m DatasetManifest) (DatasetView, error) {
	d, records, skipped, err := o.gather(ctx, m)
	if err != nil {
		return DatasetView{}, err
	}
	stored, err := o.Store.ImportDataset(d, records, o.now())
	if err != nil {
		return DatasetView{}, err
	}
	o.changed(ChangeDatasets)
	return DatasetView{Dataset: stored, Skipped: skipped}, nil
}

// gather checks m, reads its inputs and returns the dataset and its
// records, ready for Store.ImportDataset, and how many rows or features
// were skipped. It writes nothing.
func (o *Ops) gather(ctx context.Context, m DatasetManifest) (bolt.Dataset, []bolt.FrameRecord, int, error) {
	d, ins, err := checkManifest(m)
	if err != nil {
		return bolt.Dataset{}, nil, 0, err
	}
	if _, err := o.Store.Org(d.Owner); err != nil {
		return bolt.Dataset{}, nil, 0, fmt.Errorf("dataset %q: owner: %w", d.ID, err)
	}
	info, runs, frames, err := o.Store.Grid()
	if err != nil {
		return bolt.Dataset{}, nil, 0, err
	}
	var ix *index.Index
	if info.Kind == bolt.GridLattice {
		ix = index.NewLattice(runs)
	} else {
		ix = index.NewPolygons(frames)
	}
	im := newImporter(ix, d.Attributes)
	for i, in := range ins {
		if err := o.readInput(ctx, im, i, in); err != nil {
			return bolt.Dataset{}, nil, 0, err
		}
	}
	records, err := im.records()
	if err != nil {
		return bolt.Dataset{}, nil, 0, fmt.Errorf("%w: dataset %q: %v", bolt.ErrInvalid, d.ID, err)
	}
	return d, records, im.skipped, nil
}

// readInput opens one input and feeds it to im.
func (o *Ops) readInput(ctx context.Context, im *importer, i int, in checkedInput) error {
	r, closeFn, err := o.openInput(in.path, "reading "+baseName(in.path))
	if err != nil {
		return err
	}
	defer closeFn()
	switch in.kind {
	case inputCSV:
		err = im.readCSV(ctx, r, in.path, i, in.skip)
	case inputFeatures:
		err = im.readFeatures(ctx, r, in.path, i, in.skip)
	default:
		err = im.readZones(ctx, r, in.path, i, in.props)
	}
	if err != nil && !errors.Is(err, bolt.ErrInvalid) && ctx.Err() == nil {
		err = fmt.Errorf("%w: %v", bolt.ErrInvalid, err)
	}
	return err
}

// importer gathers what the inputs of one import give, compactly: an
// attribute value is an entry of 24 bytes pointing into a shared byte
// arena (a zone's value is stored once for all its frames), a feature an
// entry pointing into another.
type importer struct {
	ix      *index.Index
	attrs   []bolt.Attribute
	byName  map[string]int
	given   []bool // attribute i was a CSV column or a zone mapping target
	entries []attrEntry
	vals    []byte
	feats   []featEntry
	fbytes  []byte
	paths   []string // by input number
	kinds   []int
	skipped int
	scratch []byte
}

type attrEntry struct {
	frame uint64
	attr  uint16
	input uint16
	pos   int32 // CSV line or feature number
	off   uint32
	n     uint32
}

type featEntry struct {
	frame uint64
	off   uint64
	n     uint32
}

// maxArena bounds each byte arena so that offsets fit their fields.
const maxArena = math.MaxUint32

func newImporter(ix *index.Index, attrs []bolt.Attribute) *importer {
	im := &importer{ix: ix, attrs: attrs, byName: map[string]int{}, given: make([]bool, len(attrs))}
	for i, a := range attrs {
		im.byName[a.Name] = i
	}
	return im
}

func (im *importer) register(path string, input, kind int) {
	for len(im.paths) <= input {
		im.paths = append(im.paths, "")
		im.kinds = append(im.kinds, 0)
	}
	im.paths[input], im.kinds[input] = path, kind
}

// place names where an entry came from: "FILE line N" or "FILE feature N".
func (im *importer) place(input uint16, pos int32) string {
	if im.kinds[input] == inputCSV {
		return fmt.Sprintf("%s line %d", im.paths[input], pos)
	}
	return fmt.Sprintf("%s feature %d", im.paths[input], pos)
}

// addValue stores a value's JSON text and returns its place in the arena.
func (im *importer) addValue(v []byte) (off, n uint32, err error) {
	if len(im.vals)+len(v) > maxArena {
		return 0, 0, errors.New("the attribute values exceed 4 GiB")
	}
	off = uint32(len(im.vals))
	im.vals = append(im.vals, v...)
	return off, uint32(len(v)), nil
}

// readCSV reads one CSV input (see DatasetManifest).
func (im *importer) readCSV(ctx context.Context, r io.Reader, path string, input int, skip bool) error {
	im.register(path, input, inputCSV)
	cr := csv.NewReader(bufio.NewReaderSize(r, 256<<10))
	cr.ReuseRecord = true
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s line %d: %s", bolt.ErrInvalid, path, line, fmt.Sprintf(format, args...))
	}
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return bad(pe.Line, "%v", pe.Err)
		}
		return fmt.Errorf("%w: %s: %v", bolt.ErrInvalid, path, err)
	}
	header, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%w: %s: the file is empty; want a header row (frame_id, or lat and lon, and attribute columns)", bolt.ErrInvalid, path)
	}
	if err != nil {
		return csvErr(err)
	}
	header = slices.Clone(header) // the reader reuses its record
	const (
		colIgnore = -1
		colID     = -2
		colLat    = -3
		colLon    = -4
	)
	cols := make([]int, len(header))
	idCol, latCol, lonCol := -1, -1, -1
	seen := map[string]int{}
	for i, h := range header {
		if !utf8.ValidString(h) {
			return bad(1, "column %d: the header is not valid UTF-8 (the file must be UTF-8)", i+1)
		}
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.TrimSpace(h)
		if h == "" {
			return bad(1, "column %d has no name", i+1)
		}
		if j, dup := seen[h]; dup {
			return bad(1, "column %q appears twice (columns %d and %d)", h, j+1, i+1)
		}
		seen[h] = i
		switch h {
		case "frame_id":
			cols[i], idCol = colID, i
		case "lat":
			cols[i], latCol = colLat, i
		case "lon":
			cols[i], lonCol = colLon, i
		default:
			k, ok := im.byName[h]
			if !ok {
				return bad(1, "column %q is not a declared attribute (declared: %s)", h, im.declared())
			}
			cols[i] = k
			im.given[k] = true
		}
	}
	switch {
	case idCol >= 0 && (latCol >= 0 || lonCol >= 0):
		return bad(1, "has frame_id and lat/lon columns; key the rows by one or the other")
	case idCol < 0 && latCol < 0 && lonCol < 0:
		return bad(1, "has no frame_id column, nor lat and lon columns")
	case idCol < 0 && latCol < 0:
		return bad(1, "has a lon column but no lat column")
	case idCol < 0 && lonCol < 0:
		return bad(1, "has a lat column but no lon column")
	}
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		rows++
		if rows%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for i, f := range rec {
			if !utf8.ValidString(f) {
				return bad(line, "column %q: not valid UTF-8 (the file must be UTF-8)", strings.TrimSpace(header[i]))
			}
		}
		var frame uint64
		if idCol >= 0 {
			s := strings.TrimSpace(rec[idCol])
			if s == "" {
				return bad(line, "frame_id is empty")
			}
			id, err := parseFrameID(s)
			if err != nil {
				return bad(line, "frame_id %q %v", clip(s), err)
			}
			if _, ok := im.ix.Shape(id); !ok {
				if skip {
					im.skipped++
					continue
				}
				return bad(line, "frame %d is not in the grid", id)
			}
			frame = id
		} else {
			lat, err := parseCoord(rec[latCol], "lat", 90)
			if err != nil {
				return bad(line, "%v", err)
			}
			lon, err := parseCoord(rec[lonCol], "lon", 180)
			if err != nil {
				return bad(line, "%v", err)
			}
			sh, ok := im.ix.At(lat, lon)
			if !ok {
				if skip {
					im.skipped++
					continue
				}
				return bad(line, "lat %s, lon %s is on no frame of the grid", strings.TrimSpace(rec[latCol]), strings.TrimSpace(rec[lonCol]))
			}
			frame = sh.ID
		}
		for i, f := range rec {
			k := cols[i]
			if k < 0 || strings.TrimSpace(f) == "" {
				continue
			}
			a := im.attrs[k]
			v := im.scratch[:0]
			if a.Type == bolt.TypeNumber {
				var ok bool
				if v, ok = appendNumber(v, f); !ok {
					if strings.TrimSpace(f) == "" {
						continue
					}
					return bad(line, "column %q: %q is not a finite decimal number", a.Name, clip(f))
				}
			} else {
				v = appendJSONString(v, f)
			}
			im.scratch = v
			off, n, err := im.addValue(v)
			if err != nil {
				return bad(line, "%v", err)
			}
			im.entries = append(im.entries, attrEntry{frame: frame, attr: uint16(k), input: uint16(input),
				pos: int32(min(line, math.MaxInt32)), off: off, n: n})
		}
	}
	if rows == 0 {
		return fmt.Errorf("%w: %s: the file has a header but no rows", bolt.ErrInvalid, path)
	}
	return nil
}

func (im *importer) declared() string {
	if len(im.attrs) == 0 {
		return "none"
	}
	names := make([]string, len(im.attrs))
	for i, a := range im.attrs {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s + "..."
	}
	return s
}

// parseFrameID parses 1-20 ASCII digits.
func parseFrameID(s string) (uint64, error) {
	if len(s) > 20 {
		return 0, errors.New("has more than 20 digits")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, errors.New("is not a frame id (want decimal digits)")
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("is too large for a frame id")
	}
	return v, nil
}

// parseCoord parses a decimal coordinate in [-limit, limit].
func parseCoord(s, name string, limit float64) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%s is empty", name)
	}
	if !isDecimal(t) {
		return 0, fmt.Errorf("%s %q is not a decimal number", name, clip(t))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(v, 0) || v < -limit || v > limit {
		return 0, fmt.Errorf("%s %s is outside -%v..%v", name, clip(t), limit, limit)
	}
	return v, nil
}

// isDecimal reports whether s is a decimal number: an optional sign,
// digits with an optional fraction (at least one digit), an optional
// exponent. No spaces, hex, underscores, Inf or NaN.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// appendNumber appends the JSON number text of the decimal cell s (spaces
// around it ignored) and reports whether s was a finite decimal number.
// Integers keep every digit, without a plus sign or leading zeros ("-0"
// becomes 0); other numbers are written in their shortest round-trip form,
// in plain notation from 1e-6 up to 1e21 and in exponent form outside.
func appendNumber(dst []byte, s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if !isDecimal(s) {
		return dst, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return dst, false // out of float64 range, too large or too small
	}
	if strings.IndexAny(s, ".eE") < 0 {
		neg := s[0] == '-'
		s = strings.TrimLeft(strings.TrimLeft(s, "+-"), "0")
		if s == "" {
			return append(dst, '0'), true
		}
		if neg {
			dst = append(dst, '-')
		}
		return append(dst, s...), true
	}
	if v == 0 {
		return append(dst, '0'), true
	}
	if a := math.Abs(v); a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(dst, v, 'f', -1, 64), true
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64), true
}

// appendJSONString appends s as a JSON string. s must be valid UTF-8; it is
// kept as it is except for the escapes JSON requires.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// readFeatures reads one features input: each feature is stored, compact,
// on the frame holding its representative point.
func (im *importer) readFeatures(ctx context.Context, r io.Reader, path string, input int, skip bool) error {
	im.register(path, input, inputFeatures)
	n := 0
	err := grid.ReadFeatures(r, func(i int, f grid.InFeature) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n++
		pt, err := RepresentativePoint(f.Geometry)
		if err != nil {
			return fmt.Errorf("%w: %s feature %d: %v", bolt.ErrInvalid, path, i, err)
		}
		sh, ok := im.ix.At(pt[1], pt[0])
		if !ok {
			if skip {
				im.skipped++
				return nil
			}
			return fmt.Errorf("%w: %s feature %d: its point (lon %v, lat %v) is on no frame of the grid (\"outside\": \"skip\" skips such features)",
				bolt.ErrInvalid, path, i, pt[0], pt[1])
		}
		start := len(im.fbytes)
		im.fbytes, err = appendFeature(im.fbytes, f)
		if err != nil {
			im.fbytes = im.fbytes[:start]
			return fmt.Errorf("%w: %s feature %d: %v", bolt.ErrInvalid, path, i, err)
		}
		if len(im.fbytes)-start > maxArena {
			return fmt.Errorf("%w: %s feature %d: larger than 4 GiB", bolt.ErrInvalid, path, i)
		}
		im.feats = append(im.feats, featEntry{frame: sh.ID, off: uint64(start), n: uint32(len(im.fbytes) - start)})
		return nil
	})
	if err != nil {
		if errors.Is(err, bolt.ErrInvalid) || ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %s: %v", bolt.ErrInvalid, path, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: no features", bolt.ErrInvalid, path)
	}
	return nil
}

// appendFeature appends f as one compact GeoJSON Feature:
// {"type":"Feature","id":…,"geometry":…,"properties":…}. The id and the
// geometry are the input's JSON compacted; the properties are the input's
// members with their values unchanged (numbers keep their text; members
// come in name order, and HTML characters are not escaped).
func appendFeature(dst []byte, f grid.InFeature) ([]byte, error) {
	dst = append(dst, `{"type":"Feature"`...)
	if f.ID != nil {
		dst = append(dst, `,"id":`...)
		var err error
		if dst, err = appendCompact(dst, f.ID); err != nil {
			return dst, fmt.Errorf("id: %v", err)
		}
	}
	dst = append(dst, `,"geometry":`...)
	var err error
	if dst, err = appendCompact(dst, f.Geometry); err != nil {
		return dst, fmt.Errorf("geometry: %v", err)
	}
	dst = append(dst, `,"properties":`...)
	if f.Properties == nil {
		dst = append(dst, "null"...)
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(f.Properties); err != nil {
			return dst, fmt.Errorf("properties: %v", err)
		}
		dst = append(dst, bytes.TrimRight(buf.Bytes(), "\n")...)
	}
	return append(dst, '}'), nil
}

func appendCompact(dst []byte, raw []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

// readZones reads one zones input: every frame whose centre a zone
// contains gets the zone's mapped properties; the first zone containing a
// centre wins.
func (im *importer) readZones(ctx context.Context, r io.Reader, path string, input int, props []zoneProp) error {
	im.register(path, input, inputZones)
	for _, p := range props {
		im.given[p.attr] = true
	}
	claimed := map[uint64]struct{}{}
	type zoneVal struct {
		attr   uint16
		off, n uint32
	}
	var zv []zoneVal
	n := 0
	err := grid.ReadFeatures(r, func(i int, f grid.InFeature) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n++
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: %s feature %d: %s", bolt.ErrInvalid, path, i, fmt.Sprintf(format, args...))
		}
		if f.Geometry == nil {
			return bad("has no geometry; a zone is a Polygon or MultiPolygon")
		}
		m, err := grid.ParseGeometry(f.Geometry)
		if err != nil {
			return bad("%v", err)
		}
		if err := m.Validate(); err != nil {
			return bad("%v", err)
		}
		zv = zv[:0]
		for _, p := range props {
			v, ok := f.Properties[p.property]
			if !ok || v == nil {
				continue
			}
			a := im.attrs[p.attr]
			var text []byte
			switch v := v.(type) {
			case json.Number:
				if a.Type != bolt.TypeNumber {
					return bad("property %q is the number %s, but attribute %q is a %s (want a string)", p.property, clip(string(v)), a.Name, a.Type)
				}
				text = []byte(v)
			case string:
				if a.Type == bolt.TypeNumber {
					return bad("property %q is the string %q, but attribute %q is a number", p.property, clip(v), a.Name)
				}
				text = appendJSONString(nil, v)
			default:
				return bad("property %q is %s; attribute %q takes a %s", p.property, jsonKindOf(v), a.Name,
					map[bool]string{true: "number", false: "string"}[a.Type == bolt.TypeNumber])
			}
			off, ln, err := im.addValue(text)
			if err != nil {
				return bad("%v", err)
			}
			zv = append(zv, zoneVal{attr: uint16(p.attr), off: off, n: ln})
		}
		zc := newZoneContainer(m)
		im.ix.Box(m.Bounds(), im.ix.Len(), func(sh grid.Shape) bool {
			lon, lat := (sh.Box.MinLon+sh.Box.MaxLon)/2, (sh.Box.MinLat+sh.Box.MaxLat)/2
			if !zc.contains(lon, lat) {
				return true
			}
			if _, taken := claimed[sh.ID]; taken {
				return true
			}
			claimed[sh.ID] = struct{}{}
			for _, v := range zv {
				im.entries = append(im.entries, attrEntry{frame: sh.ID, attr: v.attr, input: uint16(input),
					pos: int32(min(i, math.MaxInt32)), off: v.off, n: v.n})
			}
			return true
		})
		return nil
	})
	if err != nil {
		if errors.Is(err, bolt.ErrInvalid) || ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%w: %s: %v", bolt.ErrInvalid, path, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s: no zones", bolt.ErrInvalid, path)
	}
	return nil
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// zoneContainer answers grid.MultiPolygon.ContainsPoint for many points,
// fast for points that share a latitude (the cells of one lattice row): the
// crossings of each polygon's rings with that latitude are found once and
// sorted, and a point is inside when an odd number of them lie east of it.
// Points within rounding distance of a crossing are decided by the exact
// ContainsPoint, so the answer is always the same as ContainsPoint's.
type zoneContainer struct {
	m     grid.MultiPolygon
	bound []grid.Box
	lat   float64
	have  bool
	xs    [][]float64 // per polygon, for lat
}

func newZoneContainer(m grid.MultiPolygon) *zoneContainer {
	z := &zoneContainer{m: m, bound: make([]grid.Box, len(m)), xs: make([][]float64, len(m))}
	for i, p := range m {
		z.bound[i] = grid.MultiPolygon{p}.Bounds()
	}
	return z
}

func (z *zoneContainer) contains(lon, lat float64) bool {
	if !z.have || lat != z.lat {
		z.lat, z.have = lat, true
		for i, p := range z.m {
			xs := z.xs[i][:0]
			if lat >= z.bound[i].MinLat && lat <= z.bound[i].MaxLat {
				xs = appendCrossings(xs, p, lat)
				slices.Sort(xs)
			}
			z.xs[i] = xs
		}
	}
	for i, p := range z.m {
		xs := z.xs[i]
		if len(xs) == 0 {
			continue
		}
		k, _ := slices.BinarySearch(xs, lon) // first crossing at or east of lon
		near := false
		if k < len(xs) && xs[k]-lon <= 1e-9*(1+math.Abs(lon)) {
			near = true
		}
		if k > 0 && lon-xs[k-1] <= 1e-9*(1+math.Abs(lon)) {
			near = true
		}
		if near {
			if p.ContainsPoint(lon, lat) {
				return true
			}
			continue
		}
		if (len(xs)-k)%2 == 1 {
			return true
		}
	}
	return false
}

// appendCrossings appends the longitudes where the rings of p cross the
// latitude y, counting an edge as grid's ContainsPoint does: when exactly
// one of its ends lies south of y.
func appendCrossings(xs []float64, p grid.Polygon, y float64) []float64 {
	for _, r := range p {
		n := len(r)
		if n < 2 {
			continue
		}
		j := n - 1
		for i := 0; i < n; i++ {
			a, b := r[j], r[i]
			j = i
			if (a[1] < y) == (b[1] < y) {
				continue
			}
			if a[1] > b[1] {
				a, b = b, a
			}
			xs = append(xs, a[0]+(y-a[1])*(b[0]-a[0])/(b[1]-a[1]))
		}
	}
	return xs
}

// RepresentativePoint returns the point ([lon, lat]) a GeoJSON geometry is
// located by: a Point itself; a MultiPoint its first point; a LineString,
// or a MultiLineString's first line, the point halfway along it (lengths
// measured in degrees, as drawn on a plate carrée map); a Polygon, or a
// MultiPolygon's first polygon, the centroid of its outer ring when the
// polygon contains it (holes respected), else the midpoint of the first
// inside stretch of the horizontal line through the outer ring's vertical
// middle. Polygons must pass grid.MultiPolygon.Validate. Errors describe a
// missing, unsupported (GeometryCollection) or broken geometry.
func RepresentativePoint(raw json.RawMessage) (grid.Point, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return grid.Point{}, errors.New("has no geometry")
	}
	var g struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		return grid.Point{}, fmt.Errorf("geometry: %v", err)
	}
	bad := func(format string, args ...any) (grid.Point, error) {
		return grid.Point{}, fmt.Errorf("%s: %s", g.Type, fmt.Sprintf(format, args...))
	}
	switch g.Type {
	case "Point":
		var c []float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not a position [lon, lat]")
		}
		return position(c, "Point")
	case "MultiPoint":
		var c [][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not an array of positions")
		}
		if len(c) == 0 {
			return bad("has no points")
		}
		return position(c[0], "MultiPoint point 0")
	case "LineString":
		var c [][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not an array of positions")
		}
		return halfway(c, "LineString")
	case "MultiLineString":
		var c [][][]float64
		if err := json.Unmarshal(g.Coordinates, &c); err != nil || c == nil {
			return bad("coordinates are not an array of lines")
		}
		if len(c) == 0 {
			return bad("has no lines")
		}
		return halfway(c[0], "MultiLineString line 0")
	case "Polygon", "MultiPolygon":
		m, err := grid.ParseGeometry(raw)
		if err != nil {
			return grid.Point{}, err
		}
		if err := m.Validate(); err != nil {
			return grid.Point{}, err
		}
		return polygonPoint(m[0]), nil
	case "":
		return grid.Point{}, errors.New("geometry has no type")
	}
	return bad("geometry type %q is not supported (Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon)", g.Type)
}

func position(c []float64, what string) (grid.Point, error) {
	if len(c) < 2 {
		return grid.Point{}, fmt.Errorf("%s has %d numbers, want at least 2 (lon, lat)", what, len(c))
	}
	if !(c[0] >= -180 && c[0] <= 180) {
		return grid.Point{}, fmt.Errorf("%s longitude %v is outside -180..180", what, c[0])
	}
	if !(c[1] >= -90 && c[1] <= 90) {
		return grid.Point{}, fmt.Errorf("%s latitude %v is outside -90..90", what, c[1])
	}
	return grid.Point{c[0], c[1]}, nil
}

// halfway returns the point halfway along a line of at least 2 positions.
func halfway(c [][]float64, what string) (grid.Point, error) {
	if len(c) < 2 {
		return grid.Point{}, fmt.Errorf("%s has %d positions, want at least 2", what, len(c))
	}
	pts := make([]grid.Point, len(c))
	total := 0.0
	for i, p := range c {
		pt, err := position(p, fmt.Sprintf("%s point %d", what, i))
		if err != nil {
			return grid.Point{}, err
		}
		pts[i] = pt
		if i > 0 {
			total += math.Hypot(pt[0]-pts[i-1][0], pt[1]-pts[i-1][1])
		}
	}
	half := total / 2
	for i := 1; i < len(pts); i++ {
		seg := math.Hypot(pts[i][0]-pts[i-1][0], pts[i][1]-pts[i-1][1])
		if seg > 0 && half <= seg {
			t := half / seg
			return grid.Point{pts[i-1][0] + t*(pts[i][0]-pts[i-1][0]), pts[i-1][1] + t*(pts[i][1]-pts[i-1][1])}, nil
		}
		half -= seg
	}
	return pts[len(pts)-1], nil // zero length, or rounding at the very end
}

// polygonPoint returns a point of a valid polygon: its outer ring's
// centroid when inside, else a point on its surface.
func polygonPoint(p grid.Polygon) grid.Point {
	outer := p[0]
	if c, ok := ringCentroid(outer); ok && p.ContainsPoint(c[0], c[1]) {
		return c
	}
	minLat, maxLat := outer[0][1], outer[0][1]
	for _, q := range outer {
		minLat, maxLat = min(minLat, q[1]), max(maxLat, q[1])
	}
	y := (minLat + maxLat) / 2
	xs := appendCrossings(nil, p, y)
	slices.Sort(xs)
	if len(xs) >= 2 {
		return grid.Point{(xs[0] + xs[1]) / 2, y}
	}
	return outer[0]
}

// ringCentroid returns the area centroid of a ring; ok is false for a ring
// without area. Coordinates are taken relative to the first point, to keep
// rounding small.
func ringCentroid(r grid.Ring) (grid.Point, bool) {
	if len(r) < 3 {
		return grid.Point{}, false
	}
	o := r[0]
	var a, cx, cy float64
	for i := 0; i < len(r); i++ {
		p, q := r[i], r[(i+1)%len(r)]
		x0, y0, x1, y1 := p[0]-o[0], p[1]-o[1], q[0]-o[0], q[1]-o[1]
		cross := x0*y1 - x1*y0
		a += cross
		cx += (x0 + x1) * cross
		cy += (y0 + y1) * cross
	}
	if a == 0 || math.IsNaN(a) || math.IsInf(a, 0) {
		return grid.Point{}, false
	}
	return grid.Point{o[0] + cx/(3*a), o[1] + cy/(3*a)}, true
}

// records turns what the inputs gave into one record per frame, in frame
// order: the attributes object (attributes in declared order) and the
// features in input order. Errors: a frame given one attribute twice, a
// declared attribute no input gives, nothing at all to import.
func (im *importer) records() ([]bolt.FrameRecord, error) {
	for k, ok := range im.given {
		if !ok {
			return nil, fmt.Errorf("attribute %q is declared but no input gives it (no CSV column or zone property maps to it)", im.attrs[k].Name)
		}
	}
	es := im.entries
	slices.SortFunc(es, func(a, b attrEntry) int {
		if c := cmp.Compare(a.frame, b.frame); c != 0 {
			return c
		}
		if c := cmp.Compare(a.attr, b.attr); c != 0 {
			return c
		}
		if c := cmp.Compare(a.input, b.input); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for i := 1; i < len(es); i++ {
		if es[i].frame == es[i-1].frame && es[i].attr == es[i-1].attr {
			return nil, fmt.Errorf("frame %d is given attribute %q twice: by %s and by %s", es[i].frame,
				im.attrs[es[i].attr].Name, im.place(es[i-1].input, es[i-1].pos), im.place(es[i].input, es[i].pos))
		}
	}
	fs := im.feats
	slices.SortStableFunc(fs, func(a, b featEntry) int { return cmp.Compare(a.frame, b.frame) })
	if len(es) == 0 && len(fs) == 0 {
		return nil, errors.New("nothing to import: no frame got an attribute value or a feature")
	}

	// Attribute objects go into one buffer; records take slices of it once
	// it is complete, so that a growing buffer cannot leave them behind.
	names := make([][]byte, len(im.attrs))
	for k, a := range im.attrs {
		names[k] = append(appendJSONString(nil, a.Name), ':')
	}
	// Size everything first: the frames (a merge of the two sorted lists)
	// and the attribute objects' text.
	frames, size := 0, 0
	for i, j := 0, 0; i < len(es) || j < len(fs); frames++ {
		var frame uint64
		switch {
		case j >= len(fs):
			frame = es[i].frame
		case i >= len(es):
			frame = fs[j].frame
		default:
			frame = min(es[i].frame, fs[j].frame)
		}
		if i < len(es) && es[i].frame == frame {
			size += 2
		}
		for ; i < len(es) && es[i].frame == frame; i++ {
			size += len(names[es[i].attr]) + int(es[i].n) + 1
		}
		for ; j < len(fs) && fs[j].frame == frame; j++ {
		}
	}
	type span struct{ off, end int }
	recs := make([]bolt.FrameRecord, 0, frames)
	spans := make([]span, 0, frames)
	buf := make([]byte, 0, size)
	i, j := 0, 0
	for i < len(es) || j < len(fs) {
		var frame uint64
		switch {
		case j >= len(fs):
			frame = es[i].frame
		case i >= len(es):
			frame = fs[j].frame
		default:
			frame = min(es[i].frame, fs[j].frame)
		}
		rec := bolt.FrameRecord{Frame: frame}
		sp := span{-1, -1}
		if i < len(es) && es[i].frame == frame {
			sp.off = len(buf)
			buf = append(buf, '{')
			for first := true; i < len(es) && es[i].frame == frame; i, first = i+1, false {
				if !first {
					buf = append(buf, ',')
				}
				e := es[i]
				buf = append(buf, names[e.attr]...)
				buf = append(buf, im.vals[e.off:e.off+e.n]...)
			}
			buf = append(buf, '}')
			sp.end = len(buf)
		}
		for ; j < len(fs) && fs[j].frame == frame; j++ {
			f := fs[j]
			rec.Features = append(rec.Features, im.fbytes[f.off:f.off+uint64(f.n):f.off+uint64(f.n)])
		}
		recs = append(recs, rec)
		spans = append(spans, sp)
	}
	for k, sp := range spans {
		if sp.off >= 0 {
			recs[k].Attrs = buf[sp.off:sp.end:sp.end]
		}
	}
	return recs, nil
}

package ingest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"frameindex/state"
)

// Manifest describes one dataset version to import: the dataset's
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
// state.Attribute; aggregation defaults to "mode" for category and text and
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
//   - "features": features (points, lines, polygons), each stored on the
//     frame holding its representative point (see RepresentativePoint).
//     "count": ATTR records the number of features on each frame; "take",
//     a map from property to attribute, aggregates a property per frame by
//     the attribute's declared aggregation (sum or mean of numbers, mode of
//     strings or numbers); "attributesOnly": true keeps what count and take
//     derive and stores no feature.
//   - "zones": Polygon/MultiPolygon features with "properties" (or "take"),
//     a map from property name to declared attribute name: each zone's
//     property values (JSON kept as it is; a missing or null property
//     leaves the attribute absent) go to every frame whose centre the zone
//     contains (a lattice cell's centre; for imported polygon frames, the
//     centre of the frame's bounding box). Where two zones of one input
//     contain a frame's centre, the first zone in the file wins.
//   - "raster": a GeoTIFF in EPSG:4326 whose "band" (from 1, default 1)
//     gives "attribute" (default: the only declared one) per frame by its
//     aggregation: sum splits each pixel among the frames it overlaps by
//     area, keeping totals; mean is area-weighted; mode takes the class
//     covering most area (a category attribute gets it as a string).
//
// Features and zones are read from GeoJSON, GeoJSON text sequences (one
// feature per line), ESRI shapefiles (a .shp beside its .dbf and .prj, or
// a .zip) and GeoPackages, chosen by extension and content; "layer" picks a
// GeoPackage layer or a shapefile of a .zip holding several. Shapefiles and
// GeoPackages in EPSG:4326, UTM 31N-33N on WGS 84 or Minna, or the Nigeria
// West, Mid and East Belts are reprojected to WGS 84 (package crs); other
// systems are refused.
//
// "outside": "skip" on a csv or features input skips rows and features on
// no frame of the grid (counted in DatasetView.Skipped) instead of refusing
// the import. Input paths must be absolute when sent to a server.
type Manifest struct {
	ID          string            `json:"id"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Owner       string            `json:"owner"`
	Price       int64             `json:"price,omitempty"`
	Source      string            `json:"source,omitempty"`
	Attributes  []state.Attribute `json:"attributes,omitempty"`
	Inputs      []Input           `json:"inputs"`
}

// Input is one input file of a Manifest: exactly one of CSV, Features,
// Zones and Raster is set.
type Input struct {
	CSV      string `json:"csv,omitempty"`
	Features string `json:"features,omitempty"`
	Zones    string `json:"zones,omitempty"`
	Raster   string `json:"raster,omitempty"`
	// Properties (zones): property -> attribute, copied onto the frames.
	Properties map[string]string `json:"properties,omitempty"`
	// Take (features): property -> attribute, aggregated per frame by the
	// attribute's declared aggregation; (zones): the same as Properties.
	Take map[string]string `json:"take,omitempty"`
	// Count (features): the attribute that records the number of features
	// on each frame.
	Count string `json:"count,omitempty"`
	// AttributesOnly (features): keep only what Count and Take derive; the
	// features themselves are not stored.
	AttributesOnly bool `json:"attributesOnly,omitempty"`
	// Layer (features, zones): the layer of a GeoPackage, or the shapefile
	// of a .zip, when it holds several.
	Layer string `json:"layer,omitempty"`
	// Attribute and Band (raster): the attribute the band's figure per frame
	// goes to, and the band (from 1; 0 means 1).
	Attribute string `json:"attribute,omitempty"`
	Band      int    `json:"band,omitempty"`
	// Outside (csv, features): "" or "error" (default), "skip".
	Outside string `json:"outside,omitempty"`
}

// ReadManifest reads a Manifest from a JSON file, strictly (unknown
// members and trailing data are errors), and makes relative input paths
// absolute against the manifest's own directory. Errors wrap state.ErrInvalid
// and name the file. The manifest is not checked further here: ImportDataset
// does that.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	f, err := os.Open(path)
	if err != nil {
		return m, fmt.Errorf("%w: manifest: %v", state.ErrInvalid, err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%w: manifest %s: %v", state.ErrInvalid, path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return m, fmt.Errorf("%w: manifest %s: data after the JSON object", state.ErrInvalid, path)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return m, fmt.Errorf("%w: manifest %s: %v", state.ErrInvalid, path, err)
	}
	abs := func(p string) string {
		if p == "" || p == Stdin || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i := range m.Inputs {
		in := &m.Inputs[i]
		in.CSV, in.Features, in.Zones, in.Raster = abs(in.CSV), abs(in.Features), abs(in.Zones), abs(in.Raster)
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
	inputRaster
)

// inputKindNames name the input kinds in sources and messages.
var inputKindNames = [...]string{"csv", "features", "zones", "raster"}

// maxDeclared bounds the attributes and the inputs of one manifest (they
// are numbered in 16 bits while importing).
const maxDeclared = 1000

// checkedInput is a Input after checking.
type checkedInput struct {
	kind  int
	path  string
	skip  bool
	props []zoneProp // zones and features' take: sorted by property name
	count int        // features: the attribute Count names, or -1
	only  bool       // features: AttributesOnly
	layer string
	attr  int // raster: the attribute
	band  int // raster: from 1
}

type zoneProp struct {
	property string
	attr     int
}

// checkManifest checks everything about m that needs no input file and
// returns the dataset to store and its inputs. Errors wrap state.ErrInvalid.
func checkManifest(m Manifest) (state.Dataset, []checkedInput, error) {
	bad := func(format string, args ...any) (state.Dataset, []checkedInput, error) {
		return state.Dataset{}, nil, fmt.Errorf("%w: dataset %q: %s", state.ErrInvalid, m.ID, fmt.Sprintf(format, args...))
	}
	if !datasetIDPattern.MatchString(m.ID) {
		return state.Dataset{}, nil, fmt.Errorf("%w: invalid dataset id %q: must match ^[a-z0-9][a-z0-9_-]{0,63}$", state.ErrInvalid, m.ID)
	}
	if m.Owner == "" {
		return bad("no owner organisation")
	}
	if m.Price < 0 {
		return bad("price %d is negative", m.Price)
	}
	d := state.Dataset{ID: m.ID, Name: m.Name, Description: m.Description, Owner: m.Owner,
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
		case state.TypeNumber:
			if a.Aggregation == "" {
				return bad("attribute %q: a number needs an aggregation (sum, mean or mode)", a.Name)
			}
		case state.TypeCategory, state.TypeText:
			if a.Aggregation == "" {
				a.Aggregation = state.AggMode
			}
			if a.Aggregation == state.AggSum || a.Aggregation == state.AggMean {
				return bad("attribute %q: aggregation %q is only for numbers; a %s takes mode", a.Name, a.Aggregation, a.Type)
			}
		default:
			return bad("attribute %q: type %q: want number, category or text", a.Name, a.Type)
		}
		switch a.Aggregation {
		case state.AggSum, state.AggMean, state.AggMode:
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
	stdinInputs := 0
	for i, in := range m.Inputs {
		c := checkedInput{count: -1, attr: -1}
		n := 0
		for k, p := range [...]string{in.CSV, in.Features, in.Zones, in.Raster} {
			if p != "" {
				c.kind, c.path, n = k, p, n+1
			}
		}
		if n != 1 {
			return bad("input %d: give exactly one of csv, features, zones and raster", i)
		}
		if c.path == Stdin {
			if stdinInputs++; stdinInputs > 1 {
				return bad("input %d: standard input (\"-\") can feed one input only", i)
			}
		} else if !filepath.IsAbs(c.path) {
			return bad("input %d: path %q must be absolute", i, c.path)
		}
		where := fmt.Sprintf("input %d (%s)", i, c.path)
		switch in.Outside {
		case "", "error":
		case "skip":
			if c.kind != inputCSV && c.kind != inputFeatures {
				return bad("%s: outside: skip is for csv and features inputs", where)
			}
			c.skip = true
		default:
			return bad("%s: outside %q: want error or skip", where, in.Outside)
		}
		if c.kind != inputZones && len(in.Properties) > 0 {
			return bad("%s: properties are for zones inputs", where)
		}
		if c.kind != inputZones && c.kind != inputFeatures && len(in.Take) > 0 {
			return bad("%s: take is for features and zones inputs", where)
		}
		if c.kind != inputFeatures && (in.Count != "" || in.AttributesOnly) {
			return bad("%s: count and attributesOnly are for features inputs", where)
		}
		if c.kind != inputFeatures && c.kind != inputZones && in.Layer != "" {
			return bad("%s: layer is for features and zones inputs", where)
		}
		if c.kind != inputRaster && (in.Attribute != "" || in.Band != 0) {
			return bad("%s: attribute and band are for raster inputs", where)
		}
		c.layer, c.only = in.Layer, in.AttributesOnly
		take := in.Take
		if c.kind == inputZones {
			if len(in.Properties) > 0 && len(in.Take) > 0 {
				return bad("%s: give properties or take, not both", where)
			}
			if len(take) == 0 {
				take = in.Properties
			}
			if len(take) == 0 {
				return bad("%s: a zones input needs properties (property -> attribute)", where)
			}
		}
		seen := map[int]string{}
		for p, a := range take {
			k, ok := attrIndex[a]
			if !ok {
				return bad("%s: property %q maps to %q, which is not a declared attribute", where, p, a)
			}
			if q, dup := seen[k]; dup {
				p, q = min(p, q), max(p, q)
				return bad("%s: properties %q and %q both map to attribute %q", where, p, q, a)
			}
			seen[k] = p
			c.props = append(c.props, zoneProp{property: p, attr: k})
		}
		sort.Slice(c.props, func(x, y int) bool { return c.props[x].property < c.props[y].property })
		if in.Count != "" {
			k, ok := attrIndex[in.Count]
			if !ok {
				return bad("%s: count goes to %q, which is not a declared attribute", where, in.Count)
			}
			if a := d.Attributes[k]; a.Type != state.TypeNumber || a.Aggregation != state.AggSum {
				return bad("%s: count goes to %q, which must be a number with aggregation sum", where, in.Count)
			}
			if p, dup := seen[k]; dup {
				return bad("%s: attribute %q is given both by count and by property %q", where, in.Count, p)
			}
			c.count = k
		}
		if c.only && c.count < 0 && len(c.props) == 0 {
			return bad("%s: attributesOnly keeps only what count and take derive, and neither is given", where)
		}
		if c.kind == inputRaster {
			k, ok := attrIndex[in.Attribute]
			switch {
			case in.Attribute == "" && len(d.Attributes) == 1:
				k, ok = 0, true
			case in.Attribute == "":
				return bad("%s: a raster input needs attribute: the declared attribute its band gives", where)
			case !ok:
				return bad("%s: attribute %q is not declared", where, in.Attribute)
			}
			if d.Attributes[k].Type != state.TypeNumber && d.Attributes[k].Type != state.TypeCategory {
				return bad("%s: attribute %q is a %s; a raster gives numbers (or classes as a category)", where, d.Attributes[k].Name, d.Attributes[k].Type)
			}
			if in.Band < 0 {
				return bad("%s: band %d: bands are numbered from 1", where, in.Band)
			}
			c.attr, c.band = k, max(in.Band, 1)
		}
		ins = append(ins, c)
		names = append(names, inputKindNames[c.kind]+" "+filepath.Base(c.path))
	}
	if d.Source == "" {
		d.Source = strings.Join(names, "; ")
	}
	return d, ins, nil
}

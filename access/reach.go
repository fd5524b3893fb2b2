package access

import (
	"fmt"

	"frameindex/bolt"
	"frameindex/reach"
)

// FeatureScanner scans a dataset's features; *bolt.Store implements it
// (see bolt.Store.ScanFeatures).
type FeatureScanner interface {
	ScanFeatures(id string, ranges []bolt.IDRange, from bolt.FeatureKey, fn func(k bolt.FeatureKey, feature []byte) bool) error
}

// Reach is the shared cache of nationwide point indexes (reach.Index),
// one per features dataset version: built on first use from every
// feature's point (a Point's position, a MultiPoint's first, else the
// centre of the geometry's bounding box, as the nearest search measures
// from), by one goroutine while others wait; dropped when the dataset's
// version changes or, least recently used first, when the cache holds
// more than its byte bound. About 80 bytes a feature: the OpenStreetMap
// health facilities of Nigeria (4,385) take 350 kB. Safe for concurrent
// use.
type Reach struct{ c *versionCache[*reach.Index] }

// DefaultReachBytes bounds the reach cache of a server.
const DefaultReachBytes = 256 << 20

// NewReach returns an empty cache of at most maxBytes of indexes (the
// newest is always kept).
func NewReach(maxBytes int64) *Reach {
	return &Reach{newVersionCache(maxBytes, (*reach.Index).Bytes)}
}

// Index returns the point index of dataset d at d.Version, built from s on
// first use. Features without a usable position are left out. Errors are
// the scan's, wrapped; a failed build is not cached.
func (r *Reach) Index(s FeatureScanner, d bolt.Dataset) (*reach.Index, error) {
	return r.c.get(d.ID, d.Version, func() (*reach.Index, error) {
		var pts []reach.Point
		err := s.ScanFeatures(d.ID, []bolt.IDRange{bolt.AllFrames}, bolt.FeatureKey{}, func(_ bolt.FeatureKey, ft []byte) bool {
			if lon, lat, ok := featurePoint(ft); ok {
				pts = append(pts, reach.Point{Lon: lon, Lat: lat})
			}
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("reading the features of dataset %s version %d: %w", d.ID, d.Version, err)
		}
		return reach.Build(pts), nil
	})
}

// Package pgstate keeps the shared state (package state) in PostgreSQL so
// that several nodes agree on keys, licences and money.
//
// PLACEHOLDER: this file fixes the package's API for the people building
// on it; the implementation replaces it.
package pgstate

import (
	"context"
	"errors"

	"frameindex/bolt"
	"frameindex/state"
)

// Catalogue is the node's own datasets (its bbolt file); *bolt.Store
// implements it.
type Catalogue interface {
	Datasets() ([]bolt.Dataset, error)
	Dataset(id string) (bolt.Dataset, error)
}

// Options configure Open.
type Options struct {
	// Catalogue is the node's datasets. nil (an administrative command
	// run without --data) makes the operations that need datasets fail
	// with an error saying so.
	Catalogue Catalogue
}

// Store is the shared state in PostgreSQL.
type Store struct {
	state.Store // placeholder
}

var errPlaceholder = errors.New("pgstate: not built yet")

// Open connects to the database at url (postgres://…), checks that its
// schema is the one this build migrates to, and returns the Store.
func Open(ctx context.Context, url string, opt Options) (*Store, error) {
	return nil, errPlaceholder
}

// Close releases the connections.
func (s *Store) Close() {}

// Migrate applies the schema migrations url's database lacks, in order,
// and returns the versions it applied.
func Migrate(ctx context.Context, url string) ([]int, error) { return nil, errPlaceholder }

var _ state.Store = (*Store)(nil)

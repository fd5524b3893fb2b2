package demo_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"frameindex/bolt"
	"frameindex/demo"
	"frameindex/grid"
)

// Build the demo datasets over a small lattice around central Kano.
func ExampleBuild() {
	dir, err := os.MkdirTemp("", "demo")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := bolt.Open(filepath.Join(dir, "frames.db"), bolt.Options{Create: true})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	row, col := grid.CellAt(12.0, 8.52)
	var runs []grid.Run
	for r := row - 10; r < row+10; r++ {
		runs = append(runs, grid.Run{Row: int32(r), Col0: int32(col - 10), Col1: int32(col + 9)})
	}
	if _, err := s.PutLattice(runs, "central Kano"); err != nil {
		log.Fatal(err)
	}

	sum, err := demo.Build(context.Background(), s, time.Now(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range sum.Datasets {
		fmt.Printf("%s (%s): %s\n", d.ID, d.Owner, d.Name)
	}
	fmt.Println(sum.Orgs)
	// Output:
	// admin (demo): Administrative areas (approximate)
	// population (demo): Estimated population
	// buildings (demo): Buildings
	// settlement (demo): Settlement class
	// health (demo): Health facilities
	// nightlights (geodata): Night-time lights
	// [demo geodata]
}

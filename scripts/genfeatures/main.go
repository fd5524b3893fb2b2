// Command genfeatures writes synthetic features over Nigeria as a GeoJSON
// text sequence (one Feature per line) on standard output, for measuring
// imports at national scale: points, or small square "footprints" of about
// 10 m, at seeded random positions in the country's bounding box, with an
// area and a use property.
//
//	go run ./scripts/genfeatures -n 1000000 -kind polygon > footprints.geojsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of features")
	kind := flag.String("kind", "point", "point or polygon")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *kind != "point" && *kind != "polygon" {
		fmt.Fprintln(os.Stderr, "genfeatures: -kind is point or polygon")
		os.Exit(2)
	}
	r := rand.New(rand.NewPCG(*seed, 2))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	uses := []string{"residential", "commercial", "school", "clinic"}
	var b []byte
	for i := range *n {
		// Central Nigeria, well inside the outline, so few fall outside.
		lon, lat := 4+r.Float64()*8.5, 6.5+r.Float64()*5.5
		b = append(b[:0], `{"type":"Feature","properties":{"area_in_meters":`...)
		b = strconv.AppendFloat(b, 20+r.Float64()*200, 'f', 1, 64)
		b = append(b, `,"use":"`...)
		b = append(b, uses[i%len(uses)]...)
		b = append(b, `"},"geometry":`...)
		if *kind == "point" {
			b = append(b, `{"type":"Point","coordinates":[`...)
			b = coord(b, lon, lat)
			b = append(b, "]}"...)
		} else {
			const d = 0.0001
			b = append(b, `{"type":"Polygon","coordinates":[[[`...)
			b = coord(b, lon, lat)
			b = append(b, "],["...)
			b = coord(b, lon+d, lat)
			b = append(b, "],["...)
			b = coord(b, lon+d, lat+d)
			b = append(b, "],["...)
			b = coord(b, lon, lat+d)
			b = append(b, "],["...)
			b = coord(b, lon, lat)
			b = append(b, "]]]}"...)
		}
		b = append(b, "}\n"...)
		w.Write(b)
	}
}

func coord(b []byte, lon, lat float64) []byte {
	b = strconv.AppendFloat(b, lon, 'f', 7, 64)
	b = append(b, ',')
	return strconv.AppendFloat(b, lat, 'f', 7, 64)
}

package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"frameindex/state"
)

// openInput is an input whose header has been checked, ready to read.
type openInput struct {
	read func(ctx context.Context) error
}

// openInput opens input i and checks everything about it that needs no
// data: CSV columns, a vector file's format, layer, fields and coordinate
// system, a raster's georeferencing and bands. The file stays open (closed
// by im.close).
func (im *importer) openInput(ctx context.Context, open Opener, i int, in checkedInput) (*openInput, error) {
	// A directory, a device or an unreadable file is refused here, before
	// anything is read (CheckInputs, run first, refuses it before any
	// input is opened).
	pipe, err := checkSource(in.path, in.kind, true)
	if err != nil {
		return nil, fmt.Errorf("%w: input %d: %v", state.ErrInvalid, i, err)
	}
	if in.kind == inputRaster {
		return im.openRaster(ctx, in, i)
	}
	var src vectorSource
	var r io.Reader
	if in.kind != inputCSV && pipe {
		// A pipe or standard input can be read once: sniff its format
		// from the buffered first bytes.
		rd, closeFn, err := open(in.path, "reading "+inputName(in.path))
		if err != nil {
			return nil, err
		}
		im.closers = append(im.closers, closeFn)
		br := bufio.NewReaderSize(rd, 1<<20)
		head, err := br.Peek(4096)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%w: %s: %v", state.ErrInvalid, in.path, err)
		}
		switch sniffVector(in.path, head) {
		case vectorShapefile, vectorGeoPackage:
			return nil, fmt.Errorf("%w: %s: a GeoPackage or shapefile cannot be read from a pipe (it needs a file to seek in): give the file, or convert on the way (ogr2ogr -f GeoJSONSeq /vsistdout/ …)", state.ErrInvalid, in.path)
		case vectorSeq:
			src = &seqSource{r: br, path: in.path}
		default:
			src = &geojsonSource{r: br, path: in.path}
		}
	} else if in.kind != inputCSV {
		head, _ := openHead(in.path) // an unreadable file is reported by open
		kind := sniffVector(in.path, head)
		if kind == vectorShapefile || kind == vectorGeoPackage {
			s, err := openVectorFile(kind, in)
			if err != nil {
				return nil, err
			}
			im.closers = append(im.closers, s.close)
			src = s
		}
		if src == nil {
			rd, closeFn, err := open(in.path, "reading "+inputName(in.path))
			if err != nil {
				return nil, err
			}
			im.closers = append(im.closers, closeFn)
			br := bufio.NewReaderSize(rd, 1<<20)
			if kind == vectorSeq {
				src = &seqSource{r: br, path: in.path}
			} else {
				src = &geojsonSource{r: br, path: in.path}
			}
		}
	} else {
		rd, closeFn, err := open(in.path, "reading "+inputName(in.path))
		if err != nil {
			return nil, err
		}
		im.closers = append(im.closers, closeFn)
		r = rd
	}
	switch in.kind {
	case inputCSV:
		c, err := im.openCSV(r, in.path, i, in.skip)
		if err != nil {
			return nil, err
		}
		return &openInput{read: c.read}, nil
	case inputFeatures:
		f, err := im.openFeatures(src, in, i)
		if err != nil {
			return nil, err
		}
		return &openInput{read: f.read}, nil
	default:
		z, err := im.openZones(src, in, i)
		if err != nil {
			return nil, err
		}
		return &openInput{read: z.read}, nil
	}
}

// openHead returns the first bytes of a file, for sniffing its format.
func openHead(path string) ([]byte, error) {
	r, closeFn, err := OpenFile(path, "")
	if err != nil {
		return nil, err
	}
	defer closeFn()
	head := make([]byte, 4096)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

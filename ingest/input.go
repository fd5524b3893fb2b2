package ingest

import (
	"bufio"
	"context"
	"errors"
	"io"
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
	if in.kind == inputRaster {
		return im.openRaster(ctx, in, i)
	}
	var src vectorSource
	var r io.Reader
	if in.kind != inputCSV {
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

package shapefile

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"frameindex/ingest/crs"
)

// Options adjust Open.
type Options struct {
	// Layer picks the shapefile in a .zip that holds several: its name
	// without extension (and without folders), case-insensitive. It is
	// ignored for a .shp path.
	Layer string
	// System, when set, is the coordinate system of the data; the .prj is
	// then neither required nor read.
	System *crs.System
}

// Feature is one record.
type Feature struct {
	// Index is the 0-based record number (the record number of the
	// shapefile specification minus one; GDAL's FID).
	Index int
	// JSON is the GeoJSON Feature, compact, coordinates in WGS 84
	// longitude/latitude: {"type":"Feature","properties":{…},"geometry":…}.
	// It is valid until the next call to Next.
	JSON []byte
}

// Reader streams the features of one shapefile. Memory use does not grow
// with the file: one record of each file is held at a time. A Reader is not
// safe for concurrent use.
type Reader struct {
	layer          string
	shpName        string
	dbfName        string
	shp, dbf       *bufio.Reader
	closers        []io.Closer
	sys            *crs.System
	hdr            shpHeader
	dbfHdr         *dbfHeader
	dec            *textDecoder
	geom           geomDecoder
	pos            int64 // bytes of the .shp consumed
	rec            int   // records read
	content, dbrec []byte
	out            []byte
	rh             [8]byte // record header, a field so that it does not escape
	err            error
}

// source is an opened member file of the shapefile.
type source struct {
	name string // for messages: path, or "entry in archive.zip"
	rc   io.ReadCloser
	size int64 // -1 if unknown
}

// opener finds and opens the member files of one shapefile.
type opener interface {
	// open opens the member with extension ext (".dbf", …); ok is false
	// when it does not exist.
	open(ext string) (src source, ok bool, err error)
	// describe names the member with extension ext for messages.
	describe(ext string) string
	close() error
}

// Open opens the shapefile at path, a .shp (its .dbf, .prj, .cpg and .shx
// beside it, extensions in any case) or a .zip holding one shapefile, or
// several with opts.Layer naming one. Before any feature is read it checks
// that the .dbf exists (and the .prj, unless opts.System is set), the .shp
// and .dbf headers, the dBASE field types, the code page and the coordinate
// system; a .shx, if present, must list as many records as the .dbf. Errors
// name the file and the reason; an unsupported coordinate system wraps
// crs.ErrUnsupported.
func Open(p string, opts Options) (*Reader, error) {
	var op opener
	var layer string
	switch ext := strings.ToLower(filepath.Ext(p)); ext {
	case ".shp":
		dir, base := filepath.Split(p)
		layer = strings.TrimSuffix(base, filepath.Ext(base))
		op = &dirOpener{dir: dir, stem: layer, shp: p}
	case ".zip":
		z, l, err := openZip(p, opts.Layer)
		if err != nil {
			return nil, err
		}
		op, layer = z, l
	default:
		return nil, fmt.Errorf("%s: want a .shp file or a .zip holding one", p)
	}
	return newReader(op, layer, opts) // closes op on failure
}

func newReader(op opener, layer string, opts Options) (*Reader, error) {
	r := &Reader{layer: layer, shpName: op.describe(".shp"), dbfName: op.describe(".dbf")}
	r.closers = append(r.closers, closerFunc(op.close))
	fail := func(err error) (*Reader, error) {
		r.Close()
		return nil, err
	}

	// The .shp header.
	shp, ok, err := op.open(".shp")
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fmt.Errorf("%s: missing", op.describe(".shp")))
	}
	r.closers = append(r.closers, shp.rc)
	r.shp = bufio.NewReaderSize(shp.rc, 256<<10)
	var h [shpHeaderLength]byte
	if _, err := io.ReadFull(r.shp, h[:]); err != nil {
		return fail(fmt.Errorf("%s: header: %w", r.shpName, shortRead(err)))
	}
	if r.hdr, err = parseSHPHeader(h[:]); err != nil {
		return fail(fmt.Errorf("%s: %w", r.shpName, err))
	}
	if shp.size >= 0 && shp.size < r.hdr.length {
		return fail(fmt.Errorf("%s: truncated: the file has %d bytes, its header says %d", r.shpName, shp.size, r.hdr.length))
	}
	r.pos = shpHeaderLength

	// The code page, then the .dbf header.
	var dec *textDecoder
	if text, ok, err := readSmall(op, ".cpg", 4<<10); err != nil {
		return fail(err)
	} else if ok {
		if dec, err = decoderForCPG(text); err != nil {
			return fail(fmt.Errorf("%s: %w", op.describe(".cpg"), err))
		}
	}
	dbf, ok, err := op.open(".dbf")
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fmt.Errorf("%s: missing: a shapefile needs its .dbf (attributes), even an empty one", r.dbfName))
	}
	r.closers = append(r.closers, dbf.rc)
	r.dbf = bufio.NewReaderSize(dbf.rc, 256<<10)
	if r.dbfHdr, r.dec, err = readDBFHeader(r.dbf, r.dbfName, dec); err != nil {
		return fail(err)
	}
	if dbf.size >= 0 {
		if need := int64(r.dbfHdr.headerLen) + int64(r.dbfHdr.numRecords)*int64(r.dbfHdr.recordLen); dbf.size < need {
			return fail(fmt.Errorf("%s: truncated: %d records of %d bytes need %d bytes, the file has %d",
				r.dbfName, r.dbfHdr.numRecords, r.dbfHdr.recordLen, need, dbf.size))
		}
	}

	// The coordinate system.
	r.sys = opts.System
	if r.sys == nil {
		text, ok, err := readSmall(op, ".prj", 1<<20)
		if err != nil {
			return fail(err)
		}
		if !ok {
			return fail(fmt.Errorf("%s: missing: the shapefile's coordinate system is unknown without it (give the system explicitly to read it anyway)", op.describe(".prj")))
		}
		if strings.TrimSpace(text) == "" {
			return fail(fmt.Errorf("%s: empty", op.describe(".prj")))
		}
		if r.sys, err = crs.FromWKT(text); err != nil {
			return fail(fmt.Errorf("%s: %w", op.describe(".prj"), err))
		}
	}

	// The optional .shx gives the .shp record count up front.
	if shx, ok, err := op.open(".shx"); err != nil {
		return fail(err)
	} else if ok {
		var xh [shpHeaderLength]byte
		_, err := io.ReadFull(shx.rc, xh[:])
		shx.rc.Close()
		if err != nil {
			return fail(fmt.Errorf("%s: header: %w", op.describe(".shx"), shortRead(err)))
		}
		xhdr, err := parseSHPHeader(xh[:])
		if err != nil {
			return fail(fmt.Errorf("%s: %w", op.describe(".shx"), err))
		}
		if n := (xhdr.length - shpHeaderLength) / 8; n != int64(r.dbfHdr.numRecords) {
			return fail(fmt.Errorf("%s lists %d records but %s has %d: the files do not belong together",
				op.describe(".shx"), n, r.dbfName, r.dbfHdr.numRecords))
		}
	}

	r.geom = geomDecoder{sys: r.sys, fileType: baseType(r.hdr.shapeType)}
	r.dbrec = make([]byte, r.dbfHdr.recordLen)
	return r, nil
}

// Layer returns the shapefile's name without extension.
func (r *Reader) Layer() string { return r.layer }

// System returns the coordinate system the features are transformed from.
func (r *Reader) System() *crs.System { return r.sys }

// Fields returns the dBASE fields in file order; properties follow it.
func (r *Reader) Fields() []Field { return append([]Field(nil), r.dbfHdr.fields...) }

// NumRecords returns the record count of the .dbf header (deleted records
// included), for progress reports.
func (r *Reader) NumRecords() int { return r.dbfHdr.numRecords }

// ShapeType returns the shape type of the .shp header, e.g. "Polygon",
// "PointZ".
func (r *Reader) ShapeType() string { return typeName(r.hdr.shapeType) }

// Encoding describes how dBASE text is decoded.
func (r *Reader) Encoding() string { return r.dec.name }

// Next returns the next feature, or io.EOF after the last one. Records the
// .dbf marks deleted are skipped. Errors name the file, the record and the
// reason (truncated file, record length mismatch, bad ring, bad value, a
// .shp and .dbf with different record counts); after an error, Next keeps
// returning it.
func (r *Reader) Next() (Feature, error) {
	if r.err != nil {
		return Feature{}, r.err
	}
	for {
		f, deleted, err := r.next()
		if err != nil {
			r.err = err
			return Feature{}, err
		}
		if !deleted {
			return f, nil
		}
	}
}

func (r *Reader) next() (Feature, bool, error) {
	recNo := r.rec + 1
	where := func(format string, a ...any) error {
		return fmt.Errorf("%s: record %d (FID %d): %s", r.shpName, recNo, r.rec, fmt.Sprintf(format, a...))
	}
	if r.pos >= r.hdr.length {
		if r.rec < r.dbfHdr.numRecords {
			return Feature{}, false, fmt.Errorf("%s has %d records but %s has %d: the files do not belong together",
				r.shpName, r.rec, r.dbfName, r.dbfHdr.numRecords)
		}
		return Feature{}, false, io.EOF
	}
	if r.pos+8 > r.hdr.length {
		return Feature{}, false, where("record header runs past the file length of %d bytes in the header", r.hdr.length)
	}
	rh := r.rh[:]
	if _, err := io.ReadFull(r.shp, rh); err != nil {
		return Feature{}, false, where("truncated: the file ends at byte %d, its header says %d", r.pos, r.hdr.length)
	}
	n := int64(binary.BigEndian.Uint32(rh[4:8])) * 2
	if n < 4 || r.pos+8+n > r.hdr.length {
		return Feature{}, false, where("record length mismatch: content length %d bytes at byte %d runs past the end of the file (%d bytes)",
			n, r.pos, r.hdr.length)
	}
	if int64(cap(r.content)) < n {
		r.content = make([]byte, n)
	}
	c := r.content[:n]
	if got, err := io.ReadFull(r.shp, c); err != nil {
		return Feature{}, false, where("truncated: the file ends %d bytes into a %d-byte record", got, n)
	}
	r.pos += 8 + n
	if r.rec >= r.dbfHdr.numRecords {
		return Feature{}, false, fmt.Errorf("%s has more records than the %d of %s: the files do not belong together",
			r.shpName, r.dbfHdr.numRecords, r.dbfName)
	}
	if _, err := io.ReadFull(r.dbf, r.dbrec); err != nil {
		return Feature{}, false, fmt.Errorf("%s: record %d (FID %d): truncated: %w", r.dbfName, recNo, r.rec, shortRead(err))
	}
	r.rec++
	if r.dbrec[0] == '*' {
		return Feature{}, true, nil
	}
	out := append(r.out[:0], `{"type":"Feature","properties":`...)
	out, err := r.dbfHdr.appendProperties(out, r.dbrec, r.dec)
	if err != nil {
		r.out = out
		return Feature{}, false, fmt.Errorf("%s: record %d (FID %d): %w", r.dbfName, recNo, recNo-1, err)
	}
	out = append(out, `,"geometry":`...)
	out, err = r.geom.appendGeometry(out, c)
	r.out = out
	if err != nil {
		return Feature{}, false, fmt.Errorf("%s: record %d (FID %d): %w", r.shpName, recNo, recNo-1, err)
	}
	r.out = append(r.out, '}')
	return Feature{Index: recNo - 1, JSON: r.out}, false, nil
}

// Close releases the files. It may be called more than once.
func (r *Reader) Close() error {
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i].Close(); err != nil {
			errs = append(errs, err)
		}
	}
	r.closers = nil
	if r.err == nil {
		r.err = errors.New("shapefile: reader is closed")
	}
	return errors.Join(errs...)
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// shortRead turns the end-of-file errors of io.ReadFull into a sentence.
func shortRead(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the file ends early (truncated)")
	}
	return err
}

// readSmall reads a small member file (.prj, .cpg) whole.
func readSmall(op opener, ext string, limit int64) (string, bool, error) {
	src, ok, err := op.open(ext)
	if err != nil || !ok {
		return "", ok, err
	}
	defer src.rc.Close()
	b, err := io.ReadAll(io.LimitReader(src.rc, limit+1))
	if err != nil {
		return "", true, fmt.Errorf("%s: %w", src.name, err)
	}
	if int64(len(b)) > limit {
		return "", true, fmt.Errorf("%s: larger than %d bytes", src.name, limit)
	}
	return string(b), true, nil
}

// dirOpener finds member files beside a .shp, matching the extension in
// any case.
type dirOpener struct {
	dir, stem, shp string
	names          []string // directory listing, read on first need
	listed         bool
}

func (d *dirOpener) find(ext string) string {
	if ext == ".shp" {
		return d.shp
	}
	exact := filepath.Join(d.dir, d.stem+ext)
	if _, err := os.Stat(exact); err == nil {
		return exact
	}
	if !d.listed {
		d.listed = true
		dir := d.dir
		if dir == "" {
			dir = "."
		}
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				d.names = append(d.names, e.Name())
			}
		}
	}
	for _, n := range d.names {
		if strings.EqualFold(n, d.stem+ext) {
			return filepath.Join(d.dir, n)
		}
	}
	return ""
}

func (d *dirOpener) describe(ext string) string {
	if p := d.find(ext); p != "" {
		return p
	}
	return filepath.Join(d.dir, d.stem+ext)
}

func (d *dirOpener) open(ext string) (source, bool, error) {
	p := d.find(ext)
	if p == "" {
		return source{}, false, nil
	}
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return source{}, false, nil
		}
		return source{}, false, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return source{name: p, rc: f, size: size}, true, nil
}

func (d *dirOpener) close() error { return nil }

// zipOpener reads the members of one shapefile in a .zip; entries are
// decompressed as they are read.
type zipOpener struct {
	zr      *zip.ReadCloser
	zipPath string
	stem    string // entry path without extension
	members map[string]*zip.File
}

func openZip(p, layer string) (*zipOpener, string, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", p, err)
	}
	stems := map[string]map[string]*zip.File{} // stem → lower-case ext → entry
	for _, f := range zr.File {
		name := f.Name
		base := path.Base(name)
		if strings.HasPrefix(name, "__MACOSX/") || strings.HasPrefix(base, "._") || f.FileInfo().IsDir() {
			continue
		}
		ext := strings.ToLower(path.Ext(name))
		stem := strings.TrimSuffix(name, path.Ext(name))
		if stems[stem] == nil {
			stems[stem] = map[string]*zip.File{}
		}
		stems[stem][ext] = f
	}
	var layers []string
	for stem, m := range stems {
		if m[".shp"] != nil {
			layers = append(layers, stem)
		}
	}
	sort.Strings(layers)
	var pick string
	switch {
	case len(layers) == 0:
		zr.Close()
		return nil, "", fmt.Errorf("%s: holds no .shp file", p)
	case layer != "":
		for _, l := range layers {
			if strings.EqualFold(path.Base(l), layer) || strings.EqualFold(l, layer) {
				if pick != "" {
					zr.Close()
					return nil, "", fmt.Errorf("%s: layer %q matches both %s.shp and %s.shp; give the folder too", p, layer, pick, l)
				}
				pick = l
			}
		}
		if pick == "" {
			zr.Close()
			return nil, "", fmt.Errorf("%s: no layer %q; it holds %s", p, layer, listLayers(layers))
		}
	case len(layers) > 1:
		zr.Close()
		return nil, "", fmt.Errorf("%s: holds %d shapefiles, name the layer to read: %s", p, len(layers), listLayers(layers))
	default:
		pick = layers[0]
	}
	return &zipOpener{zr: zr, zipPath: p, stem: pick, members: stems[pick]}, path.Base(pick), nil
}

func listLayers(layers []string) string {
	q := make([]string, len(layers))
	for i, l := range layers {
		q[i] = fmt.Sprintf("%q", path.Base(l))
		if path.Base(l) != l {
			q[i] = fmt.Sprintf("%q (%s.shp)", path.Base(l), l)
		}
	}
	return strings.Join(q, ", ")
}

func (z *zipOpener) describe(ext string) string {
	name := z.stem + ext
	if f := z.members[ext]; f != nil {
		name = f.Name
	}
	return fmt.Sprintf("%s in %s", name, z.zipPath)
}

func (z *zipOpener) open(ext string) (source, bool, error) {
	f := z.members[ext]
	if f == nil {
		return source{}, false, nil
	}
	rc, err := f.Open()
	if err != nil {
		return source{}, false, fmt.Errorf("%s: %w", z.describe(ext), err)
	}
	return source{name: z.describe(ext), rc: rc, size: int64(f.UncompressedSize64)}, true, nil
}

func (z *zipOpener) close() error { return z.zr.Close() }

package shapefile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Field is a dBASE attribute column.
type Field struct {
	// Name is the decoded field name; a name repeated in the file gets
	// "_2", "_3", … appended so that properties stay unique.
	Name string
	// Type is the dBASE type letter: 'C' text, 'N' or 'F' number, 'L'
	// logical, 'D' date.
	Type byte
	// Length and Decimals are the declared width and decimal count.
	Length, Decimals int
}

type dbfHeader struct {
	numRecords int
	headerLen  int
	recordLen  int
	ldid       byte
	fields     []Field
	offsets    []int    // byte offset of each field in a record
	keys       [][]byte // `"name":` JSON text of each field
}

// readDBFHeader reads the 32-byte header and the field descriptors. dec
// decodes field names; nil picks the decoder of the language driver byte,
// which the caller gets back in dec.
func readDBFHeader(r io.Reader, name string, dec *textDecoder) (*dbfHeader, *textDecoder, error) {
	var h [32]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, nil, fmt.Errorf("%s: header: %w", name, shortRead(err))
	}
	hd := &dbfHeader{
		numRecords: int(binary.LittleEndian.Uint32(h[4:8])),
		headerLen:  int(binary.LittleEndian.Uint16(h[8:10])),
		recordLen:  int(binary.LittleEndian.Uint16(h[10:12])),
		ldid:       h[29],
	}
	if hd.headerLen < 33 || hd.recordLen < 1 {
		return nil, nil, fmt.Errorf("%s: not a dBASE file: header length %d, record length %d", name, hd.headerLen, hd.recordLen)
	}
	if hd.numRecords > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%s: header claims %d records", name, hd.numRecords)
	}
	rest := make([]byte, hd.headerLen-32)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, nil, fmt.Errorf("%s: field descriptors: %w", name, shortRead(err))
	}
	if dec == nil {
		dec = decoderForLDID(hd.ldid)
	}
	seen := map[string]int{}
	off := 1 // the deletion flag
	for i := 0; ; i++ {
		d := rest[i*32:]
		if len(d) == 0 || d[0] == 0x0D {
			break
		}
		if len(d) < 32 {
			if d[0] == 0x00 { // some writers pad the terminator with zeros
				break
			}
			return nil, nil, fmt.Errorf("%s: field descriptor %d is cut short (no 0x0D terminator)", name, i+1)
		}
		raw := d[:11]
		if j := bytes.IndexByte(raw, 0); j >= 0 {
			raw = raw[:j]
		}
		f := Field{
			Name:     dec.decodeString(bytes.TrimSpace(raw)),
			Type:     d[11],
			Length:   int(d[16]),
			Decimals: int(d[17]),
		}
		if f.Name == "" {
			f.Name = fmt.Sprintf("FIELD%d", i+1)
		}
		switch f.Type {
		case 'C', 'N', 'F', 'L', 'D':
		default:
			return nil, nil, fmt.Errorf("%s: field %q has dBASE type %q, which is not supported (C text, N and F numbers, L logical, D date)",
				name, f.Name, string(rune(f.Type)))
		}
		if n := seen[f.Name]; n > 0 {
			seen[f.Name] = n + 1
			f.Name = fmt.Sprintf("%s_%d", f.Name, n+1)
		}
		seen[f.Name]++
		hd.fields = append(hd.fields, f)
		hd.offsets = append(hd.offsets, off)
		hd.keys = append(hd.keys, appendKey(nil, f.Name))
		off += f.Length
	}
	if off > hd.recordLen {
		return nil, nil, fmt.Errorf("%s: the fields take %d bytes, more than the record length %d", name, off, hd.recordLen)
	}
	return hd, dec, nil
}

// appendProperties appends the JSON object of one record's values.
func (hd *dbfHeader) appendProperties(dst, rec []byte, dec *textDecoder) ([]byte, error) {
	dst = append(dst, '{')
	for i, f := range hd.fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, hd.keys[i]...)
		raw := rec[hd.offsets[i] : hd.offsets[i]+f.Length]
		var err error
		dst, err = appendValue(dst, f, raw, dec)
		if err != nil {
			return dst, fmt.Errorf("field %q: %w", f.Name, err)
		}
	}
	return append(dst, '}'), nil
}

func isBlank(c byte) bool { return c == ' ' || c == 0 }

func trim(b []byte) []byte {
	for len(b) > 0 && isBlank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	return b
}

var null = []byte("null")

// appendValue appends one dBASE value as JSON. Text is trimmed and empty
// text is null (as GDAL reads it); blank or all-'*' numbers, '?' or blank
// logicals and blank or zero dates are null.
func appendValue(dst []byte, f Field, raw []byte, dec *textDecoder) ([]byte, error) {
	v := trim(raw)
	switch f.Type {
	case 'C':
		if len(v) == 0 {
			return append(dst, null...), nil
		}
		return dec.appendJSON(dst, v), nil
	case 'N', 'F':
		if len(v) == 0 || bytes.Count(v, []byte{'*'}) == len(v) {
			return append(dst, null...), nil
		}
		return appendNumber(dst, v, f.Decimals)
	case 'L':
		if len(v) == 0 {
			return append(dst, null...), nil
		}
		switch v[0] {
		case 'T', 't', 'Y', 'y':
			return append(dst, "true"...), nil
		case 'F', 'f', 'N', 'n':
			return append(dst, "false"...), nil
		case '?':
			return append(dst, null...), nil
		}
		return dst, fmt.Errorf("bad logical value %q (want T, F, Y, N or ?)", v)
	case 'D':
		if len(v) == 0 || bytes.Count(v, []byte{'0'}) == len(v) {
			return append(dst, null...), nil
		}
		if len(v) != 8 {
			return dst, fmt.Errorf("bad date %q (want YYYYMMDD)", v)
		}
		for _, c := range v {
			if c < '0' || c > '9' {
				return dst, fmt.Errorf("bad date %q (want YYYYMMDD)", v)
			}
		}
		m := int(v[4]-'0')*10 + int(v[5]-'0')
		d := int(v[6]-'0')*10 + int(v[7]-'0')
		if m < 1 || m > 12 || d < 1 || d > 31 {
			return dst, fmt.Errorf("bad date %q (month or day out of range)", v)
		}
		dst = append(dst, '"')
		dst = append(dst, v[:4]...)
		dst = append(dst, '-')
		dst = append(dst, v[4:6]...)
		dst = append(dst, '-')
		dst = append(dst, v[6:8]...)
		return append(dst, '"'), nil
	}
	return dst, fmt.Errorf("type %q is not supported", string(rune(f.Type)))
}

// appendNumber appends the dBASE number text v as a JSON number: an integer
// when the field has no decimals and the text no fraction or exponent
// (any length, digits kept), else a decimal (shortest float64 text, with
// ".0" on whole values).
func appendNumber(dst, v []byte, decimals int) ([]byte, error) {
	i := 0
	neg := false
	if v[0] == '+' || v[0] == '-' {
		neg = v[0] == '-'
		i++
	}
	intStart := i
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	intDigits := v[intStart:i]
	frac := false
	fracDigits := 0
	if i < len(v) && v[i] == '.' {
		frac = true
		i++
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i, fracDigits = i+1, fracDigits+1
		}
	}
	if len(intDigits)+fracDigits == 0 {
		return dst, fmt.Errorf("bad number %q", v)
	}
	exp := false
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		exp = true
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		n := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i, n = i+1, n+1
		}
		if n == 0 {
			return dst, fmt.Errorf("bad number %q", v)
		}
	}
	if i != len(v) {
		return dst, fmt.Errorf("bad number %q", v)
	}
	if !frac && !exp && decimals == 0 {
		d := bytes.TrimLeft(intDigits, "0")
		if len(d) == 0 {
			return append(dst, '0'), nil
		}
		if neg {
			dst = append(dst, '-')
		}
		return append(dst, d...), nil
	}
	x, err := strconv.ParseFloat(bytesString(v), 64)
	if err != nil || math.IsInf(x, 0) {
		return dst, fmt.Errorf("bad number %q (out of range)", v)
	}
	return appendDecimal(dst, x), nil
}

// appendDecimal writes x as a JSON number that reads back as a decimal.
func appendDecimal(dst []byte, x float64) []byte {
	if x == 0 {
		return append(dst, "0.0"...)
	}
	if a := math.Abs(x); a < 1e-6 || a >= 1e21 {
		return strconv.AppendFloat(dst, x, 'e', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', -1, 64)
	if bytes.IndexByte(dst[start:], '.') < 0 {
		dst = append(dst, '.', '0')
	}
	return dst
}

func appendKey(dst []byte, name string) []byte {
	var d textDecoder
	dst = d.appendJSON(dst, []byte(name))
	return append(dst, ':')
}

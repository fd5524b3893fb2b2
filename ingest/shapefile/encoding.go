package shapefile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding/charmap"

	"frameindex/grid"
)

// textDecoder turns dBASE text bytes into JSON strings.
type textDecoder struct {
	// name describes the encoding in messages ("UTF-8", "windows-1252
	// (from the .cpg)", …).
	name string
	// table maps each byte of a single-byte code page to its rune; nil
	// means UTF-8, with ISO-8859-1 for values that are not valid UTF-8 when
	// latin1Fallback is set.
	table          *[256]rune
	latin1Fallback bool
	scratch        []byte
}

// appendJSON appends b decoded as a JSON string. Invalid UTF-8 left after
// decoding becomes U+FFFD (grid.AppendJSONString).
func (d *textDecoder) appendJSON(dst, b []byte) []byte {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || (d.table == nil && (!d.latin1Fallback || utf8.Valid(b))) {
		return grid.AppendJSONString(dst, bytesString(b))
	}
	s := d.scratch[:0]
	for _, c := range b {
		switch {
		case c < utf8.RuneSelf:
			s = append(s, c)
		case d.table == nil: // ISO-8859-1: the byte is the code point
			s = utf8.AppendRune(s, rune(c))
		default:
			s = utf8.AppendRune(s, d.table[c])
		}
	}
	d.scratch = s
	return grid.AppendJSONString(dst, bytesString(s))
}

// decodeString decodes b to a Go string (field names).
func (d *textDecoder) decodeString(b []byte) string {
	j := d.appendJSON(nil, b)
	s, err := strconv.Unquote(string(j))
	if err != nil {
		return string(b)
	}
	return s
}

// bytesString views b as a string without copying; the callee
// (grid.AppendJSONString) only reads it before b changes.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func tableOf(cm *charmap.Charmap) *[256]rune {
	var t [256]rune
	for i := range t {
		t[i] = cm.DecodeByte(byte(i))
	}
	return &t
}

// codePages maps Windows/IBM code page numbers to single-byte charmaps.
var codePages = map[int]*charmap.Charmap{
	437: charmap.CodePage437, 850: charmap.CodePage850, 852: charmap.CodePage852,
	855: charmap.CodePage855, 858: charmap.CodePage858, 860: charmap.CodePage860,
	862: charmap.CodePage862, 863: charmap.CodePage863, 865: charmap.CodePage865,
	866: charmap.CodePage866, 874: charmap.Windows874,
	1250: charmap.Windows1250, 1251: charmap.Windows1251, 1252: charmap.Windows1252,
	1253: charmap.Windows1253, 1254: charmap.Windows1254, 1255: charmap.Windows1255,
	1256: charmap.Windows1256, 1257: charmap.Windows1257, 1258: charmap.Windows1258,
	10000: charmap.Macintosh, 10007: charmap.MacintoshCyrillic,
}

var isoPages = map[int]*charmap.Charmap{
	2: charmap.ISO8859_2, 3: charmap.ISO8859_3, 4: charmap.ISO8859_4, 5: charmap.ISO8859_5,
	6: charmap.ISO8859_6, 7: charmap.ISO8859_7, 8: charmap.ISO8859_8, 9: charmap.ISO8859_9,
	10: charmap.ISO8859_10, 13: charmap.ISO8859_13, 14: charmap.ISO8859_14,
	15: charmap.ISO8859_15, 16: charmap.ISO8859_16,
}

// decoderForCPG returns the decoder a .cpg file names: "UTF-8", "UTF8",
// "65001", "1252", "ANSI 1252", "CP1252", "windows-1252", "ISO-8859-1",
// "88591", "LATIN1", "437", "OEM 850", "KOI8-R", …
func decoderForCPG(text string) (*textDecoder, error) {
	raw := strings.TrimSpace(strings.TrimPrefix(text, "\ufeff"))
	if i := strings.IndexAny(raw, "\r\n"); i >= 0 {
		raw = strings.TrimSpace(raw[:i])
	}
	s := strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "_", "").Replace(raw))
	name := raw + " (from the .cpg)"
	switch s {
	case "UTF8", "65001", "UNICODE":
		return &textDecoder{name: name}, nil
	case "LATIN1", "88591", "ISO88591", "28591", "ISO885911987":
		return &textDecoder{name: name, table: tableOf(charmap.ISO8859_1)}, nil
	case "KOI8R", "20866":
		return &textDecoder{name: name, table: tableOf(charmap.KOI8R)}, nil
	case "KOI8U", "21866":
		return &textDecoder{name: name, table: tableOf(charmap.KOI8U)}, nil
	}
	for _, p := range []string{"ANSI", "OEM", "WINDOWS", "CP", "IBM", "DOS"} {
		s = strings.TrimPrefix(s, p)
	}
	if strings.HasPrefix(s, "ISO8859") || strings.HasPrefix(s, "8859") {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(s, "ISO"), "8859"))
		if err == nil {
			if n == 1 {
				return &textDecoder{name: name, table: tableOf(charmap.ISO8859_1)}, nil
			}
			if cm, ok := isoPages[n]; ok {
				return &textDecoder{name: name, table: tableOf(cm)}, nil
			}
		}
	} else if n, err := strconv.Atoi(s); err == nil {
		if n >= 28591 && n <= 28606 { // Windows numbers for ISO-8859-n
			if n == 28591 {
				return &textDecoder{name: name, table: tableOf(charmap.ISO8859_1)}, nil
			}
			if cm, ok := isoPages[n-28590]; ok {
				return &textDecoder{name: name, table: tableOf(cm)}, nil
			}
		}
		if cm, ok := codePages[n]; ok {
			return &textDecoder{name: name, table: tableOf(cm)}, nil
		}
	}
	return nil, fmt.Errorf("code page %q is not supported (UTF-8, ISO-8859-n, Windows 874 and 1250-1258, DOS 437, 850, 852, 855, 858, 860-866, KOI8-R/U)", clip(raw))
}

// ldidPages maps the dBASE language driver id (header byte 29) to a code
// page, as GDAL does.
var ldidPages = map[byte]int{
	1: 437, 2: 850, 3: 1252, 4: 10000, 8: 865, 10: 850, 11: 437, 13: 437, 14: 850,
	15: 437, 16: 850, 17: 437, 18: 850, 20: 850, 21: 437, 22: 850, 23: 865, 24: 437,
	25: 437, 26: 850, 27: 437, 28: 863, 29: 850, 31: 852, 34: 852, 35: 852, 36: 860,
	37: 850, 38: 866, 55: 850, 64: 852, 80: 874, 88: 1252, 89: 1252, 100: 852,
	101: 866, 102: 865, 104: 895, 107: 857, 108: 863, 124: 874, 135: 852, 136: 857,
	150: 10007, 200: 1250, 201: 1251, 202: 1254, 203: 1253, 204: 1257,
}

// decoderForLDID returns the decoder for a language driver id. 0 (none)
// and 0x57 (87, "ANSI", what GDAL and ArcGIS write) read UTF-8, falling back
// to ISO-8859-1 for values that are not valid UTF-8; code pages this package
// lacks (CJK, 857, 895) do the same.
func decoderForLDID(ldid byte) *textDecoder {
	if n, ok := ldidPages[ldid]; ok {
		if cm, ok := codePages[n]; ok {
			return &textDecoder{name: fmt.Sprintf("code page %d (dBASE language driver 0x%02X)", n, ldid), table: tableOf(cm)}
		}
	}
	return &textDecoder{name: "UTF-8, else ISO-8859-1", latin1Fallback: true}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

package grid

// AppendBBox appends the shape's bounding box as a JSON array
// [minLon,minLat,maxLon,maxLat], 7 decimals at most.
func (s Shape) AppendBBox(dst []byte) []byte {
	if s.Geom == nil {
		row, col, _ := RowCol(s.ID)
		dst = append(dst, '[')
		dst = AppendLonEdge(dst, col)
		dst = append(dst, ',')
		dst = AppendLatEdge(dst, row+1)
		dst = append(dst, ',')
		dst = AppendLonEdge(dst, col+1)
		dst = append(dst, ',')
		dst = AppendLatEdge(dst, row)
		return append(dst, ']')
	}
	b := s.Box
	dst = append(dst, '[')
	dst = AppendCoord(dst, b.MinLon)
	dst = append(dst, ',')
	dst = AppendCoord(dst, b.MinLat)
	dst = append(dst, ',')
	dst = AppendCoord(dst, b.MaxLon)
	dst = append(dst, ',')
	dst = AppendCoord(dst, b.MaxLat)
	return append(dst, ']')
}

// AppendGeometry appends the shape as an RFC 7946 geometry object: a Polygon
// for a lattice cell (outer ring counter-clockwise, closed) and a Polygon or
// MultiPolygon for an imported frame, as it was imported.
func (s Shape) AppendGeometry(dst []byte) []byte {
	if s.Geom == nil {
		row, col, _ := RowCol(s.ID)
		w, e, n, so := col, col+1, row, row+1
		dst = append(dst, `{"type":"Polygon","coordinates":[[`...)
		dst = appendEdgePoint(dst, w, so)
		dst = append(dst, ',')
		dst = appendEdgePoint(dst, e, so)
		dst = append(dst, ',')
		dst = appendEdgePoint(dst, e, n)
		dst = append(dst, ',')
		dst = appendEdgePoint(dst, w, n)
		dst = append(dst, ',')
		dst = appendEdgePoint(dst, w, so)
		return append(dst, "]]}"...)
	}
	if len(s.Geom) == 1 {
		dst = append(dst, `{"type":"Polygon","coordinates":`...)
		dst = appendPolygon(dst, s.Geom[0])
		return append(dst, '}')
	}
	dst = append(dst, `{"type":"MultiPolygon","coordinates":[`...)
	for i, p := range s.Geom {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendPolygon(dst, p)
	}
	return append(dst, "]}"...)
}

func appendEdgePoint(dst []byte, col, row int) []byte {
	dst = append(dst, '[')
	dst = AppendLonEdge(dst, col)
	dst = append(dst, ',')
	dst = AppendLatEdge(dst, row)
	return append(dst, ']')
}

func appendPolygon(dst []byte, p Polygon) []byte {
	dst = append(dst, '[')
	for i, r := range p {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		for j, pt := range r {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			dst = AppendCoord(dst, pt[0])
			dst = append(dst, ',')
			dst = AppendCoord(dst, pt[1])
			dst = append(dst, ']')
		}
		dst = append(dst, ']')
	}
	return append(dst, ']')
}

package ogc

import (
	_ "embed"
)

// handleLanding answers GET /ogc: what the service is and where its parts
// are.
func (s *Server) handleLanding(rq *request) error {
	b := append([]byte(nil), `{"title":"frameindex","description":"Frames (about 1 km cells of the grid) and the datasets this key may read, as OGC API - Features collections and vector tiles. Send the API key as \"Authorization: Bearer KEY\", or as HTTP Basic with the key as the password.","links":[`...)
	b = appendLink(b, rq.base, "self", typeJSON, "This page")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/api", "service-desc", typeOpenAPI, "The API definition (OpenAPI 3.0)")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/conformance", "conformance", typeJSON, "The conformance classes")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/conformance", relConformance, typeJSON, "The conformance classes")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/collections", "data", typeJSON, "The collections")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/collections", relData, typeJSON, "The collections")
	b = append(b, ',')
	b = appendLink(b, rq.base+"/tileMatrixSets", relTilingSchemes, typeJSON, "The tiling schemes")
	b = append(b, "]}\n"...)
	write(rq.w, typeJSON, b)
	return nil
}

// conformance lists the conformance classes the API implements.
var conformance = []string{
	"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/landing-page",
	"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/json",
	"http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/oas30",
	"http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
	"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
	"http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/oas30",
	"http://www.opengis.net/spec/tms/2.0/conf/tilematrixset",
	"http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixset",
}

// handleConformance answers GET /ogc/conformance.
func (s *Server) handleConformance(rq *request) error {
	b := append([]byte(nil), `{"conformsTo":[`...)
	for i, c := range conformance {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, c...)
		b = append(b, '"')
	}
	b = append(b, "]}\n"...)
	write(rq.w, typeJSON, b)
	return nil
}

// openAPIDoc is the OpenAPI 3.0 definition of the OGC API, served as it
// is; tests validate it and real answers against it.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.0 definition served at /ogc/api. Its
// server URL is relative ("/ogc"). The slice must not be modified.
func OpenAPI() []byte { return openAPIDoc }

// handleAPI answers GET /ogc/api.
func (s *Server) handleAPI(rq *request) error {
	write(rq.w, typeOpenAPI, openAPIDoc)
	return nil
}

package handlers

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 description of the API, served as it is.
// Tests validate real responses against it, so it cannot drift silently.
//
//go:embed openapi.json
var openAPIDoc []byte

// handleOpenAPI answers GET /openapi.json with the OpenAPI document. It
// needs no key.
func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, openAPIDoc)
}

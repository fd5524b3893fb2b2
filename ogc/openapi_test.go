package ogc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"frameindex/ogc"
)

// loadOpenAPI loads and validates the document served at /ogc/api, with
// its server made absolute for the test requests.
func loadOpenAPI(t testing.TB) routers.Router {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(ogc.OpenAPI())
	if err != nil {
		t.Fatalf("loading the OGC API definition: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the OGC API definition is not a valid OpenAPI document: %v", err)
	}
	if doc.OpenAPI[:4] != "3.0." {
		t.Fatalf("OpenAPI %s, want 3.0 (conformance class oas30)", doc.OpenAPI)
	}
	doc.Servers = openapi3.Servers{{URL: "http://frames.example/ogc"}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

// TestOpenAPI_Responses validates real answers (success and error) against
// the document: each status must be documented for its operation, and
// headers and bodies must match their schemas.
func TestOpenAPI_Responses(t *testing.T) {
	router := loadOpenAPI(t)
	f := newFixture(t)
	roads := fmt.Sprintf("%d-0", id(9705, 22485))
	tests := []struct {
		target string
		secret string
		status int
	}{
		{"/ogc/", secretAcmeFull, 200},
		{"/ogc/conformance", secretAcmeFull, 200},
		{"/ogc/api", secretAcmeFull, 200},
		{"/ogc/collections", secretAcmeFull, 200},
		{"/ogc/collections/population", secretAcmeFull, 200},
		{"/ogc/collections/roads-features", secretAcmeFull, 200},
		{"/ogc/collections/frames/items?limit=3&bbox=7.35,9.0,7.45,9.1", secretAcmeFull, 200},
		{"/ogc/collections/population/items?limit=3", secretAcmeFull, 200},
		{"/ogc/collections/admin/items?limit=3&cursor=" + fmt.Sprint(id(9725, 22490)), secretAcmeFull, 200},
		{"/ogc/collections/roads-features/items", secretAcmeFull, 200},
		{"/ogc/collections/population/items/" + fmt.Sprint(id(9701, 22481)), secretAcmeFull, 200},
		{"/ogc/collections/roads-features/items/" + roads, secretAcmeFull, 200}, // 2 of acme's 5 credits, after the page's 2
		{"/ogc/collections/roads-features/items/" + roads + "?again", secretAcmeFull, 402},
		{"/ogc/collections/population/schema", secretAcmeFull, 200},
		{"/ogc/collections/roads-features/queryables", secretAcmeFull, 200},
		{"/ogc/collections/population/tiles", secretAcmeFull, 200},
		{"/ogc/collections/population/tiles/WebMercatorQuad", secretAcmeFull, 200},
		{"/ogc/collections/population/tiles/WebMercatorQuad/10/486/533", secretAcmeFull, 200},
		{"/ogc/collections/population/tiles/WebMercatorQuad/10/0/0", secretAcmeFull, 204},
		{"/ogc/collections/population/tiles/WebMercatorQuad/5/0/0", secretAcmeFull, 404},
		{"/ogc/tileMatrixSets", secretAcmeFull, 200},
		{"/ogc/tileMatrixSets/WebMercatorQuad", secretAcmeFull, 200},
		{"/ogc/collections/frames/items?bbox=1,2", secretAcmeFull, 400},
		{"/ogc/collections/frames/items?limit=0", secretAcmeFull, 400},
		{"/ogc/collections", "", 401},
		{"/ogc/collections", "svc_sk_wrong", 401},
		{"/ogc/collections", secretAcmeNoFrames, 403},
		{"/ogc/collections/roads-features/items", secretAcmeAnalyst, 403},
		{"/ogc/collections/secrets", secretAcmeFull, 404},
		{"/ogc/collections/frames/items/1", secretAcmeFull, 404},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "http://frames.example"+tc.target, nil)
			if tc.secret != "" {
				req.Header.Set("Authorization", bearer(tc.secret))
			}
			w := httptest.NewRecorder()
			f.h.ServeHTTP(w, req)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatalf("no route in the document: %v", err)
			}
			opts := &openapi3filter.Options{
				IncludeResponseStatus: true,
				MultiError:            true,
				AuthenticationFunc:    func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
			}
			in := &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
				Status:                 w.Code,
				Header:                 w.Header(),
				Options:                opts,
			}
			in.SetBodyBytes(w.Body.Bytes())
			if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
				body := w.Body.String()
				if len(body) > 600 {
					body = body[:600] + "..."
				}
				t.Fatalf("the answer does not match the document: %v\n%s", err, body)
			}
			if tc.status < 300 && strings.Contains(tc.target, "?") {
				reqIn := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
				if err := openapi3filter.ValidateRequest(context.Background(), reqIn); err != nil {
					t.Fatalf("the request does not match the document: %v", err)
				}
			}
		})
	}
}

// Command baseline is the floor the load script measures frameindex
// against: a bare net/http server that returns fixed bodies with no work at
// all. /big is the file given by -big (the load script saves a real
// 5,000-frame response of frameindex there); every other GET path gets a
// fixed 300-byte JSON body, so the same request mix can be sent to both.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	bigPath := flag.String("big", "", "file served at /big")
	flag.Parse()
	small := []byte(`{"data":{"id":"433102007","geometry":{"type":"Polygon","coordinates":[[[3.3916667,6.4416667],[3.4,6.4416667],[3.4,6.45],[3.3916667,6.45],[3.3916667,6.4416667]]]},"bbox":[3.3916667,6.4416667,3.4,6.45]}}`)
	small = append(small, []byte(strings.Repeat(" ", max(0, 300-len(small))))...)
	var big []byte
	if *bigPath != "" {
		var err error
		if big, err = os.ReadFile(*bigPath); err != nil {
			log.Fatal(err)
		}
	}
	serve := func(body []byte) http.HandlerFunc {
		n := strconv.Itoa(len(body))
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", n)
			w.Write(body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /", serve(small))
	mux.HandleFunc("GET /big", serve(big))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("baseline on http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}

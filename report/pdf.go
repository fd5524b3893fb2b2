package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoChromium is PrintPDF without a headless Chromium on the PATH.
var ErrNoChromium = errors.New("no Chromium to print the PDF with (looked for chromium, chromium-browser, google-chrome, headless_shell): " +
	"install it (Debian and Ubuntu: apt-get install chromium) or write the report as .html and print it from a browser")

// chromiumNames are the commands PrintPDF looks for, in order.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// Chromium returns the path of a headless-capable Chromium, or
// ErrNoChromium.
func Chromium() (string, error) {
	if p := os.Getenv("FRAMEINDEX_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, n := range chromiumNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// PrintPDF prints an HTML page to a PDF file with headless Chromium, as
// its print dialogue would (the page's print stylesheet: A4, no header or
// footer). The page is written to a temporary file first: it fetches
// nothing, so the browser needs no network.
func PrintPDF(ctx context.Context, html []byte, out string) error {
	bin, err := Chromium()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "frameindex-report-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, html, 0o600); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "report.pdf")
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	args := []string{"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--no-pdf-header-footer", "--print-to-pdf=" + tmp, "file://" + page}
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox.
		args = append([]string{"--no-sandbox"}, args...)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s could not print the report: %v: %s", bin, err, lastLines(stderr.String(), 3))
	}
	b, err := os.ReadFile(tmp)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF")) {
		return fmt.Errorf("%s wrote no PDF: %s", bin, lastLines(stderr.String(), 3))
	}
	return os.WriteFile(abs, b, 0o644)
}

// lastLines are the last n lines of s.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(ls[max(0, len(ls)-n):], " / ")
}

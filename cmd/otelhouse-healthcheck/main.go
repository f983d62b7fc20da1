// Command otelhouse-healthcheck is the container image's HEALTHCHECK: it
// asks the collector's health_check extension whether the pipelines are
// running and exits 0 if so, 1 if not. The image has no shell or curl to
// do it with (a distroless base has neither).
package main

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	url := "http://127.0.0.1:13133/"
	if len(os.Args) > 1 {
		url = os.Args[1]
	}
	client := http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(url) //nolint:gosec // the probe asks the URL its HEALTHCHECK names, on loopback by default
	if err != nil {
		fmt.Fprintln(os.Stderr, "unhealthy:", err)
		os.Exit(1)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "unhealthy:", resp.Status)
		os.Exit(1)
	}
}

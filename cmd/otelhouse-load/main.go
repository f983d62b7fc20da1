// Command otelhouse-load sends realistic Datadog payloads (tracer traces
// v0.4 and v0.5, the Agent's traces, series and logs) and OTLP ones to a
// receiver, at a rate or as fast as it answers, and reports throughput,
// refusals (429/503, honouring Retry-After), errors and latency
// percentiles; given the receiver's pid, also its CPU per item and peak
// memory. The payloads are generated from a seed, so two runs send the
// same bytes.
//
//	otelhouse-load run    --target URL --kind K [--duration 20s --warmup 3s --concurrency 4 --rate 0 --pid PID --label L]
//	otelhouse-load gen    --out DIR            write each kind's payloads (what PERF_CORPUS benchmarks read)
//	otelhouse-load kinds                       list the kinds
//	otelhouse-load wait   --target URL         until the target accepts connections
//	otelhouse-load idle   --max-busy-pct 15    until the host is mostly idle
//	otelhouse-load report FILE...              a table of RESULT lines, medians per kind and label
//
// run prints its summary to stderr and one RESULT line of key=value pairs
// to stdout, which the scripts and report read.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = cmdRun(os.Args[2:])
	case "gen":
		err = cmdGen(os.Args[2:])
	case "kinds":
		for _, k := range kinds {
			fmt.Printf("%-18s %-6s %s\n", k.name, k.unit, k.about)
		}
	case "wait":
		err = cmdWait(os.Args[2:])
	case "idle":
		err = cmdIdle(os.Args[2:])
	case "report":
		err = cmdReport(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "otelhouse-load:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: otelhouse-load run|gen|kinds|wait|idle|report [flags] (-h for each)")
	os.Exit(2)
}

// payloadsPerKind keeps a run's payloads varied (ids, times, services)
// without holding much memory.
const payloadsPerKind = 64

func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	target := fs.String("target", "http://127.0.0.1:18126", "the receiver's base URL")
	kindName := fs.String("kind", "traces_v04", "what to send (otelhouse-load kinds)")
	corpus := fs.String("corpus", "", "send the payloads gen wrote under this directory rather than generating them")
	duration := fs.Duration("duration", 20*time.Second, "the measured window")
	warmup := fs.Duration("warmup", 3*time.Second, "load sent before the window, not counted")
	conc := fs.Int("concurrency", 4, "connections sending at once")
	rate := fs.Float64("rate", 0, "requests per second over all connections (0: each sends as soon as it is answered)")
	timeout := fs.Duration("timeout", 30*time.Second, "one request's deadline")
	maxWait := fs.Duration("max-retry-after", 5*time.Second, "the longest Retry-After honoured")
	pid := fs.Int("pid", 0, "the receiver's process, for its CPU per item and memory (Linux)")
	label := fs.String("label", "target", "label of the RESULT line")
	seed := fs.Uint64("seed", 1, "payload generator seed")
	fs.StringVar(&apiKey, "api-key", apiKey, "the Ingestion API Key: DD-API-KEY of Agent payloads, the Bearer token of OTLP ones")
	_ = fs.Parse(args)
	if u, err := url.Parse(*target); err != nil || u.Host == "" {
		return fmt.Errorf("--target %q is not a URL", *target)
	}
	if *conc < 1 {
		return errors.New("--concurrency must be at least 1")
	}
	k, ok := kindNamed(*kindName)
	if !ok {
		return fmt.Errorf("no kind %q (otelhouse-load kinds)", *kindName)
	}
	var pls []payload
	if *corpus != "" {
		var err error
		if pls, err = readKind(*corpus, k.name); err != nil {
			return err
		}
	} else {
		pls = k.make(newGen(*seed), payloadsPerKind)
	}
	l := &load{
		target: strings.TrimRight(*target, "/"), payloads: pls, duration: *duration, warmup: *warmup,
		concurrency: *conc, rate: *rate, timeout: *timeout, maxWait: *maxWait,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	var before, after procSample
	sampled := make(chan procSample, 1)
	if *pid > 0 {
		go func() { sleep(ctx, *warmup); sampled <- sampleProc(*pid) }()
	}
	st, err := l.run(ctx)
	if err != nil {
		return err
	}
	if *pid > 0 {
		after = sampleProc(*pid)
		before = <-sampled
	}
	printRun(*label, k, l, st, before, after)
	if st.ok == 0 {
		return fmt.Errorf("no request succeeded (first error: %s)", st.firstErr)
	}
	return nil
}

// gen writes DIR/KIND/NNNN.bin, the bodies as sent, and DIR/KIND/index.json,
// how to send each.
func cmdGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("out", "/tmp/otelhouse-load/corpus", "directory to write")
	seed := fs.Uint64("seed", 1, "payload generator seed")
	n := fs.Int("payloads", payloadsPerKind, "payloads per kind")
	only := fs.String("kinds", "", "comma-separated kinds (default: all)")
	_ = fs.Parse(args)
	for _, k := range kinds {
		if *only != "" && !strings.Contains(","+*only+",", ","+k.name+",") {
			continue
		}
		if err := writeKind(*out, k, k.make(newGen(*seed), *n)); err != nil {
			return err
		}
	}
	return nil
}

func writeKind(dir string, k kind, pls []payload) error {
	d := filepath.Join(dir, k.name)
	if err := os.MkdirAll(d, 0o750); err != nil {
		return err
	}
	items, wire := 0, 0
	for i, p := range pls {
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("%04d.bin", i)), p.Body, 0o600); err != nil {
			return err
		}
		items += p.Items
		wire += len(p.Body)
	}
	idx, err := json.MarshalIndent(pls, "", " ")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %-18s payloads=%d %ss=%d wire_mb=%.1f\n", k.name, len(pls), k.unit, items, float64(wire)/1e6)
	return os.WriteFile(filepath.Join(d, "index.json"), idx, 0o600)
}

func readKind(dir, name string) ([]payload, error) {
	d := filepath.Join(dir, name)
	idx, err := os.ReadFile(filepath.Join(d, "index.json")) //nolint:gosec // the corpus the user named
	if err != nil {
		return nil, fmt.Errorf("%w (write the corpus with otelhouse-load gen)", err)
	}
	var pls []payload
	if err := json.Unmarshal(idx, &pls); err != nil {
		return nil, fmt.Errorf("%s: %w", d, err)
	}
	for i := range pls {
		if pls[i].Body, err = os.ReadFile(filepath.Join(d, fmt.Sprintf("%04d.bin", i))); err != nil { //nolint:gosec // as above
			return nil, err
		}
	}
	return pls, nil
}

func cmdWait(args []string) error {
	fs := flag.NewFlagSet("wait", flag.ExitOnError)
	target := fs.String("target", "http://127.0.0.1:18126", "the receiver's base URL")
	timeout := fs.Duration("timeout", 60*time.Second, "give up after")
	_ = fs.Parse(args)
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--target %q is not a URL", *target)
	}
	deadline := time.Now().Add(*timeout)
	for {
		c, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections within %s: %w", u.Host, *timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func cmdIdle(args []string) error {
	fs := flag.NewFlagSet("idle", flag.ExitOnError)
	most := fs.Float64("max-busy-pct", 15, "the host's CPU busy share to wait below")
	timeout := fs.Duration("timeout", 120*time.Second, "measure anyway after")
	_ = fs.Parse(args)
	if _, total := hostCPU(); total == 0 {
		return errors.New("the host's CPU time is not readable (/proc/stat)")
	}
	deadline := time.Now().Add(*timeout)
	for {
		b0, t0 := hostCPU()
		time.Sleep(time.Second)
		b1, t1 := hostCPU()
		busy := 100 * (b1 - b0) / max(t1-t0, 1)
		if busy <= *most {
			return nil
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "idle: the host is still %.0f%% busy after %s; measuring anyway\n", busy, *timeout)
			return nil
		}
	}
}

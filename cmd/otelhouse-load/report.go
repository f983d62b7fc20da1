package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// printRun writes the summary for a person (to stderr) and the RESULT
// line (to stdout).
func printRun(label string, k kind, l *load, st *stats, before, after procSample) {
	secs := st.window.Seconds()
	fmt.Fprintf(os.Stderr, "run: %s %s: %d payloads, %d connections, rate %g/s, window %.1fs\n", label, k.name, len(l.payloads), l.concurrency, l.rate, secs)
	fmt.Fprintf(os.Stderr, "run:   %d requests (%.1f/s), %d %ss accepted (%.0f/s), %d refused (429/503), %d failed, %d transport errors; status %s\n",
		st.requests, float64(st.requests)/secs, st.items, k.unit, float64(st.items)/secs, st.refused, st.failed, st.netErrors, codes(st.codes))
	if st.behind > 0 {
		fmt.Fprintf(os.Stderr, "run:   %d requests of the rate not sent: every connection was waiting on the target\n", st.behind)
	}
	fmt.Fprintf(os.Stderr, "run:   latency ms p50 %.2f p90 %.2f p99 %.2f max %.2f\n", st.percentile(0.5), st.percentile(0.9), st.percentile(0.99), st.percentile(1))
	fields := []string{
		"label=" + label, "kind=" + k.name,
		fmt.Sprintf("items_per_s=%.0f", float64(st.items)/secs), fmt.Sprintf("req_per_s=%.1f", float64(st.requests)/secs),
		fmt.Sprintf("items=%d", st.items), fmt.Sprintf("reqs=%d", st.requests), fmt.Sprintf("ok=%d", st.ok),
		fmt.Sprintf("refused=%d", st.refused), fmt.Sprintf("failed=%d", st.failed), fmt.Sprintf("net_errors=%d", st.netErrors), fmt.Sprintf("behind=%d", st.behind),
		"codes=" + codes(st.codes),
		fmt.Sprintf("p50_ms=%.2f", st.percentile(0.5)), fmt.Sprintf("p90_ms=%.2f", st.percentile(0.9)), fmt.Sprintf("p99_ms=%.2f", st.percentile(0.99)),
		fmt.Sprintf("window_s=%.2f", secs), fmt.Sprintf("conc=%d", l.concurrency), fmt.Sprintf("rate=%g", l.rate),
	}
	if before.ok && after.ok {
		cpu := (after.cpu - before.cpu).Seconds()
		perItem := 0.0
		if st.items > 0 {
			perItem = cpu * 1e6 / float64(st.items)
		}
		fmt.Fprintf(os.Stderr, "run:   target cpu %.2fs (%.2f cores), %.3f µs per %s, rss %.1f MB, peak rss %.1f MB\n",
			cpu, cpu/after.at.Sub(before.at).Seconds(), perItem, k.unit, after.rssMB, after.rssHWMMB)
		fields = append(fields, fmt.Sprintf("cpu_us_per_item=%.3f", perItem), fmt.Sprintf("target_cpu_s=%.2f", cpu),
			fmt.Sprintf("target_cores=%.2f", cpu/after.at.Sub(before.at).Seconds()),
			fmt.Sprintf("rss_mb=%.1f", after.rssMB), fmt.Sprintf("rss_hwm_mb=%.1f", after.rssHWMMB))
	}
	if st.firstErr != "" {
		fmt.Fprintf(os.Stderr, "run:   first error: %s\n", st.firstErr)
	}
	fmt.Println("RESULT " + strings.Join(fields, " "))
}

// cmdReport reads RESULT lines and prints, per kind and label, the
// median of each figure over the rounds.
func cmdReport(files []string) error {
	type key struct{ kind, label string }
	rows := map[key][]map[string]string{}
	var order []key
	for _, f := range files {
		fh, err := os.Open(f) //nolint:gosec // the files the user named
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "RESULT ")
			if !ok {
				continue
			}
			m := map[string]string{}
			for _, kv := range strings.Fields(line) {
				k, v, _ := strings.Cut(kv, "=")
				m[k] = v
			}
			k := key{m["kind"], m["label"]}
			if _, seen := rows[k]; !seen {
				order = append(order, k)
			}
			rows[k] = append(rows[k], m)
		}
		_ = fh.Close()
	}
	cols := []string{"items_per_s", "cpu_us_per_item", "rss_hwm_mb", "p50_ms", "p99_ms", "refused", "failed"}
	fmt.Printf("%-18s %-10s %6s", "kind", "label", "rounds")
	for _, c := range cols {
		fmt.Printf(" %15s", c)
	}
	fmt.Println()
	for _, k := range order {
		fmt.Printf("%-18s %-10s %6d", k.kind, k.label, len(rows[k]))
		for _, c := range cols {
			fmt.Printf(" %15s", median(rows[k], c))
		}
		fmt.Println()
	}
	return nil
}

func median(rows []map[string]string, col string) string {
	var vs []float64
	for _, r := range rows {
		if v, err := strconv.ParseFloat(r[col], 64); err == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return "-"
	}
	slices.Sort(vs)
	m := vs[len(vs)/2]
	if len(vs)%2 == 0 {
		m = (vs[len(vs)/2-1] + m) / 2
	}
	return strconv.FormatFloat(m, 'f', -1, 64)
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// load is one run's settings.
type load struct {
	target      string
	payloads    []payload
	duration    time.Duration
	warmup      time.Duration
	concurrency int
	rate        float64 // requests per second over all workers; 0: each worker sends as soon as it is answered
	timeout     time.Duration
	maxWait     time.Duration // the longest Retry-After honoured
}

// stats is what the measured window saw.
type stats struct {
	requests  int // answered, whatever the answer
	ok        int // 2xx
	items     int // carried by 2xx answers
	refused   int // 429 and 503: the receiver asked the sender to wait
	failed    int // any other non-2xx
	netErrors int
	behind    int // with --rate: requests not sent, every connection being busy
	codes     map[int]int
	latencies []time.Duration // every answered request
	firstErr  string
	window    time.Duration
}

func (s *stats) add(o *stats) {
	s.requests += o.requests
	s.ok += o.ok
	s.items += o.items
	s.refused += o.refused
	s.failed += o.failed
	s.netErrors += o.netErrors
	for c, n := range o.codes {
		s.codes[c] += n
	}
	s.latencies = append(s.latencies, o.latencies...)
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
}

// percentile of the sorted latencies, in milliseconds.
func (s *stats) percentile(q float64) float64 {
	if len(s.latencies) == 0 {
		return 0
	}
	i := min(len(s.latencies)-1, int(q*float64(len(s.latencies))))
	return float64(s.latencies[i].Microseconds()) / 1000
}

// run sends the payloads in turn from concurrency workers for warmup and
// then duration, counting only the latter. A 429 or 503 is a refusal:
// the worker waits what Retry-After says (1 s without one, at most
// maxWait) and sends the same payload again, as an Agent does.
func (l *load) run(ctx context.Context) (*stats, error) {
	if len(l.payloads) == 0 {
		return nil, errors.New("no payloads")
	}
	client := &http.Client{Timeout: l.timeout, Transport: &http.Transport{
		MaxIdleConnsPerHost: l.concurrency, MaxConnsPerHost: l.concurrency, DisableCompression: true,
	}}
	defer client.CloseIdleConnections()
	// Requests run under ctx; until ends the sending. A request in flight
	// at the end is let finish, so that the receiver's work on it is
	// counted with its items.
	until, cancel := context.WithTimeout(ctx, l.warmup+l.duration)
	defer cancel()
	start := time.Now()
	measureFrom := start.Add(l.warmup)

	// An open loop: tokens at the rate, taken by whichever worker is free.
	var (
		tokens chan struct{}
		behind atomic.Int64
	)
	if l.rate > 0 {
		tokens = make(chan struct{}, l.concurrency)
		go func() {
			t := time.NewTicker(time.Duration(float64(time.Second) / l.rate))
			defer t.Stop()
			for {
				select {
				case <-until.Done():
					return
				case <-t.C:
					select {
					case tokens <- struct{}{}:
					default: // every connection is waiting on the target: the request is not sent
						if time.Now().After(measureFrom) {
							behind.Add(1)
						}
					}
				}
			}
		}()
	}

	var (
		mu    sync.Mutex
		total = &stats{codes: map[int]int{}}
		wg    sync.WaitGroup
	)
	for w := range l.concurrency {
		wg.Go(func() {
			mine := &stats{codes: map[int]int{}}
			for i := w; until.Err() == nil; i += l.concurrency {
				if tokens != nil {
					select {
					case <-until.Done():
						continue
					case <-tokens:
					}
				}
				l.send(ctx, until, client, l.payloads[i%len(l.payloads)], mine, measureFrom)
			}
			mu.Lock()
			total.add(mine)
			mu.Unlock()
		})
	}
	wg.Wait()
	total.window = time.Since(measureFrom)
	total.behind = int(behind.Load())
	slices.Sort(total.latencies)
	return total, nil
}

// send delivers one payload, again after each refusal, until it is
// answered otherwise or the run ends (until).
func (l *load) send(ctx, until context.Context, client *http.Client, p payload, st *stats, measureFrom time.Time) {
	for until.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.target+p.Path, bytes.NewReader(p.Body))
		if err != nil {
			panic(err) // the target was checked when the flags were read
		}
		req.Header = p.Header.Clone()
		t0 := time.Now()
		res, err := client.Do(req)
		counted := t0.After(measureFrom)
		if err != nil {
			if ctx.Err() != nil {
				return // the run ended under it
			}
			if counted {
				st.netErrors++
				if st.firstErr == "" {
					st.firstErr = err.Error()
				}
			}
			sleep(until, 100*time.Millisecond)
			return
		}
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if counted {
			st.requests++
			st.codes[res.StatusCode]++
			st.latencies = append(st.latencies, time.Since(t0))
		}
		switch {
		case res.StatusCode/100 == 2:
			if counted {
				st.ok++
				st.items += p.Items
			}
			return
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable:
			if counted {
				st.refused++
			}
			sleep(until, min(retryAfter(res.Header.Get("Retry-After")), l.maxWait))
		default:
			if counted {
				st.failed++
				if st.firstErr == "" {
					st.firstErr = fmt.Sprintf("%d %s: %s", res.StatusCode, p.Path, strings.TrimSpace(string(msg)))
				}
			}
			return
		}
	}
}

// retryAfter reads Retry-After in seconds or as a date; a second when it
// is absent or unreadable.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return time.Second
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// codes prints the status counts as 202:10,429:3.
func codes(m map[int]int) string {
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%d:%d", c, m[c]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}

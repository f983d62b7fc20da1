// Package webhook delivers alert notifications: one JSON POST with the
// webhook's headers and an Idempotency-Key, a timeout per attempt, retries
// with exponential backoff, and a dialer that refuses private, loopback
// and link-local addresses unless allowed (a webhook URL is user input).
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"
)

// Sender posts notifications.
type Sender struct {
	client   *http.Client
	attempts int
	backoff  time.Duration
}

// Options tune delivery.
type Options struct {
	Timeout      time.Duration // per attempt
	Attempts     int           // total, at least 1
	Backoff      time.Duration // first wait; doubles
	AllowPrivate bool          // allow loopback/private targets (tests, on-prem receivers)
}

// ErrForbiddenTarget says the URL resolves to an address webhooks may not reach.
var ErrForbiddenTarget = errors.New("webhook target is a private, loopback or link-local address")

// New builds a sender.
func New(o Options) *Sender {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Attempts < 1 {
		o.Attempts = 1
	}
	dialer := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		// Checked on the address actually dialled, after DNS, so a name
		// that resolves inside the network is refused too.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip := net.ParseIP(host)
			if ip == nil {
				return ErrForbiddenTarget
			}
			if why := forbidden(ip); why != "" {
				return fmt.Errorf("%w: %s is %s", ErrForbiddenTarget, ip, why)
			}
			return nil
		}
	}
	transport := &http.Transport{DialContext: dialer.DialContext, Proxy: nil, MaxIdleConns: 16, IdleConnTimeout: 30 * time.Second}
	return &Sender{
		client:   &http.Client{Transport: transport, Timeout: o.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		attempts: o.Attempts, backoff: o.Backoff,
	}
}

// Result is a delivery's outcome.
type Result struct {
	Attempts int
	Status   int
	Err      error
}

// Send posts body to url, retrying network errors, 429 and 5xx.
func (s *Sender) Send(ctx context.Context, url string, headers map[string]string, body []byte, idempotencyKey string) Result {
	var res Result
	wait := s.backoff
	for res.Attempts < s.attempts {
		res.Attempts++
		res.Status, res.Err = s.once(ctx, url, headers, body, idempotencyKey)
		if res.Err == nil || errors.Is(res.Err, ErrForbiddenTarget) || !retryable(res.Status, res.Err) {
			return res
		}
		if res.Attempts == s.attempts {
			break
		}
		select {
		case <-ctx.Done():
			res.Err = ctx.Err()
			return res
		case <-time.After(wait):
		}
		wait *= 2
	}
	return res
}

func retryable(status int, err error) bool {
	return status == 0 || status == http.StatusTooManyRequests || status >= 500 || err != nil && status == 0
}

func (s *Sender) once(ctx context.Context, url string, headers map[string]string, body []byte, key string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "otelhouse-alerts/1")
	req.Header.Set("Idempotency-Key", key)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		if errors.Is(err, ErrForbiddenTarget) {
			return 0, ErrForbiddenTarget
		}
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("webhook answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

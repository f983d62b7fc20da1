package observabilityapiextension

// The alert scheduler's clock: the extension builds the scheduler beside
// the REST API (extension.go) and ticks it every check interval until
// shutdown; internal/alerting does the work.

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/alerting"
	"github.com/otelhouse/otelhouse/extension/observabilityapiextension/internal/webhook"
)

// evaluateAlerts looks for due alerts every check interval until shutdown.
func (e *apiExtension) evaluateAlerts(ctx context.Context, scheduler *alerting.Scheduler) {
	a := e.cfg.Alerts
	if a.CheckInterval <= 0 {
		return
	}
	sender := webhook.New(webhook.Options{
		Timeout: a.WebhookTimeout, Attempts: a.WebhookAttempts, Backoff: a.WebhookBackoff,
		AllowPrivate: a.AllowPrivateWebhooks,
	})
	t := time.NewTicker(a.CheckInterval)
	defer t.Stop()
	// Each pass runs on its own: one held up by a slow webhook does not
	// delay the next, which evaluates every alert not still in flight.
	var passes sync.WaitGroup
	defer passes.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			passes.Go(func() {
				if err := scheduler.EvaluateDue(ctx, now, sender); err != nil && ctx.Err() == nil {
					e.set.Logger.Warn("alert evaluation failed", zap.Error(err))
				}
			})
		}
	}
}

package logs

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/plog"
)

// severity maps a Datadog status (or syslog severity, name or 0–7 number)
// to an OpenTelemetry severity number. Datadog's order is emergency >
// alert > critical > error > warning > notice > info > debug > trace.
func severity(status string) plog.SeverityNumber {
	// Agents send the status lowercase: one lookup without a copy first.
	if n := severityOf(status); n != plog.SeverityNumberUnspecified {
		return n
	}
	return severityOf(strings.ToLower(strings.TrimSpace(status)))
}

func severityOf(status string) plog.SeverityNumber {
	switch status {
	case "trace", "verbose":
		return plog.SeverityNumberTrace
	case "debug", "dbug", "7":
		return plog.SeverityNumberDebug
	case "info", "information", "informational", "ok", "success", "6":
		return plog.SeverityNumberInfo
	case "notice", "5":
		return plog.SeverityNumberInfo2
	case "warn", "warning", "4":
		return plog.SeverityNumberWarn
	case "error", "err", "3":
		return plog.SeverityNumberError
	case "fatal":
		return plog.SeverityNumberFatal
	case "critical", "crit", "2":
		return plog.SeverityNumberFatal2
	case "alert", "1":
		return plog.SeverityNumberFatal3
	case "emergency", "emerg", "panic", "0":
		return plog.SeverityNumberFatal4
	}
	return plog.SeverityNumberUnspecified
}

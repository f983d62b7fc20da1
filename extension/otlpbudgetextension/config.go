package otlpbudgetextension

import "fmt"

// Config bounds each OTLP/HTTP request the middleware sees.
type Config struct {
	// MaxDecodedSize is the estimated memory one request's body may take
	// once decoded (messages, attributes); past it the request is answered
	// 413 before it is decoded. 0 sets no bound.
	MaxDecodedSize int64 `mapstructure:"max_decoded_size"`
}

func (c *Config) Validate() error {
	if c.MaxDecodedSize < 0 {
		return fmt.Errorf("max_decoded_size must not be negative (0: no bound), got %d", c.MaxDecodedSize)
	}
	return nil
}

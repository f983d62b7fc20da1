package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/otelhouse/otelhouse/internal/domain/keys"
)

// A webhook's headers often hold the receiver's credentials (a bearer
// token, a routing key). They are stored sealed as keys are (AES-GCM
// under the data directory's secret), bound to the webhook's team and
// id, so the state tables never hold them in clear and a sealed value
// copied to another webhook does not open there.

// SealedField is the stored document's field that holds the sealed
// headers (the caller's "headers" is never stored).
const SealedField = "sealedHeaders"

func bound(team, id string) string { return "webhook-headers:" + team + "/" + id }

// SealedQueryParamsField holds a webhook's sealed query parameters,
// sealed as headers are under QueryParamsID, so that neither sealed value
// opens as the other.
const SealedQueryParamsField = "sealedQueryParams"

// QueryParamsID is what a webhook's query parameters are sealed under.
func QueryParamsID(id string) string { return id + "#queryParams" }

// WithQueryParams is raw with params added to its query (delivery).
func WithQueryParams(raw string, params map[string]string) (string, error) {
	if len(params) == 0 {
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// SealHeaders seals a webhook's headers ("" for none).
func SealHeaders(s *keys.Sealer, team, id string, headers map[string]string) (string, error) {
	if len(headers) == 0 {
		return "", nil
	}
	if s == nil {
		return "", errors.New("webhook headers cannot be stored: no sealing secret")
	}
	b, err := json.Marshal(headers)
	if err != nil {
		return "", err
	}
	return s.SealBound(string(b), bound(team, id)), nil
}

// OpenHeaders opens what SealHeaders sealed for the same team and id.
func OpenHeaders(s *keys.Sealer, team, id, sealed string) (map[string]string, error) {
	if sealed == "" {
		return nil, nil
	}
	if s == nil {
		return nil, errors.New("webhook headers are sealed and no sealing secret is loaded")
	}
	plain, err := s.OpenBound(sealed, bound(team, id))
	if err != nil {
		return nil, fmt.Errorf("webhook headers: %w", err)
	}
	var h map[string]string
	if err := json.Unmarshal([]byte(plain), &h); err != nil {
		return nil, fmt.Errorf("webhook headers: %w", err)
	}
	return h, nil
}

// SealStoredDoc rewrites a stored webhook document whose headers are in
// clear (written before headers were sealed) with them sealed; changed
// is false when there was nothing in clear.
func SealStoredDoc(s *keys.Sealer, team, id string, doc []byte) (out []byte, changed bool, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, false, err
	}
	raw, ok := m["headers"]
	if !ok {
		return doc, false, nil
	}
	var h map[string]string
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, false, fmt.Errorf("webhook %s: headers: %w", id, err)
	}
	delete(m, "headers")
	sealed, err := SealHeaders(s, team, id, h)
	if err != nil {
		return nil, false, err
	}
	if sealed != "" {
		m[SealedField], _ = json.Marshal(sealed)
	}
	out, err = json.Marshal(m)
	return out, true, err
}

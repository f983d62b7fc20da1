package chhttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	chproto "github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
	"github.com/ClickHouse/clickhouse-go/v2/lib/proto"
)

// reframeNative rewrites Native output from the engine, which encodes at
// protocol revision 0, for a client that asked for revision `version`
// (client_protocol_version): block info and per-column serialization flags
// appear from certain revisions on, so every block is decoded and encoded
// again. The codecs are clickhouse-go's, the client's own, which know
// every type a table may have (maps of LowCardinality keys, nested
// arrays of maps, Dynamic, …); ch-go's inference knows only some.
func reframeNative(data []byte, version int) ([]byte, error) {
	if version <= 0 || len(data) == 0 {
		return data, nil
	}
	r := chproto.NewReader(bytes.NewReader(data))
	// The time zone only shapes Go values, never the bytes re-encoded.
	server := &column.ServerContext{Timezone: time.UTC}
	out := &chproto.Buffer{}
	for {
		b := proto.Block{ServerContext: server}
		if err := b.Decode(r, 0); err != nil {
			if isEOF(err) {
				break
			}
			return nil, fmt.Errorf("re-encoding Native output for protocol %d: %w", version, err)
		}
		if len(b.Columns) == 0 && b.Rows() == 0 {
			continue
		}
		if err := b.Encode(out, uint64(version)); err != nil {
			return nil, fmt.Errorf("re-encoding Native output for protocol %d: %w", version, err)
		}
	}
	return out.Buf, nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

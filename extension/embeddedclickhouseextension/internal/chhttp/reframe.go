package chhttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/ClickHouse/ch-go/proto"
)

// reframeNative rewrites Native output from the engine, which encodes at
// protocol revision 0, for a client that asked for revision `version`
// (client_protocol_version): block info and per-column serialization flags
// appear from certain revisions on, so every block is decoded and encoded
// again with ch-go's column codecs.
func reframeNative(data []byte, version int) ([]byte, error) {
	if version <= 0 || len(data) == 0 {
		return data, nil
	}
	r := proto.NewReader(bytes.NewReader(data))
	var out proto.Buffer
	for {
		var results proto.Results
		var b proto.Block
		if err := b.DecodeRawBlock(r, 0, results.Auto()); err != nil {
			if isEOF(err) {
				break
			}
			return nil, fmt.Errorf("re-encoding Native output for protocol %d: %w", version, err)
		}
		input := make([]proto.InputColumn, len(results))
		for i, c := range results {
			input[i] = proto.InputColumn{Name: c.Name, Data: c.Data.(proto.ColInput)}
		}
		if b.Columns == 0 && b.Rows == 0 {
			continue
		}
		if err := (proto.Block{Columns: b.Columns, Rows: b.Rows, Info: proto.BlockInfo{BucketNum: -1}}).EncodeBlock(&out, version, input); err != nil {
			return nil, fmt.Errorf("re-encoding Native output for protocol %d: %w", version, err)
		}
	}
	return out.Buf, nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

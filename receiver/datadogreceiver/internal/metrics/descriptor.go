package metrics

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"

	"github.com/DataDog/agent-payload/v5/gogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// The gogo-generated payload types carry their .proto only as a gzipped
// FileDescriptorProto; rebuilt once, it lets the budget count a body by
// Datadog's own schema before gogo decodes it.
var payloadFile = sync.OnceValue(func() protoreflect.FileDescriptor {
	gz, _ := (&gogen.MetricPayload{}).Descriptor()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		panic(fmt.Sprintf("agent-payload descriptor: %v", err))
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		panic(fmt.Sprintf("agent-payload descriptor: %v", err))
	}
	var fdp descriptorpb.FileDescriptorProto
	if err := proto.Unmarshal(raw, &fdp); err != nil {
		panic(fmt.Sprintf("agent-payload descriptor: %v", err))
	}
	// Its only import is gogo.proto (options), which the counter never needs.
	fd, err := protodesc.FileOptions{AllowUnresolvable: true}.New(&fdp, protoregistry.GlobalFiles)
	if err != nil {
		panic(fmt.Sprintf("agent-payload descriptor: %v", err))
	}
	return fd
})

// payloadDescriptor is the schema of an agent-payload message by name.
func payloadDescriptor(name protoreflect.Name) protoreflect.MessageDescriptor {
	return payloadFile().Messages().ByName(name)
}

package webhook

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLooseIPv4(t *testing.T) {
	for in, want := range map[string]string{
		"2130706433": "127.0.0.1", "0x7f000001": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "127.1": "127.0.0.1",
		"10.1": "10.0.0.1", "169.254.169.254": "169.254.169.254", "0": "0.0.0.0", "192.168.0x1.1": "192.168.1.1",
	} {
		ip, ok := looseIPv4(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, ip.String(), in)
	}
	for _, in := range []string{"example.com", "1.2.3.4.5", "256.1.1.1", "4294967296", "1.2.3.256", "0x", "08", "a.b"} {
		_, ok := looseIPv4(in)
		assert.False(t, ok, in)
	}
}

func TestCheckTarget(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"http://127.0.0.1:8123/?query=SELECT+1", "http://[::1]/", "http://2130706433/", "http://0x7f.1/",
		"http://169.254.169.254/latest/meta-data", "http://10.0.0.5/", "http://192.168.1.1/", "http://172.16.0.1/",
		"http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://100.64.1.1/", "http://localhost:8080/",
		"http://api.localhost/", "http://[fd00::1]/", "http://LOCALHOST./",
	} {
		err := CheckTarget(ctx, u)
		assert.ErrorIs(t, err, ErrForbiddenTarget, u)
	}
	for _, u := range []string{"https://hooks.slack.com/services/x", "http://8.8.8.8/", "https://[2001:4860:4860::8888]/", "https://not-resolvable.invalid/"} {
		assert.NoError(t, CheckTarget(ctx, u), u)
	}
	assert.Error(t, CheckTarget(ctx, "not a url"))
}

func TestForbiddenNamesTheReason(t *testing.T) {
	assert.Equal(t, "loopback", forbidden(net.ParseIP("127.0.0.2")))
	assert.Equal(t, "", forbidden(net.ParseIP("1.1.1.1")))
	assert.Contains(t, forbidden(net.ParseIP("169.254.169.254")), "link-local")
}

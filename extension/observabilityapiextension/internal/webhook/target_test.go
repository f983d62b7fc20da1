package webhook

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.ErrorIs(t, err, ErrForbiddenTarget, u)
	}
	for _, u := range []string{"https://hooks.slack.com/services/x", "http://8.8.8.8/", "https://[2001:4860:4860::8888]/", "https://not-resolvable.invalid/"} {
		require.NoError(t, CheckTarget(ctx, u), u)
	}
	assert.Error(t, CheckTarget(ctx, "not a url"))
}

func TestForbiddenNamesTheReason(t *testing.T) {
	assert.Equal(t, "loopback", forbidden(net.ParseIP("127.0.0.2")))
	assert.Empty(t, forbidden(net.ParseIP("1.1.1.1")))
	assert.Contains(t, forbidden(net.ParseIP("169.254.169.254")), "link-local")
}

// Issue 41: IPv6 forms that carry an IPv4 address are judged by that
// address (IPv4-compatible, NAT64, 6to4, Teredo, IPv4-mapped).
func TestIPv6FormsCarryingIPv4(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"http://[::127.0.0.1]/", "http://[::7f00:1]/", "http://[::169.254.169.254]/", "http://[::10.0.0.1]/",
		"http://[64:ff9b::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b::192.168.0.1]/",
		"http://[2002:7f00:1::]/", "http://[2002:a9fe:a9fe::1]/", "http://[2002:c0a8:0101::]/",
		"http://[::ffff:169.254.169.254]/", "http://[::ffff:10.1.2.3]/",
		"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", // Teredo, client 127.0.0.1
	} {
		err := CheckTarget(ctx, u)
		require.ErrorIs(t, err, ErrForbiddenTarget, u)
	}
	assert.Contains(t, forbidden(net.ParseIP("64:ff9b::7f00:1")), "an IPv6 form of 127.0.0.1, which is loopback")
	for _, u := range []string{"http://[64:ff9b::8.8.8.8]/", "http://[2002:808:808::1]/", "http://[::ffff:8.8.8.8]/"} {
		assert.NoError(t, CheckTarget(ctx, u), "a public IPv4 address through a translator: %s", u)
	}
}

// Issue 41: an address on one of this host's interfaces is refused even
// when it is public: the webhook would reach this host's own services.
func TestThisHostsOwnAddresses(t *testing.T) {
	public := netip.MustParseAddr("203.0.113.7")
	defer func(f func() []netip.Addr) { hostAddrs = f }(hostAddrs)
	hostAddrs = func() []netip.Addr { return []netip.Addr{public, netip.MustParseAddr("2001:db8:5::7")} }
	for _, u := range []string{"http://203.0.113.7:8123/", "http://[2001:db8:5::7]/", "http://[::ffff:203.0.113.7]/", "http://[64:ff9b::203.0.113.7]/"} {
		err := CheckTarget(context.Background(), u)
		require.ErrorIs(t, err, ErrForbiddenTarget, u)
	}
	assert.Contains(t, forbidden(net.IP(public.AsSlice())), "this host's own")
	require.NoError(t, CheckTarget(context.Background(), "http://203.0.113.8/"))

	// The real interfaces: every address on them is refused.
	hostAddrs = realHostAddrs
	for _, a := range hostAddrs() {
		assert.NotEmpty(t, forbidden(net.IP(a.AsSlice())), a)
	}
}

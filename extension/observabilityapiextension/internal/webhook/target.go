package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// reserved are ranges beyond the standard library's loopback, private,
// link-local and unspecified tests that reach no public receiver, and
// some of them (shared address space, this network) reach a host's
// neighbours.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// forbidden tells why an address is no webhook target ("" if it may be).
func forbidden(ip net.IP) string {
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return "an unusable address"
	}
	return forbiddenAddr(addr.Unmap())
}

func forbiddenAddr(addr netip.Addr) string {
	switch {
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local (cloud metadata lives there)"
	case addr.IsUnspecified(), addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "not a unicast host"
	}
	for _, p := range reserved {
		if p.Contains(addr) {
			return "reserved (" + p.String() + ")"
		}
	}
	// An IPv6 address that carries an IPv4 one reaches it through a
	// translator or a tunnel (or, on some stacks, directly): judged by
	// the IPv4 address it carries.
	for _, v4 := range embeddedIPv4(addr) {
		if why := forbiddenAddr(v4); why != "" {
			return "an IPv6 form of " + v4.String() + ", which is " + why
		}
	}
	for _, own := range hostAddrs() {
		if own.Unmap() == addr {
			return "this host's own (" + addr.String() + " is on one of its interfaces)"
		}
	}
	return ""
}

// IPv6 ranges whose addresses carry an IPv4 address.
var (
	ipv4Compatible = netip.MustParsePrefix("::/96")        // ::a.b.c.d, deprecated but still routed by some stacks
	nat64          = netip.MustParsePrefix("64:ff9b::/96") // RFC 6052 well-known prefix
	sixToFour      = netip.MustParsePrefix("2002::/16")    // RFC 3056: 2002:AABB:CCDD::
	teredo         = netip.MustParsePrefix("2001::/32")    // RFC 4380: server, and the client's XOR-ed
)

// embeddedIPv4 answers the IPv4 addresses an IPv6 address carries (none
// for a plain one). ::ffff:a.b.c.d is unmapped before this.
func embeddedIPv4(addr netip.Addr) []netip.Addr {
	if !addr.Is6() {
		return nil
	}
	b := addr.As16()
	v4 := func(p []byte) netip.Addr { return netip.AddrFrom4([4]byte{p[0], p[1], p[2], p[3]}) }
	switch {
	case ipv4Compatible.Contains(addr), nat64.Contains(addr):
		return []netip.Addr{v4(b[12:16])}
	case sixToFour.Contains(addr):
		return []netip.Addr{v4(b[2:6])}
	case teredo.Contains(addr):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return []netip.Addr{v4(b[4:8]), netip.AddrFrom4(client)}
	}
	return nil
}

// hostAddrs are the addresses on this host's interfaces, public ones
// among them (a cloud VM's, a host with a routable address): a webhook
// to one reaches this host's own services on every interface they
// listen on. Read at each check, so an address gained later counts.
var hostAddrs = realHostAddrs

func realHostAddrs() []netip.Addr {
	ifAddrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	out := make([]netip.Addr, 0, len(ifAddrs))
	for _, a := range ifAddrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr().Unmap())
		} else if ip, err := netip.ParseAddr(a.String()); err == nil {
			out = append(out, ip.Unmap())
		}
	}
	return out
}

// looseIPv4 reads the IPv4 forms C's inet_aton takes and some resolvers
// and clients still honour: 2130706433, 0x7f000001, 0177.0.0.1, 127.1.
func looseIPv4(host string) (net.IP, bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return nil, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil || digits == "" && base != 8 {
			return nil, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return nil, false
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return nil, false
	}
	n |= last
	return net.IPv4(byte(n>>24), byte(n>>16), byte(n>>8), byte(n)), true
}

// CheckTarget refuses a webhook URL whose host is, or resolves now to, a
// loopback, private, link-local or reserved address: stored, it would let
// anyone who may create a webhook make this server call its own
// neighbours (the embedded ClickHouse on 127.0.0.1:8123, a cloud metadata
// service). A name that does not resolve now is accepted; every delivery
// checks the address it connects to again (New's dialer), so a name
// rebound to a private address later is refused then.
func CheckTarget(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("url must be an absolute http(s) URL")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("%w: %s is this host", ErrForbiddenTarget, host)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		ip, _ = looseIPv4(host)
	}
	if ip != nil {
		if why := forbidden(ip); why != "" {
			return fmt.Errorf("%w: %s is %s", ErrForbiddenTarget, ip, why)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil // not resolvable now: delivery checks the address it dials
	}
	for _, a := range addrs {
		if why := forbidden(a.IP); why != "" {
			return fmt.Errorf("%w: %s resolves to %s, which is %s", ErrForbiddenTarget, host, a.IP, why)
		}
	}
	return nil
}

package winlimit

import (
	"net"
	"net/netip"
)

// DefaultIPv6Subnet is the prefix an IPv6 client is keyed by: one host usually owns a /64
// and could otherwise take a new address per request.
const DefaultIPv6Subnet = 64

// CheckSubnet refuses an ipv6Subnet outside 1..128.
func CheckSubnet(ipv6Subnet int) error {
	if ipv6Subnet < 1 || ipv6Subnet > 128 {
		return argError("ipv6 subnet", "must be from 1 to 128, not %d", ipv6Subnet)
	}
	return nil
}

// IPKey is the key for a client's address: an IPv4 address (or an IPv4-mapped IPv6 one)
// itself; an IPv6 address its network of ipv6Subnet bits in CIDR form ("2001:db8:1:2::/64"),
// the whole address for 128; anything that is not an IP address, unchanged. A host:port is
// read as its host. The error is CheckSubnet's.
func IPKey(address string, ipv6Subnet int) (string, error) {
	if err := CheckSubnet(ipv6Subnet); err != nil {
		return "", err
	}
	ip, err := netip.ParseAddr(address)
	if err != nil {
		host, _, splitErr := net.SplitHostPort(address)
		if splitErr != nil {
			return address, nil
		}
		if ip, err = netip.ParseAddr(host); err != nil {
			return address, nil
		}
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is4() || ipv6Subnet == 128 {
		return ip.String(), nil
	}
	prefix, _ := ip.Prefix(ipv6Subnet)
	return prefix.String(), nil
}

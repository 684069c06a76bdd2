// Package ipkey keys a client by its address, as clients/spec/keys.json says: the
// middlewares' plumbing (httplimit, grpclimit), kept out of the winlimit package's API.
package ipkey

import (
	"fmt"
	"net"
	"net/netip"
)

// CheckSubnet refuses an ipv6Subnet outside 1..128.
func CheckSubnet(ipv6Subnet int) error {
	if ipv6Subnet < 1 || ipv6Subnet > 128 {
		return fmt.Errorf("ipv6 subnet: must be from 1 to 128, not %d", ipv6Subnet)
	}
	return nil
}

// Of is the key for a client's address: an IPv4 address (or an IPv4-mapped IPv6 one)
// itself; an IPv6 address its network of ipv6Subnet bits in CIDR form ("2001:db8:1:2::/64"),
// the whole address for 128; anything that is not an IP address, unchanged. A host:port is
// read as its host. The error is CheckSubnet's.
func Of(address string, ipv6Subnet int) (string, error) {
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

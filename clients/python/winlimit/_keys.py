"""The middleware's default key: the client's address, an IPv6 one as its network, since one
IPv6 host usually owns a whole /64 and could otherwise take a new address per request. The
rules are the clients' shared ones (clients/spec/keys.json)."""

from __future__ import annotations

import ipaddress
from typing import Callable, Optional, TypeVar

DEFAULT_IPV6_SUBNET = 64
Request = TypeVar("Request")


def check_subnet(ipv6_subnet: int) -> int:
    """`ipv6_subnet` as given, once it is an int from 1 to 128."""
    if isinstance(ipv6_subnet, bool) or not isinstance(ipv6_subnet, int):
        raise TypeError(f"ipv6_subnet must be an int, not {type(ipv6_subnet).__name__}")
    if not 1 <= ipv6_subnet <= 128:
        raise ValueError(f"ipv6_subnet must be from 1 to 128, not {ipv6_subnet}")
    return ipv6_subnet


def ip_key(address: str, ipv6_subnet: int = DEFAULT_IPV6_SUBNET) -> str:
    """The key for a client's address: an IPv4 address (or an IPv4-mapped IPv6 one) itself; an
    IPv6 address its network of `ipv6_subnet` bits in CIDR form (`2001:db8:1:2::/64`), the
    whole address for 128; anything that is not an IP address, unchanged."""
    check_subnet(ipv6_subnet)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ipv6_subnet == 128:
        return ip.compressed
    return ipaddress.IPv6Network((ip, ipv6_subnet), strict=False).compressed


def address_key(remote_address: Callable[[Request], Optional[str]],
                ipv6_subnet: int) -> Callable[[Request], Optional[str]]:
    """A middleware's default key function: `remote_address(request)` as `ip_key` makes it."""
    check_subnet(ipv6_subnet)

    def key(request: Request) -> Optional[str]:
        address = remote_address(request)
        return None if address is None else ip_key(address, ipv6_subnet)

    return key

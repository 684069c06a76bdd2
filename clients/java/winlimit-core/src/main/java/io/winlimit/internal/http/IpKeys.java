package io.winlimit.internal.http;

import java.util.ArrayList;
import java.util.List;

/**
 * A middleware's default key: the client's address, an IPv6 one as its network, since one IPv6
 * host usually owns a whole /64 and could otherwise take a new address per request. The rules
 * are the clients' shared ones (clients/spec/keys.json). Parsed here, never by InetAddress,
 * which would look up a name that is not an address.
 */
public final class IpKeys {
    /** The prefix an IPv6 address is cut to by default. */
    public static final int DEFAULT_IPV6_SUBNET = 64;

    private IpKeys() {}

    /**
     * {@code ipv6Subnet} once it is from 1 to 128; IllegalArgumentException otherwise.
     *
     * @param ipv6Subnet the prefix length
     * @return {@code ipv6Subnet}
     * @throws IllegalArgumentException if it is outside 1 to 128
     */
    public static int checkSubnet(int ipv6Subnet) {
        if (ipv6Subnet < 1 || ipv6Subnet > 128) {
            throw new IllegalArgumentException("ipv6Subnet must be an integer from 1 to 128, not " + ipv6Subnet);
        }
        return ipv6Subnet;
    }

    /**
     * {@link #ipKey(String, int)} with a /64.
     *
     * @param address the client's address
     * @return the key
     */
    public static String ipKey(String address) {
        return ipKey(address, DEFAULT_IPV6_SUBNET);
    }

    /**
     * The key for a client's address: an IPv4 address (or an IPv4-mapped IPv6 one) itself; an
     * IPv6 address its network of {@code ipv6Subnet} bits in CIDR form ({@code 2001:db8:1:2::/64}),
     * the whole address for 128; anything that is not an IP address, unchanged.
     *
     * @param address the client's address
     * @param ipv6Subnet the prefix length for IPv6, 1 to 128
     * @return the key
     */
    public static String ipKey(String address, int ipv6Subnet) {
        checkSubnet(ipv6Subnet);
        int zone = address.indexOf('%');
        String bare = zone < 0 ? address : address.substring(0, zone); // a zone names no other host
        if (ipv4(address) != null) {
            return address;
        }
        int[] groups = hextets(bare);
        if (groups == null) {
            return address;
        }
        if (groups[0] == 0 && groups[1] == 0 && groups[2] == 0 && groups[3] == 0 && groups[4] == 0 && groups[5] == 0xffff) {
            return (groups[6] >> 8) + "." + (groups[6] & 0xff) + "." + (groups[7] >> 8) + "." + (groups[7] & 0xff);
        }
        if (ipv6Subnet == 128) {
            return compressed(groups);
        }
        int[] masked = new int[8];
        for (int i = 0; i < 8; i++) {
            int bits = Math.min(16, Math.max(0, ipv6Subnet - 16 * i));
            masked[i] = groups[i] & ((0xffff << (16 - bits)) & 0xffff);
        }
        return compressed(masked) + "/" + ipv6Subnet;
    }

    /** The two 16-bit groups of a dotted IPv4 address, or null when it is not one. */
    private static int[] ipv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        int[] bytes = new int[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (!p.matches("0|[1-9]\\d{0,2}") || Integer.parseInt(p) > 255) {
                return null;
            }
            bytes[i] = Integer.parseInt(p);
        }
        return new int[] {(bytes[0] << 8) | bytes[1], (bytes[2] << 8) | bytes[3]};
    }

    /** The eight groups of a valid IPv6 address ({@code ::} and a dotted IPv4 tail expanded), or null. */
    private static int[] hextets(String address) {
        int gap = address.indexOf("::");
        if (gap >= 0 && address.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        List<Integer> left = groups(gap < 0 ? address : address.substring(0, gap));
        List<Integer> right = gap < 0 ? List.of() : groups(address.substring(gap + 2));
        if (left == null || right == null) {
            return null;
        }
        int missing = 8 - left.size() - right.size();
        if (gap < 0 ? missing != 0 : missing < 1) {
            return null;
        }
        int[] out = new int[8];
        for (int i = 0; i < left.size(); i++) {
            out[i] = left.get(i);
        }
        for (int i = 0; i < right.size(); i++) {
            out[8 - right.size() + i] = right.get(i);
        }
        return out;
    }

    private static List<Integer> groups(String part) {
        List<Integer> out = new ArrayList<>();
        if (part.isEmpty()) {
            return out;
        }
        String[] texts = part.split(":", -1);
        for (int i = 0; i < texts.length; i++) {
            String g = texts[i];
            if (i == texts.length - 1 && g.contains(".")) {
                int[] tail = ipv4(g);
                if (tail == null) {
                    return null;
                }
                out.add(tail[0]);
                out.add(tail[1]);
            } else if (g.matches("[0-9a-fA-F]{1,4}")) {
                out.add(Integer.parseInt(g, 16));
            } else {
                return null;
            }
        }
        return out;
    }

    /** RFC 5952's text: lowercase, no leading zeros, the longest run of two or more zero groups
     * (the first of equal runs) as {@code ::}. */
    private static String compressed(int[] groups) {
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        if (bestStart < 0) {
            return hex(groups, 0, 8);
        }
        return hex(groups, 0, bestStart) + "::" + hex(groups, bestStart + bestLength, 8);
    }

    private static String hex(int[] groups, int from, int to) {
        StringBuilder out = new StringBuilder();
        for (int i = from; i < to; i++) {
            out.append(i == from ? "" : ":").append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }
}

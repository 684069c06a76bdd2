package io.winlimit.spring.boot.web;

import java.util.regex.Pattern;

/**
 * The default key of a request: the client's address, an IPv6 one as its network, since one
 * IPv6 host usually owns a whole /64 and could otherwise take a new address per request. The
 * rules are the clients' shared ones (clients/spec/keys.json). Parsed here, never by
 * {@code InetAddress}, which would look a name that is not an address up in the DNS.
 */
public final class ClientAddress {
    private static final Pattern IPV4 = Pattern.compile("(0|[1-9]\\d{0,2})(\\.(0|[1-9]\\d{0,2})){3}");
    private static final Pattern HEXTET = Pattern.compile("[0-9A-Fa-f]{1,4}");

    private ClientAddress() {}

    /** {@code ipv6Subnet} as given, once it is from 1 to 128. */
    public static int checkSubnet(int ipv6Subnet) {
        if (ipv6Subnet < 1 || ipv6Subnet > 128) {
            throw new IllegalArgumentException("ipv6-subnet must be from 1 to 128, not " + ipv6Subnet);
        }
        return ipv6Subnet;
    }

    /** The key for a client's address: an IPv4 address (or an IPv4-mapped IPv6 one) itself; an
     * IPv6 address its network of {@code ipv6Subnet} bits in CIDR form ({@code 2001:db8:1:2::/64}),
     * the whole address for 128; anything that is not an IP address, unchanged. */
    public static String key(String address, int ipv6Subnet) {
        checkSubnet(ipv6Subnet);
        if (isIpv4(address)) {
            return address;
        }
        int[] hextets = ipv6(address);
        if (hextets == null) {
            return address;
        }
        if (isIpv4Mapped(hextets)) {
            return (hextets[6] >> 8) + "." + (hextets[6] & 0xff) + "." + (hextets[7] >> 8) + "." + (hextets[7] & 0xff);
        }
        if (ipv6Subnet == 128) {
            return compressed(hextets);
        }
        for (int i = 0; i < 8; i++) {
            int kept = Math.max(0, Math.min(16, ipv6Subnet - 16 * i));
            hextets[i] &= kept == 0 ? 0 : (0xffff << (16 - kept)) & 0xffff;
        }
        return compressed(hextets) + "/" + ipv6Subnet;
    }

    private static boolean isIpv4(String text) {
        if (!IPV4.matcher(text).matches()) {
            return false;
        }
        for (String part : text.split("\\.")) {
            if (Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isIpv4Mapped(int[] h) {
        return h[0] == 0 && h[1] == 0 && h[2] == 0 && h[3] == 0 && h[4] == 0 && h[5] == 0xffff;
    }

    /** The eight 16-bit groups of an IPv6 address (a zone after % is dropped), or null. */
    static int[] ipv6(String text) {
        int zone = text.indexOf('%');
        String address = zone >= 0 ? text.substring(0, zone) : text;
        if (zone == 0 || address.indexOf(':') < 0) {
            return null;
        }
        int gap = address.indexOf("::");
        if (gap >= 0 && address.indexOf("::", gap + 1) >= 0) {
            return null;
        }
        int[] head = groups(gap >= 0 ? address.substring(0, gap) : address, gap < 0);
        int[] tail = gap >= 0 ? groups(address.substring(gap + 2), true) : new int[0];
        if (head == null || tail == null) {
            return null;
        }
        int given = head.length + tail.length;
        if (gap < 0 ? given != 8 : given > 7) {
            return null;
        }
        int[] out = new int[8];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(tail, 0, out, 8 - tail.length, tail.length);
        return out;
    }

    /** The groups of one side of "::" (empty text: none); the last may be a dotted IPv4 address
     * when {@code last} is this side's end of the address. */
    private static int[] groups(String text, boolean last) {
        if (text.isEmpty()) {
            return new int[0];
        }
        String[] parts = text.split(":", -1);
        int dotted = last && parts[parts.length - 1].contains(".") ? 1 : 0;
        int[] out = new int[parts.length + dotted];
        for (int i = 0; i < parts.length - dotted; i++) {
            if (!HEXTET.matcher(parts[i]).matches()) {
                return null;
            }
            out[i] = Integer.parseInt(parts[i], 16);
        }
        if (dotted == 1) {
            String v4 = parts[parts.length - 1];
            if (!isIpv4(v4)) {
                return null;
            }
            String[] b = v4.split("\\.");
            out[parts.length - 1] = Integer.parseInt(b[0]) << 8 | Integer.parseInt(b[1]);
            out[parts.length] = Integer.parseInt(b[2]) << 8 | Integer.parseInt(b[3]);
        }
        return out;
    }

    /** RFC 5952's text: lower-case hex without leading zeros, the longest run of two or more
     * zero groups (the first of equals) as "::". */
    static String compressed(int[] h) {
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && h[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(h[i]));
        }
        return out.toString();
    }
}

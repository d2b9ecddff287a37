package io.blocktarget.transport.iscsi;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The answer to SendTargets (RFC 7143 §13.3, Appendix C): for each target a TargetName followed by a
 * TargetAddress "host:port,tpgt" per portal. Keys repeat, so this is raw text, not a TextParameters.
 */
final class SendTargets {
    private SendTargets() {
    }

    /**
     * @param request   the SendTargets value: "All", a target name, or empty for the session's own target
     * @param discovery whether this is a discovery session (only there does "All" list every target)
     * @param own       the session's target name in a normal session
     */
    static byte[] answer(String request, boolean discovery, String own, Collection<String> targetNames,
                         List<String> portals, int portalGroupTag, InetSocketAddress local) {
        List<String> names = new ArrayList<>();
        if (discovery && request.equals("All")) {
            names.addAll(targetNames.stream().sorted().toList());
        } else if (request.isEmpty() || request.equals("All")) {
            if (own != null) {
                names.add(own);
            }
        } else if (targetNames.contains(request)) {
            names.add(request);
        }
        List<String> addresses = addresses(portals, local);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String name : names) {
            put(out, "TargetName=" + name);
            for (String address : addresses) {
                // a portal of its own group carries its tag (RFC 7143 §13.8); the others are in portalGroupTag's
                put(out, "TargetAddress=" + address + (address.indexOf(',') >= 0 ? "" : "," + portalGroupTag));
            }
        }
        return out.toByteArray();
    }

    /** The configured portals with a wildcard host replaced by the address the connection arrived on. */
    static List<String> addresses(List<String> portals, InetSocketAddress local) {
        String localHost = hostText(local.getAddress());
        if (portals.isEmpty()) {
            return List.of(localHost + ":" + local.getPort());
        }
        List<String> out = new ArrayList<>();
        for (String entry : portals) {
            int comma = entry.indexOf(',');
            String portal = comma < 0 ? entry : entry.substring(0, comma);
            String tag = comma < 0 ? "" : entry.substring(comma);
            int colon = portal.lastIndexOf(':');
            String host = portal.substring(0, colon);
            String port = portal.substring(colon + 1);
            boolean wildcard = host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isEmpty();
            out.add((wildcard ? localHost : host) + ":" + port + tag);
        }
        return out;
    }

    private static String hostText(InetAddress address) {
        String text = address.getHostAddress();
        int zone = text.indexOf('%');
        if (zone >= 0) {
            text = text.substring(0, zone);
        }
        return text.contains(":") ? "[" + text + "]" : text;
    }

    private static void put(ByteArrayOutputStream out, String pair) {
        out.writeBytes(pair.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }
}

package io.blocktarget.server;

import io.blocktarget.config.LunConfig;
import io.blocktarget.config.TlsMode;
import io.blocktarget.nvme.SecureChannel;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code access.tls} of the LUN files as the server applies it. One setting per NVM subsystem: the config refuses
 * LUN files of one subsystem that disagree (access.tls claim), so the first LUN of a subsystem speaks for all. The
 * NVMe/TCP port is shared by every subsystem, so a port has no TLS setting of its own: which subsystem a connection
 * is for is known only at Connect (or, over TLS, from the PSK identity), and that is where {@code required} is
 * enforced.
 */
final class NvmeTls {
    private NvmeTls() {
    }

    /** TREQ per subsystem NQN; subsystems without {@code access.tls} get {@link SecureChannel#NOT_SPECIFIED}. */
    static Map<String, SecureChannel> bySubsystem(List<LunConfig> luns) {
        Map<String, SecureChannel> channels = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            lun.nvme().ifPresent(e -> channels.putIfAbsent(e.subsystem(), channel(lun.access().tls().mode())));
        }
        return channels;
    }

    static SecureChannel channel(TlsMode mode) {
        return switch (mode) {
            case OFF -> SecureChannel.NOT_SPECIFIED;
            case ALLOWED -> SecureChannel.NOT_REQUIRED;
            case REQUIRED -> SecureChannel.REQUIRED;
        };
    }

    /**
     * Why {@code luns} cannot be served: a LUN with {@code tls: required | allowed} while this build has no TLS 1.3
     * engine for the NVMe/TCP listener (the JDK's TLS has no external PSKs, RFC 8446 §4.2.11, and Bouncy Castle's TLS
     * library, bctls-jdk18on, could not be added to the build). Advertising TLS in the discovery log and then
     * failing every handshake would be worse than refusing the configuration. Empty when no LUN asks for TLS.
     */
    static Optional<String> unavailable(List<LunConfig> luns) {
        return luns.stream().filter(l -> l.access().tls().mode() != TlsMode.OFF).findFirst().map(lun ->
                (lun.source() != null ? lun.source() + ": " : "LUN " + lun.name() + ": ") + "access.tls: tls: "
                        + lun.access().tls().mode().word() + " needs TLS 1.3 with a PSK on the NVMe/TCP listener,"
                        + " which this build does not have (Bouncy Castle's TLS library bctls-jdk18on is not in it);"
                        + " allowed: tls: off");
    }
}

package io.blocktarget.server;

import io.blocktarget.config.LunConfig;
import io.blocktarget.config.TlsMode;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.SecureChannel;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    /** The configured PSK per subsystem NQN ({@code access.tls-psk-file}); subsystems with tls: off are left out. */
    static Map<String, TlsPsk> pskBySubsystem(List<LunConfig> luns) {
        Map<String, TlsPsk> psks = new LinkedHashMap<>();
        for (LunConfig lun : luns) {
            lun.access().tls().psk().ifPresent(psk -> lun.nvme().ifPresent(e -> psks.putIfAbsent(e.subsystem(), psk)));
        }
        return psks;
    }
}

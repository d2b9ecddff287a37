package io.blocktarget.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * NVMe/TCP TLS 1.3 of a LUN's subsystem, from {@code access.tls} and {@code access.tls-psk-file}. TLS belongs to
 * the subsystem (the PSK identity names the subsystem NQN, NVMe/TCP Transport §3.6.1.3), so every LUN file of one
 * subsystem must say the same.
 *
 * @param mode    off, allowed or required
 * @param psk     the configured PSK; present exactly when {@code mode} is not off
 * @param pskFile the absolute file {@code psk} came from (empty when not from a file)
 */
public record TlsConfig(TlsMode mode, Optional<TlsPsk> psk, Optional<Path> pskFile) {
    /** No {@code access.tls}: plain NVMe/TCP. */
    public static final TlsConfig OFF = new TlsConfig(TlsMode.OFF, Optional.empty(), Optional.empty());

    public TlsConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(psk, "psk");
        Objects.requireNonNull(pskFile, "pskFile");
        if ((mode == TlsMode.OFF) != psk.isEmpty()) {
            throw new IllegalArgumentException("a PSK exactly when TLS is not off");
        }
    }

    /** What the subsystem checks: mode and key, not where the key came from. */
    TlsConfig credentials() {
        return new TlsConfig(mode, psk, Optional.empty());
    }

    @Override
    public String toString() {
        return "TlsConfig[mode=" + mode.word() + psk.map(p -> ", psk=***").orElse("")
                + pskFile.map(f -> ", pskFile=" + f).orElse("") + "]";
    }
}

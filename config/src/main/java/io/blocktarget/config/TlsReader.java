package io.blocktarget.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code access.tls} and {@code access.tls-psk-file} of a LUN file (issue 14): NVMe/TCP TLS 1.3 with a configured
 * PSK. The key is read from its file and never appears in a problem or warning.
 */
final class TlsReader {
    private TlsReader() {
    }

    /**
     * @param access    the {@code access:} map
     * @param nvme      whether the LUN is exported over NVMe/TCP (known only when {@code exportsOk})
     * @param exportsOk whether {@code export:} had no problem
     * @return {@link TlsConfig#OFF} without the keys; empty after a problem
     */
    static Optional<TlsConfig> read(YamlMap access, Path configDir, boolean nvme, boolean exportsOk,
                                    Problems problems, List<String> warnings) {
        Key<TlsMode> tls = LunKeys.TLS;
        Key<String> pskFile = LunKeys.TLS_PSK_FILE;
        if (!access.has(tls) && !access.has(pskFile)) {
            return Optional.of(TlsConfig.OFF);
        }
        int before = problems.count();
        Optional<TlsMode> mode = access.value(tls);
        if (mode.isEmpty()) {
            return Optional.empty();
        }
        if (exportsOk && !nvme) {
            Key<?> key = access.has(tls) ? tls : pskFile;
            problems.add(access.line(key), access.keyPath(key), "only allowed for a LUN exported over NVMe/TCP;"
                    + " this LUN has " + LunKeys.EXPORT.name() + "." + LunKeys.NVME.name() + ": false");
            return Optional.empty();
        }
        if (mode.get() == TlsMode.OFF) {
            if (access.has(pskFile)) {
                access.problem(pskFile, "given with " + tls.name() + ": off; allowed: " + pskFile.name()
                        + " together with " + tls.name() + ": required or " + tls.name() + ": allowed");
                return Optional.empty();
            }
            return Optional.of(TlsConfig.OFF);
        }
        if (!access.has(pskFile)) {
            access.problem(tls, tls.name() + ": " + mode.get().word() + " without " + pskFile.name() + "; allowed: "
                    + tls.name() + ": required or allowed together with " + pskFile.name() + ", " + TlsPsk.ALLOWED);
            return Optional.empty();
        }
        Optional<String> shown = access.value(pskFile);
        if (shown.isEmpty()) {
            return Optional.empty();
        }
        Path file = configDir.toAbsolutePath().resolve(shown.get()).normalize();
        Optional<TlsPsk> psk = psk(access, shown.get(), file, problems, warnings);
        if (psk.isEmpty() || problems.count() > before) {
            return Optional.empty();
        }
        return Optional.of(new TlsConfig(mode.get(), psk, Optional.of(file)));
    }

    private static Optional<TlsPsk> psk(YamlMap access, String shown, Path file, Problems problems,
                                        List<String> warnings) {
        Key<String> key = LunKeys.TLS_PSK_FILE;
        if (!Files.exists(file)) {
            access.problem(key, shown + " does not exist (" + file + "); allowed: " + TlsPsk.ALLOWED);
            return Optional.empty();
        }
        if (!Files.isRegularFile(file)) {
            access.problem(key, shown + " is not a regular file; allowed: " + TlsPsk.ALLOWED);
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            access.problem(key, shown + " cannot be read: " + YamlSource.describe(e) + "; allowed: " + TlsPsk.ALLOWED);
            return Optional.empty();
        }
        int length = bytes.length;
        if (length > 0 && bytes[length - 1] == '\n') {
            length--;
            if (length > 0 && bytes[length - 1] == '\r') {
                length--;
            }
        }
        try {
            TlsPsk psk = TlsPsk.parse(new String(bytes, 0, length, StandardCharsets.US_ASCII));
            AccessReader.worldReadable(file).ifPresent(mode -> warnings.add(problems.file() + ":"
                    + access.line(key) + ": " + access.keyPath(key) + ": " + file + " is readable by every user (mode "
                    + mode + "); chmod 600 it so that only the server's user can read the PSK"));
            return Optional.of(psk);
        } catch (IllegalArgumentException e) {
            access.problem(key, shown + " " + e.getMessage() + "; allowed: " + TlsPsk.ALLOWED);
            return Optional.empty();
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    /** How a claim names the setting in a conflict; never the key. */
    static String shown(TlsConfig tls) {
        String key = LunKeys.TLS.name();
        return tls.mode() == TlsMode.OFF ? key + ": off" : key + ": " + tls.mode().word() + " with a PSK";
    }
}

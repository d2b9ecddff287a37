package io.blocktarget.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * NVMe in-band authentication keys of a subsystem (NVMe Base 2.x §8.3.4 DH-HMAC-CHAP), from {@code access.dhchap}.
 * Both are in the representation {@code nvme gen-dhchap-key} writes ({@code DHHC-1:xx:base64(key || CRC-32):}) and
 * are never printed: {@link #toString()} names the files only.
 *
 * @param hostSecret     the key the host proves it knows (Linux {@code --dhchap-secret}); the same for every host
 *                       the subsystem admits
 * @param ctrlSecret     bidirectional authentication: the key the controller proves it knows (Linux
 *                       {@code --dhchap-ctrl-secret}); empty: the controller is not authenticated to the host
 * @param hostSecretFile the absolute file {@code hostSecret} came from (empty when not from a file)
 * @param ctrlSecretFile the same for {@code ctrlSecret}
 */
public record DhchapConfig(DhchapSecret hostSecret, Optional<DhchapSecret> ctrlSecret, Optional<Path> hostSecretFile,
                           Optional<Path> ctrlSecretFile) {
    public DhchapConfig {
        Objects.requireNonNull(hostSecret, "hostSecret");
        Objects.requireNonNull(ctrlSecret, "ctrlSecret");
        Objects.requireNonNull(hostSecretFile, "hostSecretFile");
        Objects.requireNonNull(ctrlSecretFile, "ctrlSecretFile");
    }

    /** Keys not read from files. */
    public DhchapConfig(DhchapSecret hostSecret, Optional<DhchapSecret> ctrlSecret) {
        this(hostSecret, ctrlSecret, Optional.empty(), Optional.empty());
    }

    /** What the controller checks: the keys, not where they came from. */
    DhchapConfig credentials() {
        return new DhchapConfig(hostSecret, ctrlSecret);
    }

    public boolean bidirectional() {
        return ctrlSecret.isPresent();
    }

    @Override
    public String toString() {
        return "DhchapConfig[hostSecret=***" + ctrlSecret.map(s -> ", ctrlSecret=***").orElse("")
                + hostSecretFile.map(f -> ", hostSecretFile=" + f).orElse("")
                + ctrlSecretFile.map(f -> ", ctrlSecretFile=" + f).orElse("") + "]";
    }
}

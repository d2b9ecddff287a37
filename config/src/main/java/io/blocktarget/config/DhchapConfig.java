package io.blocktarget.config;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * NVMe in-band authentication keys of a subsystem (NVMe Base 2.x §8.3.4 DH-HMAC-CHAP), from {@code access.dhchap}.
 * Keys are in the representation {@code nvme gen-dhchap-key} writes ({@code DHHC-1:xx:base64(key || CRC-32):}),
 * one for every host or one per host NQN, and are never printed: {@link #toString()} names the files only.
 *
 * @param host           the keys hosts prove they know (Linux {@code --dhchap-secret}), per host NQN
 * @param ctrl           bidirectional authentication: the keys the controller proves it knows to each host (Linux
 *                       {@code --dhchap-ctrl-secret}); empty: the controller is not authenticated to the host
 * @param hostSecretFile the absolute file {@code host} came from (empty when not from a file)
 * @param ctrlSecretFile the same for {@code ctrl}
 */
public record DhchapConfig(DhchapSecrets host, Optional<DhchapSecrets> ctrl, Optional<Path> hostSecretFile,
                           Optional<Path> ctrlSecretFile) {
    public DhchapConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(ctrl, "ctrl");
        Objects.requireNonNull(hostSecretFile, "hostSecretFile");
        Objects.requireNonNull(ctrlSecretFile, "ctrlSecretFile");
    }

    /** Keys not read from files. */
    public DhchapConfig(DhchapSecrets host, Optional<DhchapSecrets> ctrl) {
        this(host, ctrl, Optional.empty(), Optional.empty());
    }

    /** One key pair for every host, not read from files. */
    public DhchapConfig(DhchapSecret hostSecret, Optional<DhchapSecret> ctrlSecret) {
        this(DhchapSecrets.every(hostSecret), ctrlSecret.map(DhchapSecrets::every));
    }

    /** What the controller checks: the keys, not where they came from. */
    DhchapConfig credentials() {
        return new DhchapConfig(host, ctrl);
    }

    public boolean bidirectional() {
        return ctrl.isPresent();
    }

    /** The key {@code hostNqn} must prove; empty: that host has none and cannot authenticate. */
    public Optional<DhchapSecret> hostSecret(String hostNqn) {
        return host.forHost(hostNqn);
    }

    /** The key the controller proves to {@code hostNqn} when it asks (bidirectional); empty: none for that host. */
    public Optional<DhchapSecret> ctrlSecret(String hostNqn) {
        return ctrl.flatMap(c -> c.forHost(hostNqn));
    }

    /** Host NQNs either file names, in file order (host file first). */
    public Set<String> namedHosts() {
        Set<String> named = new LinkedHashSet<>(host.hosts().keySet());
        ctrl.ifPresent(c -> named.addAll(c.hosts().keySet()));
        return named;
    }

    @Override
    public String toString() {
        return "DhchapConfig[hostSecret=***" + ctrl.map(s -> ", ctrlSecret=***").orElse("")
                + hostSecretFile.map(f -> ", hostSecretFile=" + f).orElse("")
                + ctrlSecretFile.map(f -> ", ctrlSecretFile=" + f).orElse("") + "]";
    }
}

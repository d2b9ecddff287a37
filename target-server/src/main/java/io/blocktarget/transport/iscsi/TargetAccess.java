package io.blocktarget.transport.iscsi;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Who may log in to one iSCSI target and what its sessions negotiate from: set with the target
 * ({@link IscsiTransport#addTarget}) and changed as a whole ({@link IscsiTransport#access(String, TargetAccess)}).
 * Logins that start afterwards see the new values; sessions logged in keep what they negotiated.
 *
 * @param chap          CHAP credentials (RFC 7143 §12.1.3); empty: AuthMethod=None
 * @param initiators    InitiatorNames allowed to log in and to see the target in SendTargets; empty: any
 * @param sessionLimits the target's own session values; empty: the server's
 */
public record TargetAccess(Optional<Chap> chap, Set<String> initiators,
                           Optional<IscsiSettings.SessionLimits> sessionLimits) {
    /** No CHAP, any initiator, the server's session values. */
    public static final TargetAccess OPEN = new TargetAccess(Optional.empty(), Set.of(), Optional.empty());

    public TargetAccess {
        Objects.requireNonNull(chap, "chap");
        initiators = Set.copyOf(initiators);
        Objects.requireNonNull(sessionLimits, "sessionLimits");
    }
}

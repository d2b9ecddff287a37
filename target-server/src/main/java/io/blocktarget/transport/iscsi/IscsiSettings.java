package io.blocktarget.transport.iscsi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the iSCSI transport needs from the configuration.
 *
 * @param portalGroupTag           TargetPortalGroupTag (RFC 7143 §13.9), 1..65535
 * @param portals                  "host:port[,tpgt]" (a TargetAddress value, RFC 7143 §13.8) advertised by SendTargets,
 *                                 without a tag in {@code portalGroupTag}'s group; a wildcard host (0.0.0.0, ::) is
 *                                 replaced by the address the connection arrived on; empty: that address and its port
 * @param queueDepth               CmdSN window: MaxCmdSN = ExpCmdSN + queueDepth - 1 (§4.2.2.1)
 * @param maxRecvDataSegmentLength our MaxRecvDataSegmentLength (§13.12): the cap on every received data segment
 * @param maxBurstLength           our MaxBurstLength preference (§13.13)
 * @param firstBurstLength         our FirstBurstLength preference (§13.14)
 * @param maxOutstandingR2T        our MaxOutstandingR2T preference (§13.17)
 * @param maxTransferLength        the largest ExpectedDataTransferLength accepted for one command
 * @param nopInInterval            idle time after which the target pings with NOP-In (§11.19); zero disables
 * @param nopInTimeout             how long a ping may stay unanswered before the connection is dropped; zero: never
 *                                 dropped (the pings repeat every nopInInterval)
 * @param loginTimeout             how long a connection may stay in login
 * @param chap                     per-target CHAP credentials by target name; targets absent here use AuthMethod=None
 * @param initiators               per-target allowed InitiatorNames; targets absent here admit any initiator
 * @param discoveryChap            CHAP a discovery session must pass; empty: discovery uses AuthMethod=None
 * @param sessionLimits            per-target MaxRecvDataSegmentLength, bursts and queue depth (issue 11
 *                                 {@code session:} knobs) by target name; targets absent here use the values above
 */
public record IscsiSettings(int portalGroupTag, List<String> portals, int queueDepth, int maxRecvDataSegmentLength,
                            int maxBurstLength, int firstBurstLength, int maxOutstandingR2T, int maxTransferLength,
                            Duration nopInInterval, Duration nopInTimeout, Duration loginTimeout,
                            Map<String, Chap> chap, Map<String, Set<String>> initiators,
                            Optional<Chap> discoveryChap, Map<String, SessionLimits> sessionLimits) {
    /** The default MaxRecvDataSegmentLength: DESIGN §5 offers Linux at least 256 KiB. */
    public static final int MIN_MAX_RECV_DATA_SEGMENT_LENGTH = 256 * 1024;
    /** RFC 7143 §13.12 - §13.14: lengths are 512 .. 2^24 − 1. */
    static final int MIN_LENGTH = 512;
    private static final int MAX_24_BIT = 0xFF_FFFF;

    /**
     * What one target's sessions negotiate from (RFC 7143 §13.12 - §13.14) and the CmdSN window they get (§4.2.2.1).
     *
     * @param maxRecvDataSegmentLength the target's declared MaxRecvDataSegmentLength
     * @param maxBurstLength           the largest MaxBurstLength offered / accepted
     * @param firstBurstLength         the largest FirstBurstLength offered / accepted
     * @param queueDepth               MaxCmdSN − ExpCmdSN + 1
     */
    public record SessionLimits(int maxRecvDataSegmentLength, int maxBurstLength, int firstBurstLength,
                                int queueDepth) {
        public SessionLimits {
            check(maxRecvDataSegmentLength, MIN_LENGTH, MAX_24_BIT, "maxRecvDataSegmentLength");
            check(maxBurstLength, MIN_LENGTH, MAX_24_BIT, "maxBurstLength");
            check(firstBurstLength, MIN_LENGTH, maxBurstLength, "firstBurstLength");
            check(queueDepth, 1, 1 << 20, "queueDepth");
        }
    }

    public IscsiSettings {
        portals = List.copyOf(portals);
        chap = Map.copyOf(chap);
        Map<String, Set<String>> lists = new java.util.HashMap<>();
        initiators.forEach((target, names) -> lists.put(target, Set.copyOf(names)));
        initiators = Map.copyOf(lists);
        sessionLimits = Map.copyOf(sessionLimits);
        Objects.requireNonNull(discoveryChap, "discoveryChap");
        Objects.requireNonNull(nopInInterval, "nopInInterval");
        Objects.requireNonNull(nopInTimeout, "nopInTimeout");
        Objects.requireNonNull(loginTimeout, "loginTimeout");
        check(portalGroupTag, 1, 65535, "portalGroupTag");
        check(queueDepth, 1, 1 << 20, "queueDepth");
        check(maxRecvDataSegmentLength, MIN_LENGTH, MAX_24_BIT, "maxRecvDataSegmentLength");
        check(maxBurstLength, 512, MAX_24_BIT, "maxBurstLength");
        check(firstBurstLength, 512, maxBurstLength, "firstBurstLength");
        check(maxOutstandingR2T, 1, 65535, "maxOutstandingR2T");
        check(maxTransferLength, 512, Integer.MAX_VALUE, "maxTransferLength");
        if (nopInInterval.isNegative() || nopInTimeout.isNegative() || loginTimeout.isNegative() || loginTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        for (String portal : portals) {
            if (portal.lastIndexOf(':') <= 0) {
                throw new IllegalArgumentException("portal " + portal + " is not host:port");
            }
        }
    }

    /** Without per-target session limits. */
    public IscsiSettings(int portalGroupTag, List<String> portals, int queueDepth, int maxRecvDataSegmentLength,
                         int maxBurstLength, int firstBurstLength, int maxOutstandingR2T, int maxTransferLength,
                         Duration nopInInterval, Duration nopInTimeout, Duration loginTimeout,
                         Map<String, Chap> chap, Map<String, Set<String>> initiators, Optional<Chap> discoveryChap) {
        this(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength, firstBurstLength,
                maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout, chap, initiators,
                discoveryChap, Map.of());
    }

    /** Without initiator lists and with open discovery. */
    public IscsiSettings(int portalGroupTag, List<String> portals, int queueDepth, int maxRecvDataSegmentLength,
                         int maxBurstLength, int firstBurstLength, int maxOutstandingR2T, int maxTransferLength,
                         Duration nopInInterval, Duration nopInTimeout, Duration loginTimeout, Map<String, Chap> chap) {
        this(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength, firstBurstLength,
                maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout, chap, Map.of(),
                Optional.empty());
    }

    /**
     * Whether {@code initiatorName} may log in to {@code targetName} (and see it in SendTargets): RFC 7143 §11.13.5
     * status 0202 "the initiator is not allowed access to the given target" otherwise.
     */
    public boolean admits(String targetName, String initiatorName) {
        Set<String> allowed = initiators.get(targetName);
        return allowed == null || allowed.contains(initiatorName);
    }

    /** Linux-friendly defaults (DESIGN §5): 256 KiB segments, 1 MiB bursts, 16 MiB per command. */
    public static IscsiSettings defaults() {
        return new IscsiSettings(1, List.of(), 128, MIN_MAX_RECV_DATA_SEGMENT_LENGTH, 1024 * 1024, 256 * 1024, 4,
                16 * 1024 * 1024, Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(15), Map.of());
    }

    public IscsiSettings withPortals(List<String> newPortals) {
        return new IscsiSettings(portalGroupTag, newPortals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                chap, initiators, discoveryChap, sessionLimits);
    }

    /** The same settings for a connection that arrived on the portal of target portal group {@code tag}. */
    public IscsiSettings withPortalGroupTag(int tag) {
        return new IscsiSettings(tag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                chap, initiators, discoveryChap, sessionLimits);
    }

    public IscsiSettings withChap(Map<String, Chap> newChap) {
        return new IscsiSettings(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                newChap, initiators, discoveryChap, sessionLimits);
    }

    public IscsiSettings withInitiators(Map<String, Set<String>> newInitiators) {
        return new IscsiSettings(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                chap, newInitiators, discoveryChap, sessionLimits);
    }

    public IscsiSettings withDiscoveryChap(Optional<Chap> newDiscoveryChap) {
        return new IscsiSettings(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                chap, initiators, newDiscoveryChap, sessionLimits);
    }

    public IscsiSettings withBursts(int newMaxBurstLength, int newFirstBurstLength, int newMaxOutstandingR2T) {
        return new IscsiSettings(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, newMaxBurstLength,
                newFirstBurstLength, newMaxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout,
                loginTimeout, chap, initiators, discoveryChap, sessionLimits);
    }

    public IscsiSettings withNopIn(Duration interval, Duration timeout) {
        return new IscsiSettings(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, interval, timeout, loginTimeout,
                chap, initiators, discoveryChap, sessionLimits);
    }

    public IscsiSettings withQueueDepth(int depth) {
        return new IscsiSettings(portalGroupTag, portals, depth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                chap, initiators, discoveryChap, sessionLimits);
    }

    public IscsiSettings withSessionLimits(Map<String, SessionLimits> newSessionLimits) {
        return new IscsiSettings(portalGroupTag, portals, queueDepth, maxRecvDataSegmentLength, maxBurstLength,
                firstBurstLength, maxOutstandingR2T, maxTransferLength, nopInInterval, nopInTimeout, loginTimeout,
                chap, initiators, discoveryChap, newSessionLimits);
    }

    /** This target's session values ({@link #sessionLimits}); the server's when it has none of its own. */
    public SessionLimits sessionLimits(String targetName) {
        SessionLimits own = sessionLimits.get(targetName);
        return own != null ? own
                : new SessionLimits(maxRecvDataSegmentLength, maxBurstLength, firstBurstLength, queueDepth);
    }

    /** These settings with {@code targetName}'s session values in place of the server's. */
    IscsiSettings forTarget(String targetName) {
        SessionLimits own = sessionLimits.get(targetName);
        if (own == null) {
            return this;
        }
        return new IscsiSettings(portalGroupTag, portals, own.queueDepth(), own.maxRecvDataSegmentLength(),
                own.maxBurstLength(), own.firstBurstLength(), maxOutstandingR2T, maxTransferLength, nopInInterval,
                nopInTimeout, loginTimeout, chap, initiators, discoveryChap, sessionLimits);
    }

    private static void check(long value, long min, long max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " is outside " + min + ".." + max);
        }
    }
}

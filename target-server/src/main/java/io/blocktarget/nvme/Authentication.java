package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.Dhchap.Failure;

import java.lang.System.Logger.Level;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The controller side of DH-HMAC-CHAP on one queue (NVMe Base 2.2 §8.3.4.5): Negotiate → Challenge → Reply →
 * Success1 [→ Success2], every message carried by Authentication Send / Receive. Failures are answered in band with
 * AUTH_Failure1 and the reason code explanation of the spec; the commands themselves succeed (as nvmet does). A new
 * AUTH_Negotiate starts over at any time (re-authentication; the queue stays authenticated until one fails).
 *
 * <p>The queue is {@link #authenticated()} after a verified Reply (unidirectional) or after the host's Success2
 * (bidirectional). Diffie-Hellman work runs on the server's crypto threads ({@link NvmeSubsystems#crypto}), never on an event
 * loop.
 */
final class Authentication {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvme");
    /** Hashes and groups the controller can use, in no order of preference: the host's order decides. */
    private static final List<Integer> HASHES = List.of(DhchapCrypto.SHA256, DhchapCrypto.SHA384, DhchapCrypto.SHA512);
    /** S1 (Base §8.3.4.5.3): a counter started at a random value, never 0 (0 means "no sequence number"). */
    private static final AtomicInteger SEQUENCE = new AtomicInteger(ThreadLocalRandom.current().nextInt());

    /** What the controller expects next. */
    enum Step { NEGOTIATE, CHALLENGE, REPLY, SUCCESS1, SUCCESS2, FAILURE1, DONE }

    /** Whether the queue may carry other commands. */
    enum Status { UNAUTHENTICATED, AUTHENTICATED }

    /** The keys of the Connect's HOSTNQN; empty: the subsystem has none for it (every Reply fails). */
    private final Executor crypto;
    private final Optional<DhchapKeys.HostKeys> keys;
    private final String hostNqn;
    private final String subsystemNqn;
    private final String who;
    private Step step = Step.NEGOTIATE;
    private volatile Status status = Status.UNAUTHENTICATED;
    private Failure failure = Failure.FAILED;
    private int tid;
    private int hashId;
    private Optional<DhchapCrypto.DhGroup> group = Optional.empty();
    private KeyPair pair;
    private byte[] c1;
    private int s1;
    private byte[] sessionKey;
    private Optional<byte[]> c2 = Optional.empty();
    private int s2;

    /** @param crypto where the Diffie-Hellman work runs: ffdhe2048..8192 keys take 10..500 ms, off the event loops */
    Authentication(Optional<DhchapKeys.HostKeys> keys, String hostNqn, String subsystemNqn, String who,
                   Executor crypto) {
        this.crypto = java.util.Objects.requireNonNull(crypto, "crypto");
        this.keys = keys;
        this.hostNqn = hostNqn;
        this.subsystemNqn = subsystemNqn;
        this.who = who;
    }

    boolean authenticated() {
        return status == Status.AUTHENTICATED;
    }

    synchronized Step step() {
        return step;
    }

    /** Authentication Send with {@code message}; {@code done} runs once, on a crypto thread. */
    void send(byte[] message, Runnable done) {
        crypto.execute(() -> {
            try {
                received(message);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, who + ": DH-HMAC-CHAP failed", e);
                synchronized (this) {
                    fail(Failure.FAILED);
                }
            } finally {
                done.run();
            }
        });
    }

    /** Authentication Receive: the next message, in {@code allocation} bytes; empty when it does not fit. */
    void receive(int allocation, Consumer<Optional<byte[]>> done) {
        crypto.execute(() -> {
            Optional<byte[]> out;
            try {
                out = next(allocation);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, who + ": DH-HMAC-CHAP failed", e);
                synchronized (this) {
                    fail(Failure.FAILED);
                }
                out = next(allocation);
            }
            done.accept(out);
        });
    }

    private synchronized void received(byte[] m) {
        int type = Dhchap.type(m);
        int id = Dhchap.id(m);
        if (type == Dhchap.TYPE_COMMON && id == Dhchap.ID_NEGOTIATE) {
            negotiate(m);
            return;
        }
        if (type == Dhchap.TYPE_COMMON && id == Dhchap.ID_FAILURE2 && step == Step.SUCCESS2) {
            // The host did not accept our R2 (Base §8.3.4.5.7): the transaction ends unauthenticated.
            LOG.log(Level.INFO, who + ": host refused the controller's response (AUTH_Failure2)");
            status = Status.UNAUTHENTICATED;
            step = Step.DONE;
            return;
        }
        boolean expected = switch (step) {
            case REPLY -> type == Dhchap.TYPE_DHCHAP && id == Dhchap.ID_REPLY;
            case SUCCESS2 -> type == Dhchap.TYPE_DHCHAP && id == Dhchap.ID_SUCCESS2;
            default -> false;
        };
        if (!expected) {
            fail(Failure.INCORRECT_MESSAGE);
            return;
        }
        if (Dhchap.tid(m) != tid) {
            fail(Failure.INCORRECT_PAYLOAD);
            return;
        }
        if (step == Step.SUCCESS2) {
            status = Status.AUTHENTICATED;
            step = Step.DONE;
            LOG.log(Level.INFO, who + ": authenticated (bidirectional DH-HMAC-CHAP)");
            return;
        }
        try {
            reply(Dhchap.Reply.parse(m));
        } catch (Dhchap.Invalid e) {
            fail(e.failure());
        }
    }

    private void negotiate(byte[] m) {
        Dhchap.Negotiate n;
        try {
            n = Dhchap.Negotiate.parse(m);
        } catch (Dhchap.Invalid e) {
            tid = Dhchap.tid(m);
            fail(e.failure());
            return;
        }
        tid = n.tid();
        if (n.scC() != 0) {
            // Secure channel concatenation needs TLS, which this controller does not offer on this queue.
            fail(Failure.CONCAT_MISMATCH);
            return;
        }
        Optional<Integer> hash = n.hashIds().stream().filter(HASHES::contains).findFirst();
        if (hash.isEmpty()) {
            fail(Failure.HASH_UNUSABLE);
            return;
        }
        // A real group rather than null when the host offers one (Linux lists null first): the DH exponentials
        // make a stolen transcript useless without the secret (Base §8.3.4.5.1).
        Optional<Integer> dh = n.dhGroupIds().stream().filter(g -> DhchapCrypto.group(g).isPresent()).findFirst()
                .or(() -> n.dhGroupIds().stream().filter(g -> g == DhchapCrypto.DH_NULL).findFirst());
        if (dh.isEmpty()) {
            fail(Failure.DHGROUP_UNUSABLE);
            return;
        }
        hashId = hash.get();
        group = DhchapCrypto.group(dh.get());
        pair = null;
        sessionKey = null;
        c2 = Optional.empty();
        step = Step.CHALLENGE;
    }

    private void reply(Dhchap.Reply r) {
        int hl = DhchapCrypto.hashLength(hashId);
        if (r.r1().length != hl) {
            fail(Failure.INCORRECT_PAYLOAD);
            return;
        }
        byte[] challenge = c1;
        if (group.isPresent()) {
            if (r.dhValue().length != group.get().valueLength()) {
                fail(Failure.INCORRECT_PAYLOAD);
                return;
            }
            Optional<byte[]> key = group.get().sessionKey(pair, r.dhValue());
            if (key.isEmpty()) {
                fail(Failure.DHGROUP_UNUSABLE);
                return;
            }
            sessionKey = key.get();
            challenge = DhchapCrypto.augmentedChallenge(hashId, sessionKey, c1);
        } else if (r.dhValue().length != 0) {
            fail(Failure.INCORRECT_PAYLOAD);
            return;
        }
        if (keys.isEmpty()) {
            // No key for this HOSTNQN: refused exactly as a wrong key is (AUTH_Failure1, reason code 01h with the
            // explanation 01h "authentication failed", Base 2.2 Figure "AUTH_Failure1/2 Reason Code Explanation"),
            // after a full Challenge, so that a host cannot probe which NQNs have keys.
            LOG.log(Level.INFO, who + ": host " + hostNqn + " failed DH-HMAC-CHAP (no key for this host)");
            fail(Failure.FAILED);
            return;
        }
        byte[] expected = DhchapCrypto.hostResponse(hashId, DhchapCrypto.transformKey(keys.get().host(), hostNqn),
                challenge, s1, tid, hostNqn, subsystemNqn);
        if (!MessageDigest.isEqual(expected, r.r1())) {
            LOG.log(Level.INFO, who + ": host " + hostNqn + " failed DH-HMAC-CHAP (response does not verify)");
            fail(Failure.FAILED);
            return;
        }
        boolean bidirectional = r.cvalid() && r.seqnum() != 0;
        if (bidirectional && (keys.get().ctrl().isEmpty() || Arrays.equals(r.c2(), c1))) {
            // No controller key to answer with, or the host reflects our own challenge (Base §8.3.4.5.4).
            fail(Failure.FAILED);
            return;
        }
        if (bidirectional) {
            c2 = Optional.of(r.c2());
            s2 = r.seqnum();
        } else {
            status = Status.AUTHENTICATED;
            LOG.log(Level.INFO, who + ": authenticated (DH-HMAC-CHAP, hash " + hashId + ", DH group "
                    + group.map(DhchapCrypto.DhGroup::id).orElse(0) + ")");
        }
        step = Step.SUCCESS1;
    }

    private synchronized Optional<byte[]> next(int allocation) {
        byte[] message = switch (step) {
            case CHALLENGE -> challenge();
            case SUCCESS1 -> success1();
            case FAILURE1 -> failure1(failure);
            default -> failure1(Failure.INCORRECT_MESSAGE);
        };
        if (message.length > allocation) {
            return Optional.empty();
        }
        advance(message);
        return Optional.of(Arrays.copyOf(message, allocation));
    }

    /** The state after {@code message} went out. */
    private void advance(byte[] message) {
        switch (Dhchap.id(message)) {
            case Dhchap.ID_CHALLENGE -> step = Step.REPLY;
            case Dhchap.ID_SUCCESS1 -> step = c2.isPresent() ? Step.SUCCESS2 : Step.DONE;
            default -> {
                status = Status.UNAUTHENTICATED;
                step = Step.DONE;
            }
        }
    }

    private byte[] challenge() {
        int hl = DhchapCrypto.hashLength(hashId);
        c1 = DhchapCrypto.random(hl);
        s1 = nextSequence();
        byte[] value = new byte[0];
        if (group.isPresent()) {
            pair = group.get().generate();
            value = group.get().publicValue(pair);
        }
        return new Dhchap.Challenge(tid, hashId, s1, group.map(DhchapCrypto.DhGroup::id).orElse(0), c1, value)
                .encode();
    }

    private byte[] success1() {
        int hl = DhchapCrypto.hashLength(hashId);
        Optional<byte[]> r2 = c2.map(c -> {
            byte[] challenge = sessionKey == null ? c : DhchapCrypto.augmentedChallenge(hashId, sessionKey, c);
            DhchapKeys.Key ctrl = keys.orElseThrow().ctrl().orElseThrow();
            return DhchapCrypto.controllerResponse(hashId, DhchapCrypto.transformKey(ctrl, subsystemNqn), challenge,
                    s2, tid, subsystemNqn, hostNqn);
        });
        return new Dhchap.Success1(tid, hl, r2).encode();
    }

    private byte[] failure1(Failure why) {
        LOG.log(Level.INFO, who + ": DH-HMAC-CHAP failure " + why + " for host " + hostNqn);
        return new Dhchap.FailureMessage(Dhchap.ID_FAILURE1, tid, Dhchap.RESCODE_FAILED, why.code()).encode();
    }

    private void fail(Failure why) {
        failure = why;
        step = Step.FAILURE1;
    }

    private static int nextSequence() {
        int s;
        do {
            s = SEQUENCE.incrementAndGet();
        } while (s == 0);
        return s;
    }
}

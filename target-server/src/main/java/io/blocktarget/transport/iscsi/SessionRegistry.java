package io.blocktarget.transport.iscsi;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.IntFunction;

/**
 * All sessions of a transport, shared by every event loop: TSIH allocation (§11.12.6: non-zero, unique) and
 * lookup by the session key for reinstatement. The only state in the transport touched by several threads.
 */
final class SessionRegistry {
    private static final int MAX_TSIH = 0xFFFF;
    private final ConcurrentMap<Integer, IscsiSession> byTsih = new ConcurrentHashMap<>();
    private final ConcurrentMap<IscsiSession.Key, IscsiSession> byKey = new ConcurrentHashMap<>();
    private int nextTsih = 1;

    boolean exists(int tsih) {
        return byTsih.containsKey(tsih);
    }

    /**
     * Creates and registers a session under a fresh TSIH; returns it with the session it replaces (same key),
     * which the caller tears down. Empty when every TSIH is taken.
     */
    synchronized Optional<Registered> register(IscsiSession.Key key, IntFunction<IscsiSession> create) {
        for (int tries = 0; tries < MAX_TSIH; tries++) {
            int tsih = nextTsih;
            nextTsih = nextTsih == MAX_TSIH ? 1 : nextTsih + 1;
            if (!byTsih.containsKey(tsih)) {
                IscsiSession session = create.apply(tsih);
                byTsih.put(tsih, session);
                IscsiSession old = byKey.put(key, session);
                return Optional.of(new Registered(session, Optional.ofNullable(old)));
            }
        }
        return Optional.empty();
    }

    record Registered(IscsiSession session, Optional<IscsiSession> replaced) {
    }

    synchronized void remove(IscsiSession session) {
        byTsih.remove(session.tsih(), session);
        byKey.remove(session.key(), session);
    }

    Collection<IscsiSession> sessions() {
        return byTsih.values();
    }
}

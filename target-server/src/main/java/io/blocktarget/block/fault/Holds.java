package io.blocktarget.block.fault;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Commands held by a no-response rule. Each is released exactly once — by the initiator's abort or reset, a
 * controller reset, the connection closing, or the LUN going away — and then completes as its releaser decides
 * (aborted). Nothing is held forever once its owner is gone: the transports and command sets release by owner.
 */
public final class Holds {
    /**
     * One held command (identity: two holds are never equal).
     *
     * @param owner   who sent it (a SCSI I_T nexus, an NVMe queue): released together when it goes
     * @param key     what the initiator names it by (task tag, CID) or the task itself
     * @param release completes the command (as aborted); runs once
     */
    public static final class Held {
        private final Object owner;
        private final Object key;
        private final Runnable release;

        Held(Object owner, Object key, Runnable release) {
            this.owner = owner;
            this.key = key;
            this.release = release;
        }

        public Object owner() {
            return owner;
        }

        public Object key() {
            return key;
        }

        Runnable release() {
            return release;
        }
    }

    private final Set<Held> held = ConcurrentHashMap.newKeySet();

    public Held hold(Object owner, Object key, Runnable release) {
        Held h = new Held(owner, key, release);
        held.add(h);
        return h;
    }

    /** Releases every held command {@code which} selects; returns how many. */
    public int release(Predicate<Held> which) {
        int n = 0;
        for (Held h : held) {
            if (which.test(h) && held.remove(h)) {
                h.release().run();
                n++;
            }
        }
        return n;
    }

    /** Takes {@code h} back without releasing it (its command goes on as if never held); whether it was held. */
    public boolean discard(Held h) {
        return held.remove(h);
    }

    public int size() {
        return held.size();
    }
}

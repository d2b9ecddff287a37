package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.FeatureValue.AsyncEventConfiguration;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Asynchronous events of one controller (Base §5.2 "Asynchronous Event Request", §5.27.1.7 configuration):
 * up to AERL + 1 outstanding requests, events waiting for a request, and the Changed Namespace List. A
 * notice of one kind is reported once and then masked until the host reads its log page without RAE
 * (Base §5.2.1), so a burst of changes costs one completion. Completions run outside the monitor.
 */
final class AsyncEvents {
    /** AET 2h: Notice; AEI 00h Namespace Attribute Changed, F0h Discovery Log Page Change (Base Figure "AEI"). */
    static final int AET_NOTICE = 2;
    static final int AEI_NAMESPACE_ATTRIBUTE_CHANGED = 0x00;
    static final int AEI_DISCOVERY_LOG_CHANGE = 0xF0;
    /** AEI 03h: Asymmetric Namespace Access Change; log page 0Ch. */
    static final int AEI_ANA_CHANGE = 0x03;

    /** Whether a notice kind may be reported now or waits for its log page to be read. */
    private enum Notice { ARMED, REPORTED }

    /** An outstanding request: its CID, so the transport can retire one the host reused (see {@link #retire}). */
    private record Request(int cid, NvmeCompletion done) {
    }

    private final ArrayDeque<Request> outstanding = new ArrayDeque<>();
    private final ArrayDeque<Integer> pending = new ArrayDeque<>();
    private final TreeSet<Long> changedNamespaces = new TreeSet<>();
    private final int supported;
    private int configuration;
    private Notice namespaceNotice = Notice.ARMED;
    private Notice discoveryNotice = Notice.ARMED;
    private Notice anaNotice = Notice.ARMED;

    /** @param supported the OAES bits of this controller (which notices Async Event Configuration may enable) */
    AsyncEvents(int supported) {
        this.supported = supported;
    }

    /** CQE DW0 of an event: AET bits 2:0, AEI 15:8, associated log page 23:16. */
    static int dw0(int aet, int aei, int lid) {
        return aet | aei << 8 | lid << 16;
    }

    /** Queues an Asynchronous Event Request, or completes it at once with a waiting event; false when over AERL. */
    boolean request(int cid, NvmeCompletion done) {
        Integer event;
        synchronized (this) {
            if (outstanding.size() > ControllerConstants.AERL) {
                return false;
            }
            event = pending.poll();
            if (event == null) {
                outstanding.add(new Request(cid, done));
                return true;
            }
        }
        done.complete(NvmeStatus.SUCCESS, event, 0, null);
        return true;
    }

    synchronized int configuration() {
        return configuration;
    }

    /** Set Features Async Event Configuration: unsupported bits are ignored (kept 0), as Get reports them. */
    synchronized int configure(int bits) {
        configuration = bits & supported;
        return configuration;
    }

    /** The namespace {@code nsid} changed (attached, detached, resized): log it and notify when enabled. */
    void namespaceChanged(long nsid) {
        NvmeCompletion done;
        int event = dw0(AET_NOTICE, AEI_NAMESPACE_ATTRIBUTE_CHANGED, GetLogPageCommand.LID_CHANGED_NAMESPACE_LIST);
        synchronized (this) {
            changedNamespaces.add(nsid);
            if ((configuration & AsyncEventConfiguration.NAMESPACE_ATTRIBUTE_NOTICES) == 0
                    || namespaceNotice == Notice.REPORTED) {
                return;
            }
            namespaceNotice = Notice.REPORTED;
            done = post(event);
        }
        deliver(done, event);
    }

    /**
     * An ANA group's state changed for this controller: notify when enabled (Async Event Configuration bit 11), once
     * until the host reads the ANA log without RAE (Base 2.x §5.2.1, §8.1.1.2).
     */
    void anaChanged() {
        NvmeCompletion done;
        int event = dw0(AET_NOTICE, AEI_ANA_CHANGE, GetLogPageCommand.LID_ANA);
        synchronized (this) {
            if ((configuration & AsyncEventConfiguration.ANA_CHANGE_NOTICES) == 0 || anaNotice == Notice.REPORTED) {
                return;
            }
            anaNotice = Notice.REPORTED;
            done = post(event);
        }
        deliver(done, event);
    }

    /** The ANA log was read without RAE: the next change is reported again. */
    synchronized void anaLogRead(boolean rae) {
        if (!rae) {
            anaNotice = Notice.ARMED;
        }
    }

    /** The discovery log changed (discovery controllers): notify when enabled. */
    void discoveryLogChanged() {
        NvmeCompletion done;
        int event = dw0(AET_NOTICE, AEI_DISCOVERY_LOG_CHANGE, GetLogPageCommand.LID_DISCOVERY);
        synchronized (this) {
            if ((configuration & AsyncEventConfiguration.DISCOVERY_LOG_PAGE_CHANGE) == 0
                    || discoveryNotice == Notice.REPORTED) {
                return;
            }
            discoveryNotice = Notice.REPORTED;
            done = post(event);
        }
        deliver(done, event);
    }

    /**
     * An event that its own feature controls rather than Async Event Configuration (Reservation Log Page
     * Available, masked by Reservation Notification Mask): delivered to an outstanding request or queued.
     */
    void raise(int event) {
        NvmeCompletion done;
        synchronized (this) {
            done = post(event);
        }
        deliver(done, event);
    }

    private NvmeCompletion post(int event) {
        Request request = outstanding.poll();
        if (request == null) {
            pending.add(event);
            return null;
        }
        return request.done();
    }

    /** Forgets the outstanding request {@code cid} without completing it (the host reused its CID). */
    synchronized boolean retire(int cid) {
        return outstanding.removeIf(r -> r.cid() == cid);
    }

    /**
     * Abort (Base §5.1) of the outstanding request {@code cid}: it completes with Command Abort Requested.
     * False when no such request is outstanding.
     */
    boolean abort(int cid) {
        Request found = null;
        synchronized (this) {
            for (Request r : outstanding) {
                if (r.cid() == cid) {
                    found = r;
                    break;
                }
            }
            if (found == null) {
                return false;
            }
            outstanding.remove(found);
        }
        found.done().complete(NvmeStatus.ABORTED_BY_REQUEST, 0, 0, null);
        return true;
    }

    private static void deliver(NvmeCompletion done, int event) {
        if (done != null) {
            done.complete(NvmeStatus.SUCCESS, event, 0, null);
        }
    }

    /** The Changed Namespace List; without RAE it is cleared and the notice re-armed (Base §5.16.1.5). */
    synchronized List<Integer> readChangedNamespaces(boolean rae) {
        List<Integer> list = new ArrayList<>(changedNamespaces.size());
        changedNamespaces.forEach(nsid -> list.add((int) (long) nsid));
        if (!rae) {
            changedNamespaces.clear();
            namespaceNotice = Notice.ARMED;
        }
        return list;
    }

    /** The discovery log was read without RAE: the next change is reported again. */
    synchronized void discoveryLogRead(boolean rae) {
        if (!rae) {
            discoveryNotice = Notice.ARMED;
        }
    }

    /** The controller is going away: every outstanding request completes as aborted (Base §5.2). */
    void abortAll() {
        List<Request> all;
        synchronized (this) {
            all = new ArrayList<>(outstanding);
            outstanding.clear();
        }
        all.forEach(r -> r.done().complete(NvmeStatus.ABORTED_SQ_DELETION, 0, 0, null));
    }
}

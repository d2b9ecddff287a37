package io.blocktarget.nvme;

import io.blocktarget.block.Registrant;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ConnectResponse;
import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.ControllerRegister.Cc;
import io.blocktarget.protocol.nvme.ControllerRegister.Csts;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.Clock;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One controller of the dynamic model (Base §3.1.2.1): created by a Connect on an admin queue, owning its
 * I/O queues, properties (CC / CSTS), keep-alive timer, features and asynchronous events.
 *
 * <p>Threads: its queues run on different event loops, the keep-alive timer on the admin queue's event loop (the
 * server clock's timer thread when restarted elsewhere), and
 * file backends complete on workers. Everything that changes is guarded by this object's monitor except
 * {@link #state}, which is volatile so the I/O path reads it without locking. Connections are terminated and
 * completions run outside the monitor.
 *
 * <p>Keep-alive (Base §3.9): the timer is restarted by the Keep Alive command only — CTRATT does not claim
 * Traffic Based Keep Alive, so hosts send Keep Alive every KATO / 2 (Linux does) — and on expiry the
 * controller is torn down and every connection of it terminated.
 */
final class Controller {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvme");

    private final NvmeSubsystems target;
    private final Subsystem subsystem;
    private final int cntlid;
    private final String hostNqn;
    private final byte[] hostId;
    /** The host as a registrant of reservations: HOSTID of Connect (Base §5.27.1.25, fabrics). */
    private final Registrant.Host registrant;
    private final AsyncEvents events;
    private final Features features;
    private final NvmIo io;
    private final Aborts aborts;
    private final ErrorLog errors = new ErrorLog();
    private final ReservationCommands reservations;
    private final ControllerQueue[] queues = new ControllerQueue[ControllerConstants.MAX_IO_QUEUES + 1];
    private volatile ControllerState state = ControllerState.MACHINE.initial();
    /** CC.CSS of the enabled controller, read by the zoned I/O path without locking. */
    private volatile int css = ControllerConstants.CC_CSS_NVM;
    private final ChangedZones changedZones = new ChangedZones(this);
    private int cc;
    /** CSTS.CFS as register bits: set when the host enabled the controller with a configuration it cannot run. */
    private int fatalStatus;
    /**
     * The subsystem's limits when this controller was created (issue 11 {@code session:} knobs): MDTS, IOCCSZ, queue
     * count and size stay what the host read at connect even when the knobs change later.
     */
    private final NvmeLimits limits;
    private final int portId;
    /** I/O queues the host may connect: Set Features Number of Queues (NSQA + 1), all of them until it is sent. */
    private int grantedIoQueues;
    private long katoMillis;
    private NvmeHostConnection adminConnection;
    private Clock.Timer keepAliveTimer;
    private Object keepAliveGeneration;

    /**
     * @param portId the PORTID of the port the host connected to (the portal id, whose path states it sees); 0 for
     *               a connection that came in on no configured port (tests), which sees every path optimized
     */
    Controller(NvmeSubsystems target, Subsystem subsystem, int cntlid, ConnectData data, long katoMillis, int portId) {
        this.target = target;
        this.portId = portId;
        this.subsystem = subsystem;
        this.cntlid = cntlid;
        this.hostNqn = data.hostnqn();
        this.hostId = data.hostId();
        this.registrant = Registrant.Host.of(data.hostId());
        this.katoMillis = katoMillis;
        this.limits = target.limits().forSubsystem(subsystem.knobs());
        this.grantedIoQueues = limits.maxIoQueues();
        this.events = new AsyncEvents(oaes());
        this.features = new Features(this);
        this.io = new NvmIo(this);
        this.aborts = new Aborts(this);
        this.reservations = new ReservationCommands(this);
    }

    NvmeSubsystems target() {
        return target;
    }

    /** PORTID of the port this controller was connected through: its view of every ANA group. */
    int portId() {
        return portId;
    }

    /** MDTS, in-capsule data, I/O queue count and size of this controller (fixed at its creation). */
    NvmeLimits limits() {
        return limits;
    }

    Subsystem subsystem() {
        return subsystem;
    }

    int cntlid() {
        return cntlid;
    }

    String hostNqn() {
        return hostNqn;
    }

    /** The host this controller belongs to, as a reservation registrant. */
    Registrant.Host registrant() {
        return registrant;
    }

    AsyncEvents events() {
        return events;
    }

    Features features() {
        return features;
    }

    ReservationCommands reservations() {
        return reservations;
    }

    NvmIo io() {
        return io;
    }

    ErrorLog errors() {
        return errors;
    }

    /** The Changed Zone List log pages and their Zone Descriptor Changed notice (ZNS §5.3.1). */
    ChangedZones changedZones() {
        return changedZones;
    }

    /**
     * Whether the host enabled every I/O Command Set (CC.CSS = 110b): only then do zoned namespaces take the
     * Zoned Namespace commands; with CC.CSS = 000b (NVM only) they answer the NVM commands alone (as QEMU does).
     */
    boolean zonedCommandSetEnabled() {
        return css == ControllerConstants.CC_CSS_ALL_IO_COMMAND_SETS;
    }

    Aborts aborts() {
        return aborts;
    }

    /** The connected queue {@code qid}, or null (out of range or not connected). */
    synchronized ControllerQueue queue(int qid) {
        return qid >= 0 && qid < queues.length ? queues[qid] : null;
    }

    ControllerState state() {
        return state;
    }

    boolean isDiscovery() {
        return subsystem.kind() == Subsystem.Kind.DISCOVERY;
    }

    /** OAES: the notices this controller can send. */
    int oaes() {
        return isDiscovery() ? IdentifyController.OAES_DISCOVERY_LOG_CHANGE
                : IdentifyController.OAES_NAMESPACE_ATTRIBUTE | IdentifyController.OAES_ANA_CHANGE
                        | IdentifyController.OAES_ZONE_DESCRIPTOR_CHANGED;
    }

    /** Binds the admin queue (QID 0) and starts the keep-alive timer. */
    synchronized ControllerQueue attachAdmin(ConnectCommand command, NvmeHostConnection connection) {
        ControllerQueue admin = new ControllerQueue(this, 0, command.queueEntries(), command.sqFlowControlDisabled(),
                connection);
        queues[0] = admin;
        adminConnection = connection;
        restartKeepAlive();
        if (connection.logAdmitted()) {   // bounded per peer address by the transport
            LOG.log(Level.INFO, "NVMe controller {0}: created for host {1} from {2}, KATO {3} ms", this, hostNqn,
                    connection.peerAddress(), katoMillis);
        }
        return admin;
    }

    /**
     * Connect on an I/O queue (Base §6.3): the controller must be enabled, the host the same, the QID within
     * the granted number and not yet connected.
     */
    synchronized ConnectResult attachIo(ConnectCommand command, ConnectData data, NvmeHostConnection connection) {
        if (!hostNqn.equals(data.hostnqn()) || !Arrays.equals(hostId, data.hostId())) {
            return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                    ConnectResponse.invalidParameter(true, ConnectData.OFFSET_CNTLID));
        }
        if (state != ControllerState.ENABLED) {
            return ConnectResult.refused(NvmeStatus.COMMAND_SEQUENCE_ERROR, 0);
        }
        int qid = command.qid();
        if (isDiscovery() || qid > grantedIoQueues || queues[qid] != null) {
            return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                    ConnectResponse.invalidParameter(false, ConnectCommand.OFFSET_QID));
        }
        // CAP.MQES applies to the I/O submission queues a fabrics host creates (Base §3.1.4.1): SQSIZE is 0's based
        if (command.sqsize() >= limits.maxQueueEntries()) {
            return ConnectResult.refused(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                    ConnectResponse.invalidParameter(false, ConnectCommand.OFFSET_SQSIZE));
        }
        ControllerQueue queue = new ControllerQueue(this, qid, command.queueEntries(),
                command.sqFlowControlDisabled(), connection);
        queues[qid] = queue;
        // Every I/O queue authenticates too (Base 2.2 §8.3.4.2: authentication is per queue).
        return ConnectResult.accepted(queue, ConnectResponse.success(cntlid)
                | (queue.authenticationRequired() ? Dhchap.CONNECT_ATR : 0));
    }

    /** A queue's connection is gone: an I/O queue is freed, the admin queue takes the controller with it. */
    void queueClosed(ControllerQueue queue) {
        if (queue.qid() == 0) {
            tearDown("admin queue closed", queue);
            return;
        }
        synchronized (this) {
            if (queues[queue.qid()] == queue) {
                queues[queue.qid()] = null;
            }
        }
    }

    /** The connection of the admin queue (the discovery log reports its local address for wildcard ports). */
    synchronized NvmeHostConnection adminConnection() {
        return adminConnection;
    }

    synchronized int connectedIoQueues() {
        int n = 0;
        for (int qid = 1; qid < queues.length; qid++) {
            n += queues[qid] == null ? 0 : 1;
        }
        return n;
    }

    // ---- properties (Base §3.1.4) ----

    synchronized long property(ControllerRegister register) {
        return switch (register) {
            case CAP -> ControllerConstants.cap(limits.maxQueueEntries());
            case VS -> ControllerConstants.VERSION.encode();
            case CC -> Integer.toUnsignedLong(cc);
            case CSTS -> Integer.toUnsignedLong(new Csts(state == ControllerState.ENABLED, fatalStatus != 0,
                    state == ControllerState.SHUTDOWN ? Csts.SHST_COMPLETE : Csts.SHST_NORMAL).encode());
            case NSSR -> 0;
        };
    }

    /**
     * Property Set. CC drives the state: EN 0→1 enables (CSTS.RDY) when the configuration is one we run,
     * else CSTS.CFS; EN 1→0 resets; SHN ≠ 0 shuts down (CSTS.SHST = complete at once: every write is already
     * as durable as the backend makes it, and hosts flush before shutting down). CAP, VS, CSTS are read-only.
     */
    NvmeStatus setProperty(ControllerRegister register, long value) {
        if (register != ControllerRegister.CC) {
            return NvmeStatus.INVALID_FIELD;
        }
        NvmeStatus result = applyCc(value);
        if (state == ControllerState.CONNECTED) {
            io.faults().release(-1); // Base §3.7.2: a controller reset ends every outstanding command (held ones too)
        }
        return result;
    }

    private NvmeStatus applyCc(long value) {
        synchronized (this) {
            if (state == ControllerState.TORN_DOWN) {
                return NvmeStatus.COMMAND_SEQUENCE_ERROR; // torn down (keep-alive) while this command was on its way
            }
            Cc old = Cc.decode(cc);
            Cc neu = Cc.decode((int) value);
            cc = (int) value;
            if (neu.shn() != Cc.SHN_NONE && old.shn() == Cc.SHN_NONE) {
                transitionTo(ControllerState.SHUTDOWN, neu.shn() == Cc.SHN_NORMAL ? "normal shutdown" : "abrupt shutdown");
            } else if (neu.en() && !old.en()) {
                if (runnable(neu)) {
                    css = neu.css();
                    transitionTo(ControllerState.ENABLED, "CC.EN = 1");
                } else {
                    fatalStatus = 1;
                    LOG.log(Level.WARNING, "NVMe controller {0}: CC {1} not supported, CSTS.CFS set", this, neu);
                }
            } else if (!neu.en() && old.en()) {
                fatalStatus = 0;
                transitionTo(ControllerState.CONNECTED, "CC.EN = 0 (controller reset)");
            }
        }
        return NvmeStatus.SUCCESS;
    }

    /**
     * CC values this controller supports (Base §3.1.4.5): NVM command set alone or all I/O command sets (CAP.CSS bits
     * 0 and 6; 111b admin-only is not offered), 4 KiB pages, 64/16-byte entries.
     */
    private static boolean runnable(Cc cc) {
        return (cc.css() == ControllerConstants.CC_CSS_NVM || cc.css() == ControllerConstants.CC_CSS_ALL_IO_COMMAND_SETS)
                && cc.mps() == 0 && cc.ams() == 0 && cc.iosqes() == ControllerConstants.IOSQES
                && cc.iocqes() == ControllerConstants.IOCQES;
    }

    private void transitionTo(ControllerState next, String reason) {
        ControllerState current = state;
        if (current == next) {
            return;
        }
        state = ControllerState.MACHINE.transitionOf(this, current, next);
        NvmeHostConnection admin = adminConnection;
        if (admin == null || admin.logAdmitted()) {   // bounded per peer address by the transport
            LOG.log(Level.INFO, "NVMe controller {0}: {1} -> {2} ({3})", this, current, next, reason);
        }
    }

    // ---- features the controller itself owns ----

    /** Set Features Number of Queues (Base §5.27.1.5): only before any I/O queue exists; returns the grant. */
    synchronized int grantIoQueues(int requested) {
        grantedIoQueues = Math.min(requested, limits.maxIoQueues());
        return grantedIoQueues;
    }

    synchronized int grantedIoQueues() {
        return grantedIoQueues;
    }

    synchronized long katoMillis() {
        return katoMillis;
    }

    /** Set Features Keep Alive Timer: the new KATO (rounded up to KAS) takes effect now. */
    synchronized long setKato(long millis) {
        katoMillis = roundKato(millis);
        restartKeepAlive();
        return katoMillis;
    }

    /** KATO rounded up to the KAS granularity (Base §5.27.1.12). */
    static long roundKato(long millis) {
        return (millis + ControllerConstants.KAS_MILLIS - 1) / ControllerConstants.KAS_MILLIS
                * ControllerConstants.KAS_MILLIS;
    }

    /** The Keep Alive command (Base §5.24): restart the timer. */
    synchronized void keepAlive() {
        restartKeepAlive();
    }

    private void restartKeepAlive() {
        if (keepAliveTimer != null) {
            keepAliveTimer.cancel();
            keepAliveTimer = null;
        }
        if (katoMillis == 0 || state == ControllerState.TORN_DOWN) {
            keepAliveGeneration = null;
            return;
        }
        Object generation = new Object();
        keepAliveGeneration = generation;
        keepAliveTimer = target.clock().schedule(TimeUnit.MILLISECONDS.toNanos(katoMillis),
                () -> keepAliveExpired(generation));
    }

    private void keepAliveExpired(Object generation) {
        synchronized (this) {
            if (keepAliveGeneration != generation) {
                return; // restarted after this timer fired
            }
        }
        tearDown("keep-alive timeout (KATO " + katoMillis() + " ms) expired", null);
    }

    /**
     * Ends the controller for good: frees its CNTLID, aborts outstanding AERs and terminates the connection
     * of every queue except {@code cause} (whose connection is already gone).
     */
    void tearDown(String reason, ControllerQueue cause) {
        List<ControllerQueue> live = new ArrayList<>();
        synchronized (this) {
            if (state == ControllerState.TORN_DOWN) {
                return;
            }
            transitionTo(ControllerState.TORN_DOWN, reason);
            if (keepAliveTimer != null) {
                keepAliveTimer.cancel();
                keepAliveTimer = null;
            }
            keepAliveGeneration = null;
            for (int qid = 0; qid < queues.length; qid++) {
                if (queues[qid] != null && queues[qid] != cause) {
                    live.add(queues[qid]);
                }
                queues[qid] = null;
            }
        }
        subsystem.removeController(this);
        reservations.detach();
        events.abortAll();
        io.faults().release(-1);
        live.forEach(q -> q.terminate("NVMe controller " + this + ": " + reason));
    }

    /** The queues connected now, admin first; for the control plane's session list. */
    synchronized List<ControllerQueue> liveQueues() {
        List<ControllerQueue> live = new ArrayList<>();
        for (ControllerQueue q : queues) {
            if (q != null) {
                live.add(q);
            }
        }
        return live;
    }

    @Override
    public String toString() {
        return subsystem.nqn() + "#" + cntlid;
    }
}

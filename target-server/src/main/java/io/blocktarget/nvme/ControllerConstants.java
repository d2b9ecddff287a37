package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.ControllerRegister;

/**
 * Fixed capabilities of every controller of this target, in one place so CAP, Identify Controller and
 * the checks on Connect / Set Features agree. Values follow Linux nvmet where the spec leaves a choice.
 */
final class ControllerConstants {
    /** CAP.MQES + 1 and MAXCMD by default and at most (nvmet NVMET_QUEUE_SIZE); the admin queue's ceiling. */
    static final int MAX_QUEUE_ENTRIES = 1024;
    /** I/O queues a controller grants at most, by default (nvmet NVMET_NR_QUEUES); {@code session.io-queues}. */
    static final int MAX_IO_QUEUES = 128;
    /** Discovery log ASQSZ: admin queue entries a host should ask for (nvmet NVME_AQ_DEPTH). */
    static final int ADMIN_QUEUE_ENTRIES = 32;
    /** CAP.TO in 500 ms units: 7.5 s as nvmet; RDY follows EN at once anyway. */
    static final int CAP_TO = 15;
    /** CAP.MPSMIN = 0: 4 KiB memory pages, the unit of MDTS and WZSL. */
    static final int MPSMIN_BYTES = 4096;
    /** Identify KAS: keep-alive granularity in 100 ms units (Base §5.17.2.1); our timers have ms resolution. */
    static final int KAS = 1;
    static final long KAS_MILLIS = 100L * KAS;
    /**
     * KATO used when a host connects to the discovery controller with KATO 0: a non-persistent discovery
     * controller is still torn down if the host vanishes (Base 2.0 §3.9.4 allows a default of two minutes).
     */
    static final long DISCOVERY_DEFAULT_KATO_MILLIS = 120_000;
    /** AERL (0's based): four Asynchronous Event Requests may be outstanding. */
    static final int AERL = 3;
    /** ACL (0's based): four Abort commands. */
    static final int ACL = 3;
    /** Highest dynamically allocated CNTLID (Base §3.1.2: FFF0h..FFFFh are reserved). */
    static final int MAX_CNTLID = 0xFFEF;
    /**
     * VS = 2.0: the controller answers the NVMe 2.0 structures Linux uses from 2.0 on (I/O Command Set
     * Independent Identify Namespace, CNS 08h, with NSTAT; CNS 05h/06h with a CSI) and the Commands
     * Supported and Effects log; reporting 1.4 would make hosts skip CNS 08h but promise nothing more.
     */
    static final ControllerRegister.Vs VERSION = ControllerRegister.Vs.V2_0;
    static final String MODEL = "blocktarget";
    static final String FIRMWARE = "1.0";
    /** CC.IOSQES / IOCQES the controller accepts: 64-byte SQEs, 16-byte CQEs. */
    static final int IOSQES = 6;
    static final int IOCQES = 4;
    /** CC.CSS values (Base 2.0 §3.1.4.5): 000b NVM Command Set only, 110b every I/O Command Set CAP.CSS lists. */
    static final int CC_CSS_NVM = 0b000;
    static final int CC_CSS_ALL_IO_COMMAND_SETS = 0b110;

    private ControllerConstants() {
    }

    /**
     * CAP for every controller: MQES, CQR (contiguous queues required, as on fabrics), TO, MPSMIN 0, and CSS = NVM
     * plus "one or more I/O Command Sets" (bit 6): hosts then write CC.CSS = 110b and the Zoned Namespace Command
     * Set is enabled beside NVM (Base 2.0 §3.1.4.1; Linux nvme_enable_ctrl does so whenever bit 6 is set).
     *
     * @param queueEntries MQES + 1: the controller's {@code session.queue-size}
     */
    static long cap(int queueEntries) {
        return new ControllerRegister.Cap(queueEntries - 1, true, 0, CAP_TO, 0, false,
                ControllerRegister.Cap.CSS_NVM | ControllerRegister.Cap.CSS_IO_COMMAND_SETS, 0, 0).encode();
    }
}

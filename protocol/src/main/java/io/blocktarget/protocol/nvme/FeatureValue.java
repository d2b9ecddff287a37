package io.blocktarget.protocol.nvme;

/**
 * Per-feature values as carried in Set Features CDW11 and returned in Get Features CQE DW0 (Base §5.27.1.x).
 * {@link #encode()} gives that 32-bit value.
 */
public sealed interface FeatureValue {
    FeatureId fid();

    int encode();

    static Parsed<FeatureValue> decode(FeatureId fid, int v) {
        return switch (fid) {
            case ARBITRATION -> Parsed.ok(new Arbitration(v & 0x7, v >>> 8 & 0xFF, v >>> 16 & 0xFF, v >>> 24));
            case POWER_MANAGEMENT -> Parsed.ok(new PowerManagement(v & 0x1F, v >>> 5 & 0x7));
            case TEMPERATURE_THRESHOLD -> (v >>> 20 & 0x3) > 1
                    ? Parsed.invalid(NvmeStatus.INVALID_FIELD)
                    : Parsed.ok(new TemperatureThreshold(v & 0xFFFF, v >>> 16 & 0xF, v >>> 20 & 0x3));
            case VOLATILE_WRITE_CACHE -> Parsed.ok(new VolatileWriteCache((v & 1) != 0));
            case NUMBER_OF_QUEUES -> (v & 0xFFFF) == 0xFFFF || v >>> 16 == 0xFFFF
                    ? Parsed.invalid(NvmeStatus.INVALID_FIELD)
                    : Parsed.ok(new NumberOfQueues(v & 0xFFFF, v >>> 16));
            case INTERRUPT_COALESCING -> Parsed.ok(new InterruptCoalescing(v & 0xFF, v >>> 8 & 0xFF));
            case ASYNC_EVENT_CONFIGURATION -> Parsed.ok(new AsyncEventConfiguration(v));
            case KEEP_ALIVE_TIMER -> Parsed.ok(new KeepAliveTimer(Integer.toUnsignedLong(v)));
            case IO_COMMAND_SET_PROFILE -> Parsed.ok(new IoCommandSetProfile(v & 0x1FF));
            default -> Parsed.invalid(NvmeStatus.INVALID_FIELD);
        };
    }

    /** Arbitration (01h): AB bits 2:0, LPW 15:8, MPW 23:16, HPW 31:24. */
    record Arbitration(int ab, int lpw, int mpw, int hpw) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.ARBITRATION;
        }

        public int encode() {
            return ab & 0x7 | (lpw & 0xFF) << 8 | (mpw & 0xFF) << 16 | hpw << 24;
        }
    }

    /** Power Management (02h): PS bits 4:0, WH 7:5. */
    record PowerManagement(int ps, int wh) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.POWER_MANAGEMENT;
        }

        public int encode() {
            return ps & 0x1F | (wh & 0x7) << 5;
        }
    }

    /** Temperature Threshold (04h): TMPTH bits 15:0 (Kelvin), TMPSEL 19:16, THSEL 21:20 (0 over, 1 under). */
    record TemperatureThreshold(int tmpth, int tmpsel, int thsel) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.TEMPERATURE_THRESHOLD;
        }

        public int encode() {
            return tmpth & 0xFFFF | (tmpsel & 0xF) << 16 | (thsel & 0x3) << 20;
        }
    }

    /** Volatile Write Cache (06h): WCE bit 0. */
    record VolatileWriteCache(boolean wce) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.VOLATILE_WRITE_CACHE;
        }

        public int encode() {
            return wce ? 1 : 0;
        }
    }

    /**
     * Number of Queues (07h): NSQR bits 15:0, NCQR 31:16, both 0's based. The completion returns NSQA/NCQA in
     * the same layout.
     */
    record NumberOfQueues(int nsqr, int ncqr) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.NUMBER_OF_QUEUES;
        }

        public int encode() {
            return nsqr & 0xFFFF | ncqr << 16;
        }

        /** The allocation: requests capped to {@code maxIoQueues} (a count, not 0's based). */
        public NumberOfQueues allocate(int maxIoQueues) {
            return new NumberOfQueues(Math.min(nsqr, maxIoQueues - 1), Math.min(ncqr, maxIoQueues - 1));
        }
    }

    /** Interrupt Coalescing (08h): THR bits 7:0, TIME 15:8. */
    record InterruptCoalescing(int thr, int time) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.INTERRUPT_COALESCING;
        }

        public int encode() {
            return thr & 0xFF | (time & 0xFF) << 8;
        }
    }

    /** Asynchronous Event Configuration (0Bh): bit 8 Namespace Attribute Notices, bit 31 Discovery Log Change. */
    record AsyncEventConfiguration(int bits) implements FeatureValue {
        public static final int NAMESPACE_ATTRIBUTE_NOTICES = 1 << 8;
        /** Bit 11: Asymmetric Namespace Access Change Notices. */
        public static final int ANA_CHANGE_NOTICES = 1 << 11;
        public static final int DISCOVERY_LOG_PAGE_CHANGE = 1 << 31;

        public FeatureId fid() {
            return FeatureId.ASYNC_EVENT_CONFIGURATION;
        }

        public int encode() {
            return bits;
        }
    }

    /** Keep Alive Timer (0Fh): KATO in milliseconds. */
    /** I/O Command Set Profile (19h, Base 2.0 §5.27.1.21): IOCSCI bits 8:0, an index into Identify CNS 1Ch. */
    record IoCommandSetProfile(int iocsci) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.IO_COMMAND_SET_PROFILE;
        }

        public int encode() {
            return iocsci & 0x1FF;
        }
    }

    record KeepAliveTimer(long katoMillis) implements FeatureValue {
        public FeatureId fid() {
            return FeatureId.KEEP_ALIVE_TIMER;
        }

        public int encode() {
            return (int) katoMillis;
        }
    }
}

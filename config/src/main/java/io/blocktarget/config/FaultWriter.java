package io.blocktarget.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A fault rule as the map of its {@code faults:} entry (and of the control API's JSON): the inverse of the reader. */
public final class FaultWriter {
    private FaultWriter() {
    }

    /** The keys of the rule, defaults left out; values are strings, numbers and lists. */
    public static Map<String, Object> document(FaultRuleConfig r) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put(FaultKeys.ID.name(), r.id());
        if (!r.ops().isEmpty()) {
            doc.put(FaultKeys.OPS.name(), List.copyOf(r.ops()));
        }
        if (r.hasLbaRange()) {
            doc.put(FaultKeys.LBA.name(), r.firstLba() == r.lastLba() ? Long.toString(r.firstLba())
                    : r.firstLba() + "-" + r.lastLba());
        }
        if (!r.scsiOpcodes().isEmpty()) {
            doc.put(FaultKeys.SCSI_OPCODES.name(), r.scsiOpcodes().stream().map(o -> String.format("0x%02x", o))
                    .toList());
        }
        if (!r.nvmeOpcodes().isEmpty()) {
            doc.put(FaultKeys.NVME_OPCODES.name(), r.nvmeOpcodes().stream().map(o -> String.format("0x%02x", o))
                    .toList());
        }
        if (!r.queries().isEmpty()) {
            doc.put(FaultKeys.QUERIES.name(), List.copyOf(r.queries()));
        }
        r.initiator().ifPresent(i -> doc.put(FaultKeys.INITIATOR.name(), i));
        r.queue().ifPresent(q -> doc.put(FaultKeys.QUEUE.name(), q));
        r.portal().ifPresent(p -> doc.put(FaultKeys.PORTAL.name(), p));
        if (r.trigger() != FaultRuleConfig.Trigger.ALWAYS) {
            doc.put(FaultKeys.TRIGGER.name(), r.trigger().configName());
        }
        switch (r.trigger()) {
            case FIRST, EVERY -> doc.put(FaultKeys.COUNT.name(), r.count());
            case PROBABILITY -> {
                doc.put(FaultKeys.PROBABILITY.name(), r.probability());
                doc.put(FaultKeys.SEED.name(), r.seed());
            }
            case AFTER -> doc.put(FaultKeys.AFTER.name(), FaultReader.formatDuration(r.afterNanos()));
            default -> {
            }
        }
        doc.put(FaultKeys.ACTION.name(), r.action().configName());
        r.sense().ifPresent(s -> doc.put(FaultKeys.SENSE.name(), s.toString()));
        r.nvmeStatus().ifPresent(s -> {
            doc.put(FaultKeys.NVME_STATUS.name(), s.toString());
            s.dnr().ifPresent(dnr -> doc.put(FaultKeys.NVME_DNR.name(), dnr));
            if (s.crd() != 0) {
                doc.put(FaultKeys.NVME_CRD.name(), s.crd());
            }
            if (s.more()) {
                doc.put(FaultKeys.NVME_MORE.name(), true);
            }
        });
        if (r.action() == FaultRuleConfig.Action.DELAY) {
            doc.put(FaultKeys.DELAY.name(), FaultReader.formatDuration(r.delayNanos()));
            if (r.jitterNanos() != 0) {
                doc.put(FaultKeys.JITTER.name(), FaultReader.formatDuration(r.jitterNanos()));
            }
            if (r.trigger() != FaultRuleConfig.Trigger.PROBABILITY && r.seed() != 0) {
                doc.put(FaultKeys.SEED.name(), r.seed());
            }
        }
        if (r.iops() != 0) {
            doc.put(FaultKeys.IOPS.name(), r.iops());
        }
        if (r.bandwidth() != 0) {
            String exact = Sizes.exact(r.bandwidth());
            doc.put(FaultKeys.BANDWIDTH.name(), exact.equals(Long.toString(r.bandwidth())) ? (Object) r.bandwidth()
                    : exact);
        }
        if (r.action() == FaultRuleConfig.Action.TORN_WRITE && r.persistBlocks() != 0) {
            doc.put(FaultKeys.PERSIST_BLOCKS.name(), r.persistBlocks());
        }
        FaultRuleConfig.Transport t = r.transport();
        switch (r.action()) {
            case PARTIAL_TRANSFER -> {
                if (t.transferBlocks() != 0) {
                    doc.put(FaultKeys.TRANSFER_BLOCKS.name(), t.transferBlocks());
                }
                if (t.partialStatus() != FaultRuleConfig.PartialStatus.GOOD) {
                    doc.put(FaultKeys.SCSI_STATUS.name(), t.partialStatus().configName());
                }
            }
            case STALL_CONNECTION -> {
                if (t.stallNanos() != 0) {
                    doc.put(FaultKeys.STALL.name(), FaultReader.formatDuration(t.stallNanos()));
                }
                if (t.stallDirection() != FaultRuleConfig.StallDirection.BOTH) {
                    doc.put(FaultKeys.STALL_DIRECTION.name(), t.stallDirection().configName());
                }
            }
            case CORRUPT_DIGEST -> doc.put(FaultKeys.DIGEST.name(), t.digest().configName());
            case ASYNC_LOGOUT -> {
                if (t.logoutSeconds() != FaultRuleConfig.DEFAULT_LOGOUT_SECONDS) {
                    doc.put(FaultKeys.LOGOUT_WITHIN.name(), t.logoutSeconds());
                }
            }
            default -> {
            }
        }
        return doc;
    }
}

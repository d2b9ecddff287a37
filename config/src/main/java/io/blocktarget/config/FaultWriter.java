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
        doc.put("id", r.id());
        if (!r.ops().isEmpty()) {
            doc.put("ops", List.copyOf(r.ops()));
        }
        if (r.hasLbaRange()) {
            doc.put("lba", r.firstLba() == r.lastLba() ? Long.toString(r.firstLba()) : r.firstLba() + "-" + r.lastLba());
        }
        if (!r.scsiOpcodes().isEmpty()) {
            doc.put("scsi-opcodes", r.scsiOpcodes().stream().map(o -> String.format("0x%02x", o)).toList());
        }
        if (!r.nvmeOpcodes().isEmpty()) {
            doc.put("nvme-opcodes", r.nvmeOpcodes().stream().map(o -> String.format("0x%02x", o)).toList());
        }
        r.initiator().ifPresent(i -> doc.put("initiator", i));
        r.queue().ifPresent(q -> doc.put("queue", q));
        if (r.trigger() != FaultRuleConfig.Trigger.ALWAYS) {
            doc.put("trigger", r.trigger().configName());
        }
        switch (r.trigger()) {
            case FIRST, EVERY -> doc.put("count", r.count());
            case PROBABILITY -> {
                doc.put("probability", r.probability());
                doc.put("seed", r.seed());
            }
            case AFTER -> doc.put("after", FaultReader.formatDuration(r.afterNanos()));
            default -> {
            }
        }
        doc.put("action", r.action().configName());
        r.sense().ifPresent(s -> doc.put("sense", s.toString()));
        r.nvmeStatus().ifPresent(s -> {
            doc.put("nvme-status", s.toString());
            s.dnr().ifPresent(dnr -> doc.put("nvme-dnr", dnr));
            if (s.crd() != 0) {
                doc.put("nvme-crd", s.crd());
            }
            if (s.more()) {
                doc.put("nvme-more", true);
            }
        });
        if (r.action() == FaultRuleConfig.Action.DELAY) {
            doc.put("delay", FaultReader.formatDuration(r.delayNanos()));
            if (r.jitterNanos() != 0) {
                doc.put("jitter", FaultReader.formatDuration(r.jitterNanos()));
            }
            if (r.trigger() != FaultRuleConfig.Trigger.PROBABILITY && r.seed() != 0) {
                doc.put("seed", r.seed());
            }
        }
        if (r.iops() != 0) {
            doc.put("iops", r.iops());
        }
        if (r.bandwidth() != 0) {
            String exact = Sizes.exact(r.bandwidth());
            doc.put("bandwidth", exact.equals(Long.toString(r.bandwidth())) ? (Object) r.bandwidth() : exact);
        }
        if (r.action() == FaultRuleConfig.Action.TORN_WRITE && r.persistBlocks() != 0) {
            doc.put("persist-blocks", r.persistBlocks());
        }
        FaultRuleConfig.Transport t = r.transport();
        switch (r.action()) {
            case PARTIAL_TRANSFER -> {
                if (t.transferBlocks() != 0) {
                    doc.put("transfer-blocks", t.transferBlocks());
                }
                if (t.partialStatus() != FaultRuleConfig.PartialStatus.GOOD) {
                    doc.put("scsi-status", t.partialStatus().configName());
                }
            }
            case STALL_CONNECTION -> {
                if (t.stallNanos() != 0) {
                    doc.put("stall", FaultReader.formatDuration(t.stallNanos()));
                }
                if (t.stallDirection() != FaultRuleConfig.StallDirection.BOTH) {
                    doc.put("stall-direction", t.stallDirection().configName());
                }
            }
            case CORRUPT_DIGEST -> doc.put("digest", t.digest().configName());
            case ASYNC_LOGOUT -> {
                if (t.logoutSeconds() != FaultRuleConfig.DEFAULT_LOGOUT_SECONDS) {
                    doc.put("logout-within", t.logoutSeconds());
                }
            }
            default -> {
            }
        }
        return doc;
    }
}

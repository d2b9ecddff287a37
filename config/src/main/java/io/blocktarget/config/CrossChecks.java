package io.blocktarget.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rules that span files: unique export addresses, one access setting per shared target or subsystem, and warnings
 * about the whole set of LUNs.
 */
final class CrossChecks {
    private CrossChecks() {
    }

    /**
     * Two LUN files claiming one (target, LUN) or (subsystem, NSID): the later file (in name order) gets the problem,
     * naming the earlier one.
     */
    static List<ConfigProblem> duplicates(List<ExportClaim> claims) {
        Map<String, ExportClaim> first = new HashMap<>();
        List<ConfigProblem> problems = new ArrayList<>();
        for (ExportClaim claim : claims) {
            ExportClaim earlier = first.putIfAbsent(claim.address(), claim);
            if (earlier != null) {
                String where = earlier.line() > 0 ? earlier.file() + ":" + earlier.line() : earlier.file().toString();
                problems.add(new ConfigProblem(claim.file(), claim.line(), claim.key(),
                        claim.address() + " is also exported by " + where
                                + "; allowed: each target and LUN, and each subsystem and NSID, in one LUN file only"));
            }
        }
        return problems;
    }

    /**
     * Two LUN files exporting one iSCSI target with different {@code access.chap}, or one NVMe subsystem with
     * different {@code access.hosts}: the later file (in name order) gets the problem, naming the earlier one.
     * Only what the claims show is printed, never a secret.
     */
    static List<ConfigProblem> accessConflicts(List<AccessClaim> claims) {
        Map<String, AccessClaim> first = new HashMap<>();
        List<ConfigProblem> problems = new ArrayList<>();
        for (AccessClaim claim : claims) {
            AccessClaim earlier = first.putIfAbsent(claim.key() + " " + claim.address(), claim);
            if (earlier != null && !earlier.value().equals(claim.value())) {
                String mine = claim.shown().equals(earlier.shown()) ? claim.shown() + " with other secrets" : claim.shown();
                String unit = claim.address().startsWith("iSCSI") ? "target" : "subsystem";
                problems.add(new ConfigProblem(claim.file(), claim.line(), claim.key(), "this file has " + mine
                        + " but " + earlier.where() + " has " + earlier.shown() + " for the same " + claim.address()
                        + "; allowed: the same " + claim.key() + " in every LUN file exporting one " + unit
                        + ", or none in all of them"));
            }
        }
        return problems;
    }

    /** Things that are legal but likely not what the operator meant. */
    static List<String> warnings(ServerConfig server, List<LunConfig> luns) {
        List<String> warnings = new ArrayList<>();
        long ramTotal = 0;
        for (LunConfig lun : luns) {
            if (lun.backend() == BackendKind.RAM) {
                ramTotal = saturatedAdd(ramTotal, lun.size());
            }
            if (lun.iscsi().isEmpty() && lun.nvme().isEmpty()) {
                warnings.add(where(lun) + "LUN " + lun.name() + " is exported neither over iSCSI nor over NVMe/TCP");
            }
        }
        // RAM disks are thin like brd: chunks are allocated on first write, so over-commit is legal (DESIGN.md §1).
        if (ramTotal > server.memoryBudget()) {
            warnings.add("RAM disks declare " + Sizes.format(ramTotal) + " in total, more than the memory budget of "
                    + Sizes.format(server.memoryBudget()) + "; writes beyond the budget will fail with out-of-space");
        }
        return warnings;
    }

    private static String where(LunConfig lun) {
        return lun.source() == null ? "" : lun.source() + ": ";
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}

package io.blocktarget.cli;

import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.IscsiExport;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.NvmeExport;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The LUN table printed by {@code serve} and {@code check}: one row per LUN, columns aligned. */
final class LunTable {
    private static final String[] HEADER = {
        "LUN", "BACKEND", "SIZE", "LOGICAL", "PHYSICAL", "ISCSI TARGET", "LUN#", "NVME SUBSYSTEM", "NSID", "FLAGS"
    };

    private LunTable() {
    }

    static void print(BlocktargetConfig config, PrintWriter out) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (LunConfig lun : config.luns()) {
            rows.add(row(lun));
        }
        int[] widths = new int[HEADER.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                sb.append(row[i]);
                if (i < row.length - 1) {
                    sb.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.println(sb.toString().stripTrailing());
        }
    }

    private static String[] row(LunConfig lun) {
        String target = lun.iscsi().map(IscsiExport::target).orElse("-");
        String lunNumber = lun.iscsi().map(e -> Integer.toString(e.lun())).orElse("-");
        String subsystem = lun.nvme().map(NvmeExport::subsystem).orElse("-");
        String nsid = lun.nvme().map(e -> Long.toString(e.nsid())).orElse("-");
        List<String> flags = new ArrayList<>();
        if (lun.readOnly()) {
            flags.add("read-only");
        }
        lun.access().chap().ifPresent(c -> flags.add(c.mutual() ? "mutual-chap" : "chap"));
        if (!lun.access().hosts().isEmpty()) {
            flags.add("hosts=" + lun.access().hosts().size());
        }
        if (!lun.access().initiators().isEmpty()) {
            flags.add("initiators=" + lun.access().initiators().size());
        }
        lun.access().dhchap().ifPresent(d -> flags.add(d.bidirectional() ? "dhchap-bidi" : "dhchap"));
        if (lun.access().tls().mode() != io.blocktarget.config.TlsMode.OFF) {
            flags.add("tls-" + lun.access().tls().mode().word());
        }
        lun.file().ifPresent(f -> {
            flags.add("path=" + f.path());
            if (f.directIo()) {
                flags.add("direct-io");
            }
        });
        return new String[] {
            lun.name(),
            lun.backend().configName(),
            ConfigLoader.formatSize(lun.size()),
            Integer.toString(lun.logicalBlockSize()),
            Integer.toString(lun.physicalBlockSize()),
            target,
            lunNumber,
            subsystem,
            nsid,
            flags.isEmpty() ? "" : String.join(",", flags)
        };
    }
}

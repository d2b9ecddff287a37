package io.blocktarget.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

/**
 * A validated LUN as the document of its {@code luns.d/NAME.yaml} file: the inverse of the reader. Reading what it
 * writes (in the same config directory, with the same server settings) yields an equal {@link LunConfig}; the tests
 * pin that round trip. Defaults are left out (a derived export, read-only false), so a written file stays as short
 * as one written by hand; file paths are written absolute.
 */
public final class LunWriter {
    private LunWriter() {
    }

    /**
     * The keys of the LUN file (without the name, which is the file's), in the order of the README's table; values
     * are strings, numbers, booleans, lists and maps — what YAML and JSON share.
     */
    public static Map<String, Object> document(LunConfig lun, ServerConfig server) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("backend", lun.backend().configName());
        doc.put("size", size(lun.size()));
        doc.put("logical-block-size", size(lun.logicalBlockSize()));
        doc.put("physical-block-size", size(lun.physicalBlockSize()));
        if (lun.readOnly()) {
            doc.put("read-only", true);
        }
        lun.file().ifPresent(file -> {
            doc.put("path", file.path().toString());
            if (file.create()) {
                doc.put("create", true);
            }
            if (file.directIo()) {
                doc.put("direct-io", true);
            }
        });
        Map<String, Object> export = new LinkedHashMap<>();
        if (lun.iscsi().isEmpty()) {
            export.put("iscsi", false);
        } else {
            IscsiExport iscsi = lun.iscsi().get();
            if (!iscsi.target().equals(server.iqnPrefix() + lun.name()) || iscsi.lun() != 0) {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put("target", iscsi.target());
                map.put("lun", iscsi.lun());
                export.put("iscsi", map);
            }
        }
        if (lun.nvme().isEmpty()) {
            export.put("nvme", false);
        } else {
            NvmeExport nvme = lun.nvme().get();
            if (!nvme.subsystem().equals(server.nqnPrefix() + lun.name()) || nvme.nsid() != 1 || nvme.uuid().isPresent()) {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put("subsystem", nvme.subsystem());
                map.put("nsid", nvme.nsid());
                nvme.uuid().ifPresent(uuid -> map.put("uuid", uuid.toString()));
                export.put("nvme", map);
            }
        }
        if (!export.isEmpty()) {
            doc.put("export", export);
        }
        Map<String, Object> access = new LinkedHashMap<>();
        lun.access().chap().ifPresent(chap -> access.put("chap", chap(lun, chap)));
        if (!lun.access().hosts().isEmpty()) {
            access.put("hosts", List.copyOf(lun.access().hosts()));
        }
        if (!lun.access().initiators().isEmpty()) {
            access.put("initiators", List.copyOf(lun.access().initiators()));
        }
        lun.access().dhchap().ifPresent(dhchap -> access.put("dhchap", dhchap(lun, dhchap)));
        if (lun.access().tls().mode() != TlsMode.OFF) {
            access.put("tls", lun.access().tls().mode().word());
            access.put("tls-psk-file", file(lun, lun.access().tls().pskFile()));
        }
        if (!access.isEmpty()) {
            doc.put("access", access);
        }
        KnobsReader.write(lun.features().knobs(), doc);
        lun.features().atomic().ifPresent(atomic -> doc.put("atomic", atomic(atomic)));
        lun.features().zoned().ifPresent(zoned -> doc.put("zoned", ZonedReader.document(zoned)));
        if (!lun.features().faults().isEmpty()) {
            doc.put("faults", lun.features().faults().stream().map(FaultWriter::document).toList());
        }
        return doc;
    }

    /** The YAML text of {@link #document}, block style, with a first comment line saying who wrote it. */
    public static String yaml(LunConfig lun, ServerConfig server) {
        DumpSettings settings = DumpSettings.builder().setDefaultFlowStyle(FlowStyle.BLOCK).build();
        return "# " + lun.name() + ": written by the blocktarget control API\n"
                + new Dump(settings).dumpToString(document(lun, server));
    }

    /** "16KiB" where a unit divides the size, else the number of bytes as a number (not a quoted string). */
    private static Object size(long bytes) {
        String exact = Sizes.exact(bytes);
        return exact.equals(Long.toString(bytes)) ? (Object) bytes : exact;
    }

    /** Every key written, defaults too: scripts read the section back as it is. */
    private static Map<String, Object> atomic(AtomicConfig atomic) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("max-bytes", size(atomic.maxBytes()));
        map.put("boundary-bytes", size(atomic.boundaryBytes()));
        map.put("granularity-bytes", size(atomic.granularityBytes()));
        map.put("alignment-bytes", size(atomic.alignmentBytes()));
        return map;
    }

    private static Map<String, Object> chap(LunConfig lun, ChapConfig chap) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("user", chap.user());
        map.put("secret-file", file(lun, chap.secretFile()));
        chap.mutualUser().ifPresent(user -> map.put("mutual-user", user));
        chap.mutualUser().ifPresent(user -> map.put("mutual-secret-file", file(lun, chap.mutualSecretFile())));
        return map;
    }

    private static Map<String, Object> dhchap(LunConfig lun, DhchapConfig dhchap) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("host-secret-file", file(lun, dhchap.hostSecretFile()));
        dhchap.ctrl().ifPresent(keys -> map.put("ctrl-secret-file", file(lun, dhchap.ctrlSecretFile())));
        return map;
    }

    /** A secret is only ever written as the file it came from, never as its text. */
    private static String file(LunConfig lun, Optional<Path> file) {
        return file.map(Path::toString).orElseThrow(() -> new IllegalArgumentException(
                "LUN " + lun.name() + ": CHAP secret not read from a file; it cannot be written to a LUN file"));
    }
}

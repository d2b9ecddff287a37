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
     * The keys of the LUN file (without the name, which is the file's), in the order of their declaration (LunKeys); values
     * are strings, numbers, booleans, lists and maps — what YAML and JSON share.
     */
    public static Map<String, Object> document(LunConfig lun, ServerConfig server) {
        return document(lun, server, false);
    }

    /**
     * @param forDiff with true, what {@link ConfigDiff} compares: the exports written in full (derived names and
     *                numbers too, so that a new prefix shows as a changed export) and secrets given inline as
     *                {@link #INLINE}
     */
    static Map<String, Object> document(LunConfig lun, ServerConfig server, boolean forDiff) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put(LunKeys.BACKEND.name(), lun.backend().configName());
        doc.put(LunKeys.SIZE.name(), size(lun.size()));
        doc.put(LunKeys.LOGICAL_BLOCK_SIZE.name(), size(lun.logicalBlockSize()));
        doc.put(LunKeys.PHYSICAL_BLOCK_SIZE.name(), size(lun.physicalBlockSize()));
        if (lun.readOnly()) {
            doc.put(LunKeys.READ_ONLY.name(), true);
        }
        lun.file().ifPresent(file -> {
            doc.put(LunKeys.PATH.name(), file.path().toString());
            if (file.create()) {
                doc.put(LunKeys.CREATE.name(), true);
            }
            if (file.directIo()) {
                doc.put(LunKeys.DIRECT_IO.name(), true);
            }
        });
        Map<String, Object> export = new LinkedHashMap<>();
        if (lun.iscsi().isEmpty()) {
            export.put(LunKeys.ISCSI.name(), false);
        } else {
            IscsiExport iscsi = lun.iscsi().get();
            if (forDiff || !iscsi.target().equals(server.iqnPrefix() + lun.name())
                    || iscsi.lun() != LunKeys.ISCSI_LUN.defaultValue().orElseThrow()) {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put(LunKeys.ISCSI_TARGET.name(), iscsi.target());
                map.put(LunKeys.ISCSI_LUN.name(), iscsi.lun());
                export.put(LunKeys.ISCSI.name(), map);
            }
        }
        if (lun.nvme().isEmpty()) {
            export.put(LunKeys.NVME.name(), false);
        } else {
            NvmeExport nvme = lun.nvme().get();
            if (forDiff || !nvme.subsystem().equals(server.nqnPrefix() + lun.name())
                    || nvme.nsid() != LunKeys.NVME_NSID.defaultValue().orElseThrow() || nvme.uuid().isPresent()) {
                Map<String, Object> map = new LinkedHashMap<>();
                map.put(LunKeys.NVME_SUBSYSTEM.name(), nvme.subsystem());
                map.put(LunKeys.NVME_NSID.name(), nvme.nsid());
                nvme.uuid().ifPresent(uuid -> map.put(LunKeys.NVME_UUID.name(), uuid.toString()));
                export.put(LunKeys.NVME.name(), map);
            }
        }
        if (!export.isEmpty()) {
            doc.put(LunKeys.EXPORT.name(), export);
        }
        Map<String, Object> access = new LinkedHashMap<>();
        lun.access().chap().ifPresent(chap -> access.put(LunKeys.CHAP.name(), chap(chap, "LUN " + lun.name(), forDiff)));
        if (!lun.access().hosts().isEmpty()) {
            access.put(LunKeys.HOSTS.name(), List.copyOf(lun.access().hosts()));
        }
        if (!lun.access().initiators().isEmpty()) {
            access.put(LunKeys.INITIATORS.name(), List.copyOf(lun.access().initiators()));
        }
        lun.access().dhchap().ifPresent(dhchap -> access.put(LunKeys.DHCHAP.name(), dhchap(lun, dhchap, forDiff)));
        if (lun.access().tls().mode() != TlsMode.OFF) {
            access.put(LunKeys.TLS.name(), lun.access().tls().mode().word());
            access.put(LunKeys.TLS_PSK_FILE.name(), file("LUN " + lun.name(), lun.access().tls().pskFile(), forDiff));
        }
        if (!access.isEmpty()) {
            doc.put(LunKeys.ACCESS.name(), access);
        }
        KnobsReader.write(lun.features().knobs(), doc);
        lun.features().atomic().ifPresent(atomic -> doc.put(LunKeys.ATOMIC.name(), atomic(atomic)));
        lun.features().zoned().ifPresent(zoned -> doc.put(LunKeys.ZONED.name(), ZonedReader.document(zoned)));
        lun.features().placement().ifPresent(placement -> doc.put(LunKeys.PLACEMENT.name(),
                PlacementReader.document(placement)));
        if (!lun.features().faults().isEmpty()) {
            doc.put(LunKeys.FAULTS.name(), lun.features().faults().stream().map(FaultWriter::document).toList());
        }
        if (!lun.features().paths().isEmpty()) {
            doc.put(LunKeys.PATHS.name(), PathsReader.document(lun.features().paths()));
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
        map.put(LunKeys.ATOMIC_MAX_BYTES.name(), size(atomic.maxBytes()));
        map.put(LunKeys.ATOMIC_BOUNDARY_BYTES.name(), size(atomic.boundaryBytes()));
        map.put(LunKeys.ATOMIC_GRANULARITY_BYTES.name(), size(atomic.granularityBytes()));
        map.put(LunKeys.ATOMIC_ALIGNMENT_BYTES.name(), size(atomic.alignmentBytes()));
        return map;
    }

    /**
     * A CHAP map ({@code access.chap}, and {@code discovery-chap} of the server); {@code owner} names it in a bug.
     *
     * @param diff for {@link ConfigDiff}: a secret given inline (API, tests) is written as {@link #INLINE}
     */
    static Map<String, Object> chap(ChapConfig chap, String owner, boolean diff) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(LunKeys.CHAP_USER.name(), chap.user());
        map.put(LunKeys.CHAP_SECRET_FILE.name(), file(owner, chap.secretFile(), diff));
        chap.mutualUser().ifPresent(user -> map.put(LunKeys.CHAP_MUTUAL_USER.name(), user));
        chap.mutualUser().ifPresent(user -> map.put(LunKeys.CHAP_MUTUAL_SECRET_FILE.name(),
                file(owner, chap.mutualSecretFile(), diff)));
        return map;
    }

    private static Map<String, Object> dhchap(LunConfig lun, DhchapConfig dhchap, boolean diff) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(LunKeys.DHCHAP_HOST_SECRET_FILE.name(), file("LUN " + lun.name(), dhchap.hostSecretFile(), diff));
        dhchap.ctrl().ifPresent(keys -> map.put(LunKeys.DHCHAP_CTRL_SECRET_FILE.name(),
                file("LUN " + lun.name(), dhchap.ctrlSecretFile(), diff)));
        return map;
    }

    /** What {@link ConfigDiff} compares for a secret not read from a file (its content is compared apart). */
    static final String INLINE = "(inline secret)";

    /** A secret is only ever written as the file it came from, never as its text. */
    private static String file(String owner, Optional<Path> file, boolean diff) {
        if (diff && file.isEmpty()) {
            return INLINE;
        }
        return file.map(Path::toString).orElseThrow(() -> new IllegalArgumentException(
                owner + ": CHAP secret not read from a file; it cannot be written to a LUN file"));
    }
}

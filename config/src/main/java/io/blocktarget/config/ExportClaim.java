package io.blocktarget.config;

import java.nio.file.Path;

/**
 * One address a LUN file exports its LUN at; two files must not claim the same one.
 *
 * @param address e.g. {@code iSCSI target iqn.2026-11.io.blocktarget:a LUN 0}; equal text = same address
 * @param file    the LUN file
 * @param line    line of the {@code export.iscsi} / {@code export.nvme} key, 0 when derived by default
 * @param key     {@code export.iscsi} or {@code export.nvme}
 */
record ExportClaim(String address, Path file, int line, String key) {
}

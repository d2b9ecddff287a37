package io.blocktarget.config;

/**
 * {@code zoned: {model, zone-size, zone-capacity, conventional-zones, max-open, max-active, zone-append-max-bytes}}
 * of a LUN file: a host-managed zoned device (SCSI ZBC-2 / NVMe ZNS).
 *
 * @param model              only {@link Model#HOST_MANAGED}
 * @param zoneSize           bytes
 * @param zoneCapacity       bytes, ≤ {@code zoneSize}
 * @param conventionalZones  number of conventional zones at the start of the LBA space
 * @param maxOpen            0 = no limit
 * @param maxActive          0 = no limit
 * @param zoneAppendMaxBytes largest Zone Append (NVMe ZASL)
 */
public record ZonedConfig(Model model, long zoneSize, long zoneCapacity, int conventionalZones, int maxOpen,
                          int maxActive, long zoneAppendMaxBytes) {

    public enum Model {
        HOST_MANAGED("host-managed");

        private final String configName;

        Model(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }
    }
}

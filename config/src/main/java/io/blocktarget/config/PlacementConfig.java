package io.blocktarget.config;

/**
 * {@code placement: {reclaim-unit-size, handles, streams, over-provisioning}} of a LUN file (issue 32): data placement
 * advertised over NVMe (Flexible Data Placement, one reclaim unit handle per placement handle) and SCSI (permanent
 * streams, GROUP NUMBER 1..streams), and the media model that measures what the placement does.
 *
 * @param reclaimUnitBytes            reclaim unit size in bytes, a multiple of the logical block size
 * @param handles                     NVMe placement handles, 1..126
 * @param streams                     SCSI permanent streams, 1..63
 * @param overProvisioningBasisPoints spare media beyond the capacity in 1/100 %: 700 = 7 %
 */
public record PlacementConfig(long reclaimUnitBytes, int handles, int streams, int overProvisioningBasisPoints) {
}

package io.blocktarget.protocol.scsi;

/**
 * MAINTENANCE OUT / SET TARGET PORT GROUPS (SPC-5 §6.41): explicit asymmetric access, the PARAMETER LIST LENGTH bytes
 * of set target port group descriptors that follow ({@link SetTargetPortGroupsParameters}); 0 changes nothing.
 */
public record SetTargetPortGroupsCdb(long parameterListLength) implements Cdb {
}

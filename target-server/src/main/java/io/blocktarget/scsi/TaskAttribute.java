package io.blocktarget.scsi;

/** SAM-5 task attribute, as carried by the iSCSI SCSI Command ATTR field (RFC 7143 §11.3.1). */
public enum TaskAttribute {
    UNTAGGED, SIMPLE, ORDERED, HEAD_OF_QUEUE, ACA
}

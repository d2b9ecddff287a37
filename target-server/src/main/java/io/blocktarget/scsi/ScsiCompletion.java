package io.blocktarget.scsi;

/** Completion of one {@link ScsiCommand}: called exactly once, on any thread. */
@FunctionalInterface
public interface ScsiCompletion {
    void complete(ScsiResponse response);
}

package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.NexusTasks;
import io.blocktarget.scsi.ScsiCommand;
import io.blocktarget.scsi.ScsiCompletion;
import io.blocktarget.scsi.ScsiResponse;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.TaskManagementFunction;
import io.blocktarget.scsi.TaskScope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small in-memory SCSI target double for transport tests: READ/WRITE(10/16), READ CAPACITY(10/16),
 * TEST UNIT READY and INQUIRY over one byte array per LUN; anything else CHECK CONDITION. With
 * {@link #hold()} completions are kept until {@link #releaseHeld()} (task management tests); task management
 * asks each attached nexus to abort, then completes after the held completions (as the task set waits for them).
 */
class RamTestTarget implements ScsiTargetDevice {
    private final String name;
    private final int blockSize;
    private final byte[] store;
    private final List<Runnable> held = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    /** Every buffer that crossed the contract (data-out in, data-in and sense out): all must end released. */
    private final List<ByteBuf> crossed = new ArrayList<>();
    private boolean holding;
    private final Map<ItNexus, NexusTasks> nexuses = new LinkedHashMap<>();

    RamTestTarget(String name, int blockSize, int blocks) {
        this.name = name;
        this.blockSize = blockSize;
        this.store = new byte[blockSize * blocks];
    }

    void hold() {
        holding = true;
    }

    void releaseHeld() {
        holding = false;
        List<Runnable> copy = new ArrayList<>(held);
        held.clear();
        copy.forEach(Runnable::run);
    }

    List<String> events() {
        return events;
    }

    byte[] store() {
        return store;
    }

    @Override
    public String targetName() {
        return name;
    }

    @Override
    public List<Long> luns() {
        return List.of(0L);
    }

    /** Buffers the transport still holds a reference to (should be none once every task ended). */
    List<ByteBuf> unreleased() {
        return crossed.stream().filter(b -> b.refCnt() > 0).toList();
    }

    @Override
    public void execute(ScsiCommand command, ScsiCompletion done) {
        if (command.dataOut() != null) {
            crossed.add(command.dataOut());
        }
        ScsiResponse response = run(command);
        if (response.dataIn() != null) {
            crossed.add(response.dataIn());
        }
        if (response.senseData() != null) {
            crossed.add(response.senseData());
        }
        if (holding) {
            held.add(() -> done.complete(response));
        } else {
            done.complete(response);
        }
    }

    private ScsiResponse run(ScsiCommand c) {
        ByteBuf cdb = c.cdb();
        int op = cdb.getUnsignedByte(0);
        events.add("op " + Integer.toHexString(op));
        if (c.lun() != 0) {
            return check(0x25, c.expectedDataTransferLength());
        }
        return switch (op) {
            case 0x00 -> new ScsiResponse(ScsiStatus.GOOD, null, null, 0);
            case 0x12 -> {
                int alloc = cdb.getUnsignedShort(3);
                ByteBuf data = Unpooled.buffer(36);
                data.writeByte(0).writeByte(0).writeByte(6).writeByte(2).writeByte(31).writeZero(31);
                data.writerIndex(Math.min(36, alloc));
                yield new ScsiResponse(ScsiStatus.GOOD, data, null, alloc);
            }
            case 0x25 -> {
                ByteBuf data = Unpooled.buffer(8);
                data.writeInt(store.length / blockSize - 1).writeInt(blockSize);
                yield new ScsiResponse(ScsiStatus.GOOD, data, null, 8);
            }
            case 0x9e -> {
                int alloc = cdb.getInt(10);
                ByteBuf data = Unpooled.buffer(32);
                data.writeLong(store.length / blockSize - 1).writeInt(blockSize).writeZero(20);
                yield new ScsiResponse(ScsiStatus.GOOD, data, null, alloc);
            }
            case 0x28, 0x88 -> read(op == 0x28 ? cdb.getUnsignedInt(2) : cdb.getLong(2),
                    op == 0x28 ? cdb.getUnsignedShort(7) : cdb.getUnsignedInt(10));
            case 0x2a, 0x8a -> write(op == 0x2a ? cdb.getUnsignedInt(2) : cdb.getLong(2),
                    op == 0x2a ? cdb.getUnsignedShort(7) : cdb.getUnsignedInt(10), c.dataOut());
            default -> check(0x20, 0);
        };
    }

    private ScsiResponse read(long lba, long blocks) {
        long bytes = blocks * blockSize;
        if ((lba + blocks) * blockSize > store.length) {
            return check(0x21, bytes);
        }
        return new ScsiResponse(ScsiStatus.GOOD, Unpooled.copiedBuffer(store, (int) (lba * blockSize), (int) bytes),
                null, bytes);
    }

    private ScsiResponse write(long lba, long blocks, ByteBuf data) {
        long bytes = blocks * blockSize;
        if ((lba + blocks) * blockSize > store.length) {
            return check(0x21, bytes);
        }
        int n = (int) Math.min(bytes, data == null ? 0 : data.readableBytes());
        if (n > 0) {
            data.getBytes(data.readerIndex(), store, (int) (lba * blockSize), n);
        }
        return new ScsiResponse(ScsiStatus.GOOD, null, null, bytes);
    }

    /** CHECK CONDITION, ILLEGAL REQUEST with ASC {@code asc} / ASCQ 0, fixed format (built by SenseData). */
    private static ScsiResponse check(int asc, long transferLength) {
        io.netty.buffer.ByteBuf sense = Unpooled.buffer(io.blocktarget.protocol.scsi.SenseData.FIXED_LENGTH);
        new io.blocktarget.protocol.scsi.SenseData(io.blocktarget.protocol.scsi.SenseKey.ILLEGAL_REQUEST, asc, 0,
                java.util.OptionalLong.empty(), java.util.Optional.empty()).encodeFixed(sense);
        return new ScsiResponse(ScsiStatus.CHECK_CONDITION, null, sense, transferLength);
    }

    @Override
    public void attach(ItNexus nexus, NexusTasks tasks) {
        nexuses.put(nexus, tasks);
    }

    @Override
    public void detach(ItNexus nexus, NexusTasks tasks) {
        nexuses.remove(nexus, tasks);
    }

    @Override
    public void taskManagement(TaskManagementFunction function, ItNexus requester, long lun, long taskTag,
                               Runnable done) {
        events.add(switch (function) {
            case LOGICAL_UNIT_RESET -> "lun reset " + lun;
            case TARGET_RESET -> "target reset";
            default -> function.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + " " + lun;
        });
        boolean requesterOnly = function == TaskManagementFunction.ABORT_TASK
                || function == TaskManagementFunction.ABORT_TASK_SET;
        List<NexusTasks> reached = new ArrayList<>();
        nexuses.forEach((n, t) -> {
            if (!requesterOnly || n.equals(requester)) {
                reached.add(t);
            }
        });
        TaskScope scope = new TaskScope(function == TaskManagementFunction.TARGET_RESET ? TaskScope.ANY : lun,
                function == TaskManagementFunction.ABORT_TASK ? taskTag : TaskScope.ANY);
        Runnable finished = () -> {
            if (holding) {
                held.add(done); // after the held completions: the tasks in execution have stopped
            } else {
                done.run();
            }
        };
        int[] left = {reached.size()};
        if (reached.isEmpty()) {
            finished.run();
        }
        for (NexusTasks t : reached) {
            t.abort(scope, aborted -> {
                if (--left[0] == 0) {
                    finished.run();
                }
            });
        }
    }

    @Override
    public void nexusLost(ItNexus nexus) {
        events.add("nexus lost " + nexus.initiatorPortName());
    }
}

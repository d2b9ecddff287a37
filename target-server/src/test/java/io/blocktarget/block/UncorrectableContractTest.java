package io.blocktarget.block;

import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;

/** The decorator keeps every promise of the block device contract (with nothing marked: the fast path). */
class UncorrectableContractTest extends BlockDeviceContract {
    private final MemoryBudget budget = new MemoryBudget(1L << 30);

    @Override
    protected BlockDevice create(BlockGeometry geometry, boolean readOnly) {
        return UncorrectableBlockDevice.wrap(new RamBlockDevice("ram", geometry, readOnly, budget));
    }
}

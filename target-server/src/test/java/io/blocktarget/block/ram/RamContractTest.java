package io.blocktarget.block.ram;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockDeviceContract;
import io.blocktarget.block.BlockGeometry;

import static org.assertj.core.api.Assertions.assertThat;

class RamContractTest extends BlockDeviceContract {
    private final MemoryBudget budget = new MemoryBudget(1L << 30);

    @Override
    protected BlockDevice create(BlockGeometry geometry, boolean readOnly) {
        return new RamBlockDevice("ram", geometry, readOnly, budget);
    }

    @Override
    protected void afterClose() {
        // Runs after the contract closed the devices: every chunk back in the budget, none leaked.
        assertThat(budget.used()).isZero();
    }
}

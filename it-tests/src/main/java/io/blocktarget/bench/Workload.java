package io.blocktarget.bench;

import java.util.Arrays;
import java.util.Optional;

/** The I/O pattern, named as fio names it ({@code --rw}). */
public enum Workload {
    RANDREAD("randread", true),
    RANDWRITE("randwrite", true),
    READ("read", false),
    WRITE("write", false),
    /** Random reads and writes, {@code --mix} percent reads. */
    RANDRW("randrw", true);

    final String cliName;
    final boolean random;

    Workload(String cliName, boolean random) {
        this.cliName = cliName;
        this.random = random;
    }

    static Optional<Workload> fromCliName(String name) {
        return Arrays.stream(values()).filter(w -> w.cliName.equals(name)).findFirst();
    }
}

/**
 * Checked state transitions with per-state counters (DESIGN.md §10, §11), shared by the server, both transports and
 * the NVMe layer: {@link io.blocktarget.state.StateMachine} is the table of legal transitions of one state enum,
 * declared once beside it; {@link io.blocktarget.state.StateCounters} counts the objects currently in each state and
 * is changed only by the machine's transitions, so a connection can check at teardown that every command reached a
 * final state (SPDK's per-request state counters and its qpair-teardown check are the model). Knows only the JDK.
 */
package io.blocktarget.state;

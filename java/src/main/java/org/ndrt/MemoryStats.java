package org.ndrt;

/**
 * A device pool's statistics ({@code ndrt_memory_stats}), in bytes except the counts.
 *
 * @param inUse bytes held by live storages (rounded to size classes)
 * @param cached bytes kept for reuse, not in use
 * @param peak highest inUse since start or the last {@link Memory#resetPeak}
 * @param hits allocations served from the cache
 * @param misses allocations that went to the system
 * @param oomCount allocations that failed with out of memory
 * @param wrapped bytes of caller memory wrapped zero-copy and still alive
 */
public record MemoryStats(long inUse, long cached, long peak, long hits, long misses, long oomCount, long wrapped) {}

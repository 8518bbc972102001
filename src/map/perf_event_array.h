/* The perf event array's interface to bpf_perf_event_output() (src/map/perf_event_array.c). */
#ifndef USERBPF_MAP_PERF_EVENT_ARRAY_H
#define USERBPF_MAP_PERF_EVENT_ARRAY_H

#include "util.h"

struct bpf_map;

/* Writes a record of meta then extra to the event in slot flags & BPF_F_INDEX_MASK (the calling
 * CPU's with BPF_F_CURRENT_CPU), as the kernel's __bpf_perf_event_output(): -E2BIG beyond the
 * array, -ENOENT for an empty slot, then perf_event_output()'s results (perf_event.h).  The
 * caller checked the other bits of flags. */
int perf_event_array_output(struct bpf_map *map, u64 flags, const void *meta, u32 meta_size,
			    const void *extra, u32 extra_size);

#endif

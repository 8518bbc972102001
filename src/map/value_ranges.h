/* Where map values live, for reads that must not fault (value_ranges.c). */
#ifndef USERBPF_MAP_VALUE_RANGES_H
#define USERBPF_MAP_VALUE_RANGES_H

#include "util.h"

/* Adds [lo, lo + len) (a map's value memory); 0 or -ENOMEM. */
int value_ranges_add(uintptr_t lo, size_t len);

/* Removes the range that starts at lo and waits for a grace period (synchronize_rcu()): after
 * it, no reader is still reading there, and the memory may be freed.  Not inside a read
 * section. */
void value_ranges_del(uintptr_t lo);

/* The end of the range that holds a, or 0: [a, end) is map value memory.  Inside a read
 * section (a running program's), which keeps it there until the section ends. */
uintptr_t value_ranges_end(uintptr_t a);

#endif

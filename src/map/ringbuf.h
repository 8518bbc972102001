/* The ring buffer's interface to the helpers (src/map/ringbuf.c). */
#ifndef USERBPF_MAP_RINGBUF_H
#define USERBPF_MAP_RINGBUF_H

#include "util.h"

struct bpf_map;

#define RINGBUF_HDR_SZ 8
#define RINGBUF_BUSY_BIT (1u << 31)
#define RINGBUF_DISCARD_BIT (1u << 30)

/* bpf_ringbuf_output(): 0, -EINVAL for unknown flags, -EAGAIN when the ring has no room. */
int ringbuf_output(struct bpf_map *map, const void *src, u64 size, u64 flags);
/* bpf_ringbuf_reserve(): a record of size bytes the caller fills, busy until committed; NULL
 * for flags or when the ring has no room.  The verifier makes every reserved record committed
 * exactly once (bpf_ringbuf_submit / bpf_ringbuf_discard: discard = true). */
void *ringbuf_reserve(struct bpf_map *map, u64 size, u64 flags);
void ringbuf_commit(void *sample, bool discard);
/* bpf_ringbuf_query(): available bytes, ring size, consumer or producer position; 0 for an
 * unknown flag. */
u64 ringbuf_query(struct bpf_map *map, u64 flags);

/* A user ring buffer (BPF_MAP_TYPE_USER_RINGBUF), for bpf_user_ringbuf_drain(): one drain at a
 * time (begin: 0 or -EBUSY; end); the next record, 0 with *sample and *size, or -ENODATA (none,
 * or one user space has not submitted), -EAGAIN (a discarded one, now consumed), -EINVAL or
 * -E2BIG (a record the positions or the ring cannot hold); consume: the record peeked is read. */
#define USER_RINGBUF_MAX_SAMPLE ((1u << 24) - 1) /* what a dynptr can view */
int user_ringbuf_begin(struct bpf_map *map);
void user_ringbuf_end(struct bpf_map *map);
int user_ringbuf_peek(struct bpf_map *map, void **sample, u32 *size);
void user_ringbuf_consume(struct bpf_map *map, u32 size);

#endif

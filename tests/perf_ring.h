/* Helpers of the perf event tests (test_perf_event.c, test_diff_perf_event.c): BPF output
 * events opened on either side (the kernel's perf_event_open(2), userbpf_perf_event_open()),
 * their rings mapped and read as a perf reader does, and the program that writes to them.
 */
#ifndef USERBPF_TESTS_PERF_RING_H
#define USERBPF_TESTS_PERF_RING_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "kbpf.h"

/* An event and its ring (base NULL until mapped). */
struct perf_ring {
	int fd;
	uint8_t *base;
	size_t len;
};

/* Opens a BPF output event on side s (K: the kernel, U: userbpf) for cpu (pid -1), or for this
 * thread when cpu is -1 (pid 0); -1 and errno on failure. */
int perf_ring_open(int s, int cpu, bool disabled, bool inherit);

/* Opens an event as perf_ring_open() and maps it with data_pages pages (prot PROT_READ for an
 * overwriting ring).  0, or -1 with errno (r->fd -1 when the open failed). */
int perf_ring_open_mapped(int s, struct perf_ring *r, int cpu, unsigned data_pages, int prot);
void perf_ring_close(struct perf_ring *r);

static inline struct perf_event_mmap_page *perf_ring_page(const struct perf_ring *r)
{
	return (struct perf_event_mmap_page *)r->base;
}

/* Copies n bytes at ring position pos (wrapping) into dst. */
void perf_ring_read(const struct perf_ring *r, uint64_t pos, void *dst, uint64_t n);

/* Marks everything written as read (data_tail = data_head), as a reader does after a pass. */
void perf_ring_consume(struct perf_ring *r);

/* A program of type that calls bpf_perf_event_output(ctx, map_fd, flags, stack, size) with
 * size bytes of a fixed pattern from its stack (size <= 48) and returns the helper's result.
 * Writes it to insns (room for 32) and returns the count. */
uint32_t perf_output_prog(struct bpf_insn *insns, int map_fd, uint64_t flags, uint32_t size);

/* The pattern's byte i, which the program outputs. */
uint8_t perf_output_pattern(uint32_t i);

#endif

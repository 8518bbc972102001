/* Helpers of the perf event tests (see perf_ring.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf_ring.h"
#include "userbpf/insn.h"

int perf_ring_open(int s, int cpu, bool disabled, bool inherit)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_type = PERF_SAMPLE_RAW;
	a.sample_period = 1;
	a.wakeup_events = 1;
	a.disabled = disabled;
	a.inherit = inherit;
	if (s == K)
		return (int)syscall(__NR_perf_event_open, &a, cpu < 0 ? 0 : -1, cpu, -1,
				    PERF_FLAG_FD_CLOEXEC);
	return userbpf_perf_event_open(&a, cpu < 0 ? 0 : -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int perf_ring_open_mapped(int s, struct perf_ring *r, int cpu, unsigned data_pages, int prot)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	r->base = NULL;
	r->len = (1 + data_pages) * page;
	r->fd = perf_ring_open(s, cpu, false, false);
	if (r->fd < 0)
		return -1;
	p = mmap(NULL, r->len, prot, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED)
		return -1;
	r->base = p;
	return 0;
}

void perf_ring_close(struct perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->len);
	if (r->fd >= 0)
		close(r->fd);
	r->base = NULL;
	r->fd = -1;
}

void perf_ring_read(const struct perf_ring *r, uint64_t pos, void *dst, uint64_t n)
{
	const struct perf_event_mmap_page *up = perf_ring_page(r);
	const uint8_t *data = r->base + up->data_offset;

	for (uint64_t i = 0; i < n; i++)
		((uint8_t *)dst)[i] = data[(pos + i) & (up->data_size - 1)];
}

void perf_ring_consume(struct perf_ring *r)
{
	struct perf_event_mmap_page *up = perf_ring_page(r);

	__atomic_store_n(&up->data_tail, __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

uint8_t perf_output_pattern(uint32_t i)
{
	return (uint8_t)(0x41 + i * 7);
}

uint32_t perf_output_prog(struct bpf_insn *insns, int map_fd, uint64_t flags, uint32_t size)
{
	const struct bpf_insn ld_map[] = { BPF_LD_MAP_FD(BPF_REG_2, map_fd) };
	const struct bpf_insn ld_flags[] = { BPF_LD_IMM64(BPF_REG_3, flags) };
	uint32_t n = 0;

	for (int off = 0; off < 48; off += 4) {
		uint32_t w = 0;

		for (int b = 3; b >= 0; b--)
			w = w << 8 | perf_output_pattern((uint32_t)(off + b));
		insns[n++] = BPF_ST_MEM(BPF_W, BPF_REG_10, -48 + off, (int32_t)w);
	}
	insns[n++] = ld_map[0];
	insns[n++] = ld_map[1];
	insns[n++] = ld_flags[0];
	insns[n++] = ld_flags[1];
	insns[n++] = BPF_MOV64_REG(BPF_REG_4, BPF_REG_10);
	insns[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -48);
	insns[n++] = BPF_MOV64_IMM(BPF_REG_5, (int32_t)size);
	insns[n++] = BPF_EMIT_CALL(BPF_FUNC_perf_event_output);
	insns[n++] = BPF_EXIT_INSN();
	return n;
}

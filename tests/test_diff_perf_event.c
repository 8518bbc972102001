/* BPF_MAP_TYPE_PERF_EVENT_ARRAY and bpf_perf_event_output(), differentially: creation rules;
 * bpf() commands with every kind of fd a caller may pass (an event, an inherited one, a map's, a
 * file's, a closed one) and every flag; the verifier's pairing of the map type with the helper,
 * and the helper's argument rules, in every program type that has it; and the records programs
 * write from socket filters, tc, XDP and raw tracepoints (every size of data up to 48 bytes and
 * packet bytes appended through BPF_F_CTXLEN_MASK): each run's result and every byte a perf
 * reader sees in the ring, through wrap-around, a full ring (ENOSPC, then the PERF_RECORD_LOST
 * record, whose event id is the only field allowed to differ), an overwriting ring, a disabled
 * event, an unmapped one, another CPU's, an empty slot and the slot beyond the array.  The kernel
 * side uses perf_event_open(2), userbpf's side userbpf_perf_event_open(); the thread is pinned to
 * its CPU meanwhile.  Skipped where the kernel's bpf() or its perf events are unavailable.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kbpf.h"
#include "perf_ring.h"
#include "test.h"
#include "userbpf/insn.h"

#define PEA_ENTRIES 4

TEST(diff_perf_event_array_create)
{
	static const struct map_shape shapes[] = {
		{ 4, 4, 8, 0 },
		{ 4, 8, 8, 0 },
		{ 8, 4, 8, 0 },
		{ 4, 4, 0, 0 },
		{ 4, 4, 8, BPF_F_NUMA_NODE },
		{ 4, 4, 8, BPF_F_RDONLY },
		{ 4, 4, 8, BPF_F_WRONLY },
		{ 4, 4, 8, BPF_F_RDONLY_PROG },
		{ 4, 4, 8, BPF_F_WRONLY_PROG },
		{ 4, 4, 8, BPF_F_MMAPABLE },
		{ 4, 4, 8, BPF_F_INNER_MAP },
		{ 4, 4, 8, BPF_F_PRESERVE_ELEMS },
		{ 4, 4, 8, BPF_F_PRESERVE_ELEMS | BPF_F_RDONLY },
		{ 4, 4, 8, BPF_F_NO_PREALLOC },
		{ 4, 4, 8, BPF_F_ZERO_SEED },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	CREATES_AGREE(BPF_MAP_TYPE_PERF_EVENT_ARRAY, shapes);
	/* and the flag only this type takes, on the other fd arrays */
	{
		static const struct map_shape preserve[] = { { 4, 4, 8, BPF_F_PRESERVE_ELEMS } };

		CREATES_AGREE(BPF_MAP_TYPE_PROG_ARRAY, preserve);
		CREATES_AGREE(BPF_MAP_TYPE_CGROUP_ARRAY, preserve);
		CREATES_AGREE(BPF_MAP_TYPE_ARRAY, preserve);
	}
}

static cpu_set_t unpinned; /* the thread's mask before pin_here() */

/* Pins the thread to the CPU it runs on, and returns it. */
static int pin_here(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	sched_getaffinity(0, sizeof(unpinned), &unpinned);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	return cpu;
}

static void unpin(void)
{
	sched_setaffinity(0, sizeof(unpinned), &unpinned);
}

/* Both sides' perf events, or a skip when the kernel makes none (no perf events for us). */
#define OPEN_BOTH(ev, cpu, pages, prot)                                                            \
	do {                                                                                       \
		for (int s_ = 0; s_ < NSIDES; s_++) {                                              \
			if (perf_ring_open_mapped(s_, &(ev)[s_], cpu, pages, prot)) {              \
				if (s_ == K) {                                                     \
					unpin();                                                   \
					SKIP("the kernel's perf_event_open(2) says %s",            \
					     strerror(errno));                                     \
				}                                                                  \
				REQUIRE(!"userbpf's event and mapping");                           \
			}                                                                          \
		}                                                                                  \
	} while (0)

static bool update_agrees(const int map[NSIDES], uint32_t key, const int fd[NSIDES],
			  uint64_t flags, const char *what)
{
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		uint32_t v = (uint32_t)fd[s];

		r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &key, &v, flags);
	}
	return AGREE(what, r);
}

static bool elem_agrees(int cmd, const int map[NSIDES], uint32_t key, const char *what)
{
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		uint32_t v = 0, k2 = 0;

		r[s] = side_elem(s, cmd, map[s], &key, cmd == BPF_MAP_GET_NEXT_KEY ? (void *)&k2 : &v,
				 0);
	}
	return AGREE(what, r);
}

TEST(diff_perf_event_array_commands)
{
	int map[NSIDES], other[NSIDES], ev[NSIDES], inh[NSIDES], file, same[NSIDES];
	int closed[NSIDES] = { 1000, 1000 }, minus[NSIDES] = { -1, -1 };
	int cpu;

	SKIP_WITHOUT_KERNEL_BPF();
	cpu = pin_here();
	for (int s = 0; s < NSIDES; s++) {
		map[s] = side_map_create(s, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, PEA_ENTRIES, 0).rc;
		other[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		ev[s] = perf_ring_open(s, cpu, false, false);
		inh[s] = perf_ring_open(s, -1, false, true);
		if (s == K && (ev[s] < 0 || inh[s] < 0)) {
			unpin();
			SKIP("the kernel's perf_event_open(2) says %s", strerror(errno));
		}
		REQUIRE(map[s] >= 0 && other[s] >= 0 && ev[s] >= 0 && inh[s] >= 0);
	}
	file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	REQUIRE(file >= 0);
	same[K] = same[U] = file;
	for (uint32_t k = 0; k <= PEA_ENTRIES; k++) {
		elem_agrees(BPF_MAP_LOOKUP_ELEM, map, k, "lookup, empty");
		elem_agrees(BPF_MAP_DELETE_ELEM, map, k, "delete, empty");
		elem_agrees(BPF_MAP_GET_NEXT_KEY, map, k, "next key");
	}
	update_agrees(map, 0, ev, BPF_ANY, "an event");
	update_agrees(map, 1, ev, BPF_NOEXIST, "noexist");
	update_agrees(map, 1, ev, BPF_EXIST, "exist");
	update_agrees(map, 1, ev, BPF_F_LOCK, "lock");
	update_agrees(map, 1, ev, BPF_ANY, "the same event again");
	update_agrees(map, 2, inh, BPF_ANY, "an inherited event");
	update_agrees(map, 2, other, BPF_ANY, "a map");
	update_agrees(map, 2, same, BPF_ANY, "a file");
	update_agrees(map, 2, closed, BPF_ANY, "a closed fd");
	update_agrees(map, 2, minus, BPF_ANY, "fd -1");
	update_agrees(map, PEA_ENTRIES, ev, BPF_ANY, "beyond");
	update_agrees(map, PEA_ENTRIES, minus, BPF_ANY, "beyond, bad fd");
	update_agrees(map, PEA_ENTRIES, ev, BPF_NOEXIST, "beyond, bad flags");
	for (uint32_t k = 0; k <= PEA_ENTRIES; k++)
		elem_agrees(BPF_MAP_LOOKUP_ELEM, map, k, "lookup");
	for (int cmd = BPF_MAP_LOOKUP_BATCH; cmd <= BPF_MAP_DELETE_BATCH; cmd++) {
		uint32_t keys[PEA_ENTRIES] = { 0 }, vals[PEA_ENTRIES] = { 0 }, out = 0;
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.batch.map_fd = (uint32_t)map[s];
			a.batch.keys = PTR_TO_U64(keys);
			a.batch.values = PTR_TO_U64(vals);
			a.batch.out_batch = PTR_TO_U64(&out);
			a.batch.count = 2;
			r[s] = side_call(s, cmd, &a);
		}
		AGREE("batch", r);
	}
	elem_agrees(BPF_MAP_DELETE_ELEM, map, 1, "delete");
	elem_agrees(BPF_MAP_DELETE_ELEM, map, 1, "delete again");
	elem_agrees(BPF_MAP_DELETE_ELEM, map, PEA_ENTRIES, "delete beyond");
	unpin();
	close(file);
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		close(other[s]);
		close(ev[s]);
		close(inh[s]);
	}
}

TEST(diff_perf_event_output_verifier)
{
	int pea[NSIDES], arr[NSIDES];
	struct bpf_insn out[] = {
		BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0), BPF_LD_MAP_FD(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8), BPF_MOV64_IMM(BPF_REG_5, 8),
		BPF_EMIT_CALL(BPF_FUNC_perf_event_output), BPF_EXIT_INSN(),
	};
	/* the same with the size from a register the verifier knows nothing of, and with data
	 * beyond the stack (insn 6 sets the size) */
	struct bpf_insn unknown_size[9], too_big[9];
	struct bpf_insn lookup[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0), BPF_LD_MAP_FD(BPF_REG_1, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10), BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem), BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	static const uint32_t types[] = {
		BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_SCHED_CLS, BPF_PROG_TYPE_SCHED_ACT,
		BPF_PROG_TYPE_XDP,	     BPF_PROG_TYPE_CGROUP_SKB, BPF_PROG_TYPE_LWT_IN,
		BPF_PROG_TYPE_LWT_OUT,	     BPF_PROG_TYPE_LWT_XMIT,	BPF_PROG_TYPE_KPROBE,
		BPF_PROG_TYPE_TRACEPOINT,    BPF_PROG_TYPE_RAW_TRACEPOINT,
	};

	SKIP_WITHOUT_KERNEL_BPF();
	memcpy(unknown_size, out, sizeof(out));
	unknown_size[6] = BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_1, 0);
	memcpy(too_big, out, sizeof(out));
	too_big[6] = BPF_MOV64_IMM(BPF_REG_5, 16);
	for (int s = 0; s < NSIDES; s++) {
		pea[s] = side_map_create(s, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 4, 0).rc;
		arr[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 4, 0).rc;
		REQUIRE(pea[s] >= 0 && arr[s] >= 0);
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		VERDICTS_AGREE_MAP("output", types[i], out, 9, pea, 1);
		VERDICTS_AGREE_MAP("output to an array", types[i], out, 9, arr, 1);
		VERDICTS_AGREE_MAP("output of an unknown size", types[i], unknown_size, 9, pea, 1);
		VERDICTS_AGREE_MAP("output beyond the data", types[i], too_big, 9, pea, 1);
		VERDICTS_AGREE_MAP("lookup", types[i], lookup, 8, pea, 1);
	}
	for (int s = 0; s < NSIDES; s++) {
		close(pea[s]);
		close(arr[s]);
	}
}

/* The records between data_tail and data_head on both sides are the same, byte for byte, but
 * for a PERF_RECORD_LOST's event id; then both are consumed.  Returns the number of records. */
static int rings_agree(struct perf_ring ev[NSIDES], const char *what)
{
	const struct perf_event_mmap_page *up[NSIDES] = { perf_ring_page(&ev[K]),
							   perf_ring_page(&ev[U]) };
	uint64_t pos[NSIDES], head[NSIDES];
	int n = 0;

	for (int s = 0; s < NSIDES; s++) {
		head[s] = __atomic_load_n(&up[s]->data_head, __ATOMIC_ACQUIRE);
		pos[s] = up[s]->data_tail;
	}
	if (head[K] - pos[K] != head[U] - pos[U]) {
		test_fail(__FILE__, __LINE__, "%s: %llu bytes to read in the kernel's ring, %llu in ours",
			  what, (unsigned long long)(head[K] - pos[K]),
			  (unsigned long long)(head[U] - pos[U]));
		return -1;
	}
	while (pos[K] < head[K]) {
		uint8_t rec[NSIDES][65536];
		struct perf_event_header h[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			perf_ring_read(&ev[s], pos[s], &h[s], sizeof(h[s]));
		if (memcmp(&h[K], &h[U], sizeof(h[K])) || h[K].size < sizeof(h[K])) {
			test_fail(__FILE__, __LINE__,
				  "%s, record %d: kernel type %u misc %u size %u, userbpf %u %u %u", what,
				  n, h[K].type, h[K].misc, h[K].size, h[U].type, h[U].misc, h[U].size);
			return -1;
		}
		for (int s = 0; s < NSIDES; s++)
			perf_ring_read(&ev[s], pos[s], rec[s], h[s].size);
		if (h[K].type == PERF_RECORD_LOST && h[K].size >= 24)
			memset(rec[K] + 8, 0, 8), memset(rec[U] + 8, 0, 8); /* the ids */
		if (memcmp(rec[K], rec[U], h[K].size)) {
			test_fail(__FILE__, __LINE__, "%s, record %d (type %u, %u bytes) differs", what, n,
				  h[K].type, h[K].size);

			return -1;
		}
		for (int s = 0; s < NSIDES; s++)
			pos[s] += h[s].size;
		n++;
	}
	for (int s = 0; s < NSIDES; s++)
		perf_ring_consume(&ev[s]);
	return n;
}

static const uint8_t test_pkt[64] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00, 0x45,
				      15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
				      30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44,
				      45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59,
				      60, 61, 62, 63 };

/* Loads the output program (type, flags, size) on both sides with their maps and runs it once:
 * loads and results agree; the helper's result in *ret (as the retval's u32). */
static bool output_agrees(uint32_t type, const int map[NSIDES], uint64_t flags, uint32_t size,
			  const char *what, uint32_t *ret)
{
	struct bpf_insn insns[32];
	int prog[NSIDES];
	bool ok = true;

	for (int s = 0; s < NSIDES; s++) {
		uint32_t n = perf_output_prog(insns, map[s], flags, size);

		prog[s] = side_prog_load(s, type, insns, n);
	}
	if ((prog[K] < 0) != (prog[U] < 0)) {
		test_fail(__FILE__, __LINE__, "%s: kernel load %d, userbpf %d", what, prog[K],
			  prog[U]);
		ok = false;
	} else if (prog[K] >= 0 && type == BPF_PROG_TYPE_RAW_TRACEPOINT) {
		struct bpf_result r[NSIDES];
		uint32_t rv[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			union bpf_attr a;

			memset(&a, 0, sizeof(a));
			a.test.prog_fd = (uint32_t)prog[s];
			r[s] = side_call(s, BPF_PROG_TEST_RUN, &a);
			rv[s] = a.test.retval;
		}
		ok = AGREE(what, r);
		if (ok && rv[K] != rv[U]) {
			test_fail(__FILE__, __LINE__, "%s: result kernel %d, userbpf %d", what,
				  (int)rv[K], (int)rv[U]);
			ok = false;
		}
		*ret = rv[K];
	} else if (prog[K] >= 0) {
		ok = RUNS_AGREE(what, prog, test_pkt, sizeof(test_pkt), ret);
	}
	for (int s = 0; s < NSIDES; s++)
		if (prog[s] >= 0)
			close(prog[s]);
	return ok;
}

/* Every size of data, with and without packet bytes, from each program type, to this CPU's
 * slot by index and by BPF_F_CURRENT_CPU; and the flags' errors. */
TEST(diff_perf_event_output_records)
{
	static const uint32_t types[] = { BPF_PROG_TYPE_SOCKET_FILTER, BPF_PROG_TYPE_SCHED_CLS,
					  BPF_PROG_TYPE_XDP, BPF_PROG_TYPE_RAW_TRACEPOINT };
	struct perf_ring ev[NSIDES];
	int map[NSIDES];
	int cpu, records = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	cpu = pin_here();
	if (cpu >= PEA_ENTRIES) {
		unpin();
		SKIP("running on CPU %d, beyond the test's array", cpu);
	}
	OPEN_BOTH(ev, cpu, 4, PROT_READ | PROT_WRITE);
	for (int s = 0; s < NSIDES; s++) {
		uint32_t k = (uint32_t)cpu, v = (uint32_t)ev[s].fd;

		map[s] = side_map_create(s, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, PEA_ENTRIES, 0).rc;
		REQUIRE(map[s] >= 0);
		REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &k, &v, 0).rc == 0);
	}
	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		bool tracing = types[t] == BPF_PROG_TYPE_RAW_TRACEPOINT;

		for (uint32_t size = 0; size <= 48; size += size < 12 ? 1 : 5) {
			for (uint64_t ctxlen = 0; ctxlen <= (tracing ? 0 : 64); ctxlen += 21) {
				uint64_t flags = ctxlen << 32 |
						 (size & 1 ? BPF_F_CURRENT_CPU : (uint64_t)cpu);
				char what[96];
				uint32_t ret = 1;

				snprintf(what, sizeof(what), "type %u, %u bytes, %u from the packet",
					 types[t], size, (unsigned)ctxlen);
				/* (a socket filter's skb starts after the Ethernet header) */
				uint64_t avail = types[t] == BPF_PROG_TYPE_SOCKET_FILTER ? 50 : 64;

				if (output_agrees(types[t], map, flags, size, what, &ret))
					CHECK_EQ((int)ret, ctxlen <= avail ? 0 : -EFAULT);
				records += rings_agree(ev, what);
			}
		}
		/* errors: flags, ctx bytes beyond the packet, an empty slot, beyond the array */
		{
			static const struct {
				uint64_t flags;
				const char *what;
			} bad[] = {
				{ 1ull << 52, "an unknown flag" },
				{ 65ull << 32 | BPF_F_CURRENT_CPU, "more packet than there is" },
				{ (uint64_t)-1, "every flag" },
				{ PEA_ENTRIES, "the slot beyond" },
				{ 0, "an empty slot" },
				{ 1ull << 31, "a large index" },
			};

			for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
				uint64_t flags = bad[i].flags ? bad[i].flags
							      : (uint64_t)(cpu + 1) % PEA_ENTRIES;
				uint32_t ret;

				output_agrees(types[t], map, flags, 8, bad[i].what, &ret);
				CHECK(ret != 0);
				CHECK_EQ(rings_agree(ev, bad[i].what), 0);
			}
		}
	}
	CHECK(records > 100);
	unpin();
	for (int s = 0; s < NSIDES; s++) {
		close(map[s]);
		perf_ring_close(&ev[s]);
	}
}

/* Runs the output program (XDP, 40 bytes of data and 24 of the packet: 80-byte records) n
 * times on both sides: each result agrees; the number of successes. */
static int outputs_agree(const int map[NSIDES], int n, const char *what)
{
	struct bpf_insn insns[32];
	int prog[NSIDES], ok = 0;

	for (int s = 0; s < NSIDES; s++) {
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_XDP, insns,
					 perf_output_prog(insns, map[s],
							  24ull << 32 | BPF_F_CURRENT_CPU, 40));
		if (prog[s] < 0)
			test_fail(__FILE__, __LINE__, "%s: side %d does not load", what, s);
	}
	for (int i = 0; prog[K] >= 0 && prog[U] >= 0 && i < n; i++) {
		uint32_t ret;

		if (!RUNS_AGREE(what, prog, test_pkt, sizeof(test_pkt), &ret))
			break;
		ok += ret == 0;
	}
	for (int s = 0; s < NSIDES; s++)
		if (prog[s] >= 0)
			close(prog[s]);
	return ok;
}

/* A one-page ring: records wrap around its end; when the reader lags it fills (ENOSPC) and the
 * next record after a read is preceded by the count of those lost.  A read-only mapping makes
 * it overwrite instead. */
TEST(diff_perf_event_output_full_ring)
{
	struct perf_ring ev[NSIDES];
	int map[NSIDES];
	int cpu;

	SKIP_WITHOUT_KERNEL_BPF();
	cpu = pin_here();
	for (int overwrite = 0; overwrite < 2; overwrite++) {
		OPEN_BOTH(ev, cpu, 1, overwrite ? PROT_READ : PROT_READ | PROT_WRITE);
		for (int s = 0; s < NSIDES; s++) {
			uint32_t k = 0, v = (uint32_t)ev[s].fd;

			map[s] = side_map_create(s, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4,
						 (uint32_t)cpu + 1, 0).rc;
			REQUIRE(map[s] >= 0);
			k = (uint32_t)cpu;
			REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &k, &v, 0).rc == 0);
		}
		if (!overwrite) {
			/* read after every 7 records, 20 rounds: the positions go round the ring */
			for (int round = 0; round < 20; round++) {
				CHECK_EQ(outputs_agree(map, 7, "wrapping"), 7);
				CHECK_EQ(rings_agree(ev, "wrapping"), 7);
			}
			/* no reading: 51 fit (a full ring keeps a byte free); the rest are lost */
			CHECK_EQ(outputs_agree(map, 60, "filling"), 4095 / 80);
			CHECK_EQ(rings_agree(ev, "full"), 4095 / 80);
			/* a read made room: the lost count, then the record */
			CHECK_EQ(outputs_agree(map, 1, "after the loss"), 1);
			CHECK_EQ(rings_agree(ev, "after the loss"), 2);
		} else {
			const struct perf_event_mmap_page *up[NSIDES] = { perf_ring_page(&ev[K]),
									   perf_ring_page(&ev[U]) };

			CHECK_EQ(outputs_agree(map, 100, "overwriting"), 100);
			CHECK_EQ(up[K]->data_head, up[U]->data_head);
			CHECK_EQ(up[U]->data_head, 100 * 80);
			CHECK(!memcmp(ev[K].base + up[K]->data_offset, ev[U].base + up[U]->data_offset,
				      4096));
		}
		for (int s = 0; s < NSIDES; s++) {
			close(map[s]);
			perf_ring_close(&ev[s]);
		}
	}
	unpin();
}

/* An event's state: disabled, enabled and disabled again with ioctl(); unmapped; another CPU's;
 * the slot after the event's fd and then the map's fd were closed (a program holds the map). */
TEST(diff_perf_event_output_states)
{
	int map[NSIDES], ev[NSIDES], prog[NSIDES], other[NSIDES];
	struct bpf_insn insns[32];
	uint32_t ret;
	int cpu;

	SKIP_WITHOUT_KERNEL_BPF();
	cpu = pin_here();
	for (int s = 0; s < NSIDES; s++) {
		uint32_t k = 0, v;

		ev[s] = perf_ring_open(s, cpu, true, false);
		other[s] = perf_ring_open(s, (cpu + 1) % userbpf_num_possible_cpus(), false, false);
		if (s == K && (ev[s] < 0 || other[s] < 0)) {
			unpin();
			SKIP("the kernel's perf_event_open(2) says %s", strerror(errno));
		}
		REQUIRE(ev[s] >= 0 && other[s] >= 0);
		map[s] = side_map_create(s, BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 2, 0).rc;
		REQUIRE(map[s] >= 0);
		v = (uint32_t)ev[s];
		REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &k, &v, 0).rc == 0);
		k = 1;
		v = (uint32_t)other[s];
		REQUIRE(side_elem(s, BPF_MAP_UPDATE_ELEM, map[s], &k, &v, 0).rc == 0);
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_XDP, insns,
					 perf_output_prog(insns, map[s], 0, 8));
		REQUIRE(prog[s] >= 0);
	}
	RUNS_AGREE("disabled, unmapped", prog, test_pkt, sizeof(test_pkt), &ret);
	CHECK_EQ((int)ret, -EOPNOTSUPP);
	for (int s = 0; s < NSIDES; s++)
		CHECK_EQ(ioctl(ev[s], PERF_EVENT_IOC_ENABLE, 0), 0);
	RUNS_AGREE("enabled, unmapped", prog, test_pkt, sizeof(test_pkt), &ret);
	CHECK_EQ((int)ret, -ENOSPC);
	for (int s = 0; s < NSIDES; s++)
		CHECK_EQ(ioctl(ev[s], PERF_EVENT_IOC_DISABLE, 0), 0);
	RUNS_AGREE("disabled again", prog, test_pkt, sizeof(test_pkt), &ret);
	CHECK_EQ((int)ret, -EOPNOTSUPP);
	if (userbpf_num_possible_cpus() > 1) {
		for (int s = 0; s < NSIDES; s++) {
			close(prog[s]);
			prog[s] = side_prog_load(s, BPF_PROG_TYPE_XDP, insns,
						 perf_output_prog(insns, map[s], 1, 8));
			REQUIRE(prog[s] >= 0);
		}
		RUNS_AGREE("another CPU's", prog, test_pkt, sizeof(test_pkt), &ret);
		CHECK_EQ((int)ret, -EOPNOTSUPP);
	}
	/* the slots hold the events; the map's last fd empties them */
	for (int s = 0; s < NSIDES; s++) {
		close(ev[s]);
		close(other[s]);
	}
	RUNS_AGREE("the events' fds closed", prog, test_pkt, sizeof(test_pkt), &ret);
	CHECK_EQ((int)ret, -EOPNOTSUPP);
	for (int s = 0; s < NSIDES; s++)
		close(map[s]);
	RUNS_AGREE("the map's fd closed", prog, test_pkt, sizeof(test_pkt), &ret);
	CHECK_EQ((int)ret, -ENOENT);
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
	unpin();
}

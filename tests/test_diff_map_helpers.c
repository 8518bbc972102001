/* Which maps go with which helpers, against the kernel: each of 28 kinds of map (every map type
 * userbpf has) given to each helper that takes a map (lookups and updates, queues, redirects,
 * tail calls, event output, ring buffers, storage, stack ids, cgroup tests, socket maps), in a
 * program type that has the helper, its other arguments well formed.  The kernel's
 * check_map_func_compatibility() decides both ways (a map type's helpers, a helper's map types):
 * the verdicts and error lines must agree.  Skipped where the kernel's bpf() is unavailable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char STRS[] = "\0int\0long";
enum { S_INT = 1, S_LONG = 5, S_END = sizeof(STRS) };
enum { INT = 1, LONG };
static const uint32_t btf_types[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32),
	T_INT(S_LONG, 8, 0, 0, 64),
};

static const struct map_kind {
	uint32_t type, ks, vs, max, flags;
	bool inner, btf; /* inner_map_fd: an array; BTF: int key, u64 value */
} kinds[] = {
	{ BPF_MAP_TYPE_HASH, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 4, 0, false, false },
	{ BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 4, 0, false, false },
	{ BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_STACK_TRACE, 4, 8 * 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_CGROUP_ARRAY, 4, 4, 4, 0, false, false },
	{ BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_LRU_PERCPU_HASH, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_LPM_TRIE, 8, 8, 4, BPF_F_NO_PREALLOC, false, false },
	{ BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 4, 0, true, false },
	{ BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 4, 0, true, false },
	{ BPF_MAP_TYPE_DEVMAP, 4, 4, 4, 0, false, false },
	{ BPF_MAP_TYPE_SOCKMAP, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_SOCKHASH, 4, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_CGROUP_STORAGE, 8, 8, 0, 0, false, false },
	{ BPF_MAP_TYPE_QUEUE, 0, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_STACK, 0, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_SK_STORAGE, 4, 8, 0, BPF_F_NO_PREALLOC, false, true },
	{ BPF_MAP_TYPE_DEVMAP_HASH, 4, 4, 4, 0, false, false },
	{ BPF_MAP_TYPE_CPUMAP, 4, 4, 2, 0, false, false },
	{ BPF_MAP_TYPE_XSKMAP, 4, 4, 2, 0, false, false },
	{ BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, false, false },
	{ BPF_MAP_TYPE_BLOOM_FILTER, 0, 8, 4, 0, false, false },
	{ BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE, 8, 8, 0, 0, false, false },
	{ BPF_MAP_TYPE_ARRAY, 4, 8, 1, BPF_F_RDONLY_PROG, false, false },
	{ BPF_MAP_TYPE_HASH, 8, 16, 4, 0, false, false },
};

/* A helper's arguments: what each register holds. */
enum arg { A_NONE, A_CTX, A_MAP, A_STACK, A_ZERO, A_EIGHT, A_SK };

static const struct {
	uint32_t id, type, eat;
	enum arg args[5];
} calls[] = {
#define TC BPF_PROG_TYPE_SCHED_CLS, 0
	{ BPF_FUNC_map_lookup_elem, TC, { A_MAP, A_STACK } },
	{ BPF_FUNC_map_update_elem, TC, { A_MAP, A_STACK, A_STACK, A_ZERO } },
	{ BPF_FUNC_map_delete_elem, TC, { A_MAP, A_STACK } },
	{ BPF_FUNC_map_push_elem, TC, { A_MAP, A_STACK, A_ZERO } },
	{ BPF_FUNC_map_pop_elem, TC, { A_MAP, A_STACK } },
	{ BPF_FUNC_map_peek_elem, TC, { A_MAP, A_STACK } },
	{ BPF_FUNC_map_lookup_percpu_elem, TC, { A_MAP, A_STACK, A_ZERO } },
	{ BPF_FUNC_redirect_map, BPF_PROG_TYPE_XDP, 0, { A_MAP, A_ZERO, A_ZERO } },
	{ BPF_FUNC_tail_call, TC, { A_CTX, A_MAP, A_ZERO } },
	{ BPF_FUNC_perf_event_output, TC, { A_CTX, A_MAP, A_ZERO, A_STACK, A_EIGHT } },
	{ BPF_FUNC_skb_under_cgroup, TC, { A_CTX, A_MAP, A_ZERO } },
	{ BPF_FUNC_ringbuf_output, TC, { A_MAP, A_STACK, A_EIGHT, A_ZERO } },
	{ BPF_FUNC_ringbuf_query, TC, { A_MAP, A_ZERO } },
	{ BPF_FUNC_sk_storage_get, TC, { A_MAP, A_SK, A_ZERO, A_ZERO } },
	{ BPF_FUNC_sk_storage_delete, TC, { A_MAP, A_SK } },
	{ BPF_FUNC_get_local_storage, BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS,
	  { A_MAP, A_ZERO } },
	{ BPF_FUNC_get_stackid, BPF_PROG_TYPE_KPROBE, 0, { A_CTX, A_MAP, A_ZERO } },
	{ BPF_FUNC_current_task_under_cgroup, BPF_PROG_TYPE_KPROBE, 0, { A_MAP, A_ZERO } },
	{ BPF_FUNC_sock_map_update, BPF_PROG_TYPE_SOCK_OPS, BPF_CGROUP_SOCK_OPS,
	  { A_CTX, A_MAP, A_STACK, A_ZERO } },
	{ BPF_FUNC_sock_hash_update, BPF_PROG_TYPE_SOCK_OPS, BPF_CGROUP_SOCK_OPS,
	  { A_CTX, A_MAP, A_STACK, A_ZERO } },
	{ BPF_FUNC_sk_redirect_map, BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_VERDICT,
	  { A_CTX, A_MAP, A_ZERO, A_ZERO } },
	{ BPF_FUNC_sk_redirect_hash, BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_VERDICT,
	  { A_CTX, A_MAP, A_STACK, A_ZERO } },
	{ BPF_FUNC_msg_redirect_map, BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT,
	  { A_CTX, A_MAP, A_ZERO, A_ZERO } },
	{ BPF_FUNC_msg_redirect_hash, BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT,
	  { A_CTX, A_MAP, A_STACK, A_ZERO } },
	/* the map given to another kind of argument */
	{ BPF_FUNC_trace_printk, TC, { A_MAP, A_EIGHT } },
#undef TC
};

/* r6 = ctx, 16 zeroed stack bytes at fp - 16, r7 = skb->sk (NULL: exit) when an argument is a
 * socket, the arguments, the call, r0 = 1. */
static uint32_t build(struct bpf_insn *p, uint32_t id, const enum arg args[5], int map_fd)
{
	uint32_t n = 0, skip = 0;
	bool sk = false;

	for (int i = 0; i < 5; i++)
		sk |= args[i] == A_SK;
	p[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -16, 0);
	p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0);
	if (sk) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_1, offsetof(struct __sk_buff, sk));
		skip = n;
		p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_7, 0, 0);
	}
	for (int i = 0; i < 5; i++) {
		int r = BPF_REG_1 + i;

		switch (args[i]) {
		case A_NONE:
			break;
		case A_CTX:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_6);
			break;
		case A_MAP: {
			struct bpf_insn ld[2] = { BPF_LD_MAP_FD(r, map_fd) };

			p[n++] = ld[0];
			p[n++] = ld[1];
			break;
		}
		case A_STACK:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_10);
			p[n++] = BPF_ALU64_IMM(BPF_ADD, r, -16);
			break;
		case A_ZERO:
			p[n++] = BPF_MOV64_IMM(r, 0);
			break;
		case A_EIGHT:
			p[n++] = BPF_MOV64_IMM(r, 8);
			break;
		case A_SK:
			p[n++] = BPF_MOV64_REG(r, BPF_REG_7);
			break;
		}
	}
	p[n++] = BPF_EMIT_CALL(id);
	if (sk)
		p[skip].off = (short)(n - skip - 1);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 1);
	p[n++] = BPF_EXIT_INSN();
	return n;
}

static int create(int s, const struct map_kind *k, int inner, int btf)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = k->type;
	a.key_size = k->ks;
	a.value_size = k->vs;
	a.max_entries = k->max;
	a.map_flags = k->flags;
	a.inner_map_fd = k->inner ? (uint32_t)inner : 0;
	if (k->btf) {
		a.btf_fd = (uint32_t)btf;
		a.btf_key_type_id = INT;
		a.btf_value_type_id = LONG;
	}
	return side_call(s, BPF_MAP_CREATE, &a).rc;
}

TEST(diff_map_helpers)
{
	int inner[NSIDES], btf[NSIDES], fd[N(kinds)][NSIDES], accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (int s = 0; s < NSIDES; s++) {
		inner[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, 4, 1, 0).rc;
		btf[s] = side_btf_load(s, btf_types, N(btf_types), STRS, S_END);
		REQUIRE(inner[s] >= 0 && btf[s] >= 0);
		for (size_t m = 0; m < N(kinds); m++) {
			fd[m][s] = create(s, &kinds[m], inner[s], btf[s]);
			if (fd[m][s] < 0)
				test_fail(__FILE__, __LINE__, "side %d: map type %u: %s", s,
					  kinds[m].type, strerror(errno));
		}
	}
	for (size_t m = 0; m < N(kinds); m++) {
		if (fd[m][K] < 0 || fd[m][U] < 0)
			continue;
		for (size_t c = 0; c < N(calls); c++) {
			struct bpf_insn insns[NSIDES][32];
			char what[80];
			uint32_t n = 0;

			for (int s = 0; s < NSIDES; s++)
				n = build(insns[s], calls[c].id, calls[c].args, fd[m][s]);
			snprintf(what, sizeof(what), "map type %u (%zu) to helper %u", kinds[m].type,
				 m, calls[c].id);
			accepted += verdicts_agree_eat_at(__FILE__, __LINE__, what, calls[c].type,
							  calls[c].eat, insns[K], insns[U], n);
		}
	}
	if (getenv("TEST_VERBOSE"))
		printf("diff_map_helpers: %zu programs, %d accepted\n", N(kinds) * N(calls),
		       accepted);
	CHECK(accepted >= 40);
	for (int s = 0; s < NSIDES; s++) {
		for (size_t m = 0; m < N(kinds); m++)
			if (fd[m][s] >= 0)
				close(fd[m][s]);
		close(inner[s]);
		close(btf[s]);
	}
}

/* An XDP program (flags: prog_flags, eat: its attach type) whose only work is a map helper on
 * map: redirect_map for a device map, a tail call for a program array; or a tc program that
 * looks the map up (tc). */
static struct bpf_result load_user(int s, int map, uint32_t type, uint32_t eat, uint32_t flags)
{
	struct bpf_insn insns[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_LD_MAP_FD(BPF_REG_2, map),
		BPF_EMIT_CALL(BPF_FUNC_tail_call), /* (replaced below) */
		BPF_MOV64_IMM(BPF_REG_0, 2),
		BPF_EXIT_INSN(),
	};
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	side_obj_info(s, map, &info, &len);
	if (type == BPF_PROG_TYPE_SCHED_CLS) { /* lookup(map, fp - 4) */
		insns[1].dst_reg = BPF_REG_1;
		insns[3] = BPF_MOV64_REG(BPF_REG_2, BPF_REG_10);
		insns[4] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4);
	} else if (info.type != BPF_MAP_TYPE_PROG_ARRAY) { /* redirect_map(map, 0, 0) */
		insns[1].dst_reg = BPF_REG_1;
		insns[3] = BPF_MOV64_IMM(BPF_REG_2, 0);
		insns[4] = BPF_MOV64_IMM(BPF_REG_3, 0);
	} else { /* tail_call(ctx, map, 0) */
		insns[3] = BPF_MOV64_IMM(BPF_REG_3, 0);
		insns[4] = BPF_MOV64_IMM(BPF_REG_0, 0);
	}
	{
		struct bpf_insn prog[] = {
			insns[0], insns[1], insns[2], insns[3], insns[4],
			BPF_EMIT_CALL(type == BPF_PROG_TYPE_SCHED_CLS ? BPF_FUNC_map_lookup_elem
				      : info.type == BPF_MAP_TYPE_PROG_ARRAY ? BPF_FUNC_tail_call
									    : BPF_FUNC_redirect_map),
			BPF_MOV64_IMM(BPF_REG_0, 2),
			BPF_EXIT_INSN(),
		};

		memset(&a, 0, sizeof(a));
		a.prog_type = type;
		a.expected_attach_type = eat;
		a.prog_flags = flags;
		a.insns = PTR_TO_U64(prog);
		a.insn_cnt = N(prog);
		a.license = PTR_TO_U64("GPL");
		return side_call(s, BPF_PROG_LOAD, &a);
	}
}

/* The first program to use a device map or a program array makes the map its own (type,
 * compiled or not, XDP fragments; in a program array the attach type too); a device map's
 * entries are held to it as well.  A hashed device map is not checked at load. */
TEST(diff_map_owner)
{
	static const struct {
		const char *what;
		uint32_t map;
		struct { uint32_t type, eat, flags; } first, second;
	} cases[] = {
		{ "devmap: tc, then XDP", BPF_MAP_TYPE_DEVMAP,
		  { BPF_PROG_TYPE_SCHED_CLS, 0, 0 }, { BPF_PROG_TYPE_XDP, 0, 0 } },
		{ "devmap: XDP, then XDP with frags", BPF_MAP_TYPE_DEVMAP,
		  { BPF_PROG_TYPE_XDP, 0, 0 }, { BPF_PROG_TYPE_XDP, 0, BPF_F_XDP_HAS_FRAGS } },
		{ "devmap: XDP, then an XDP devmap program", BPF_MAP_TYPE_DEVMAP,
		  { BPF_PROG_TYPE_XDP, 0, 0 }, { BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP, 0 } },
		{ "devmap_hash: tc, then XDP", BPF_MAP_TYPE_DEVMAP_HASH,
		  { BPF_PROG_TYPE_SCHED_CLS, 0, 0 }, { BPF_PROG_TYPE_XDP, 0, 0 } },
		{ "prog array: XDP, then an XDP devmap program", BPF_MAP_TYPE_PROG_ARRAY,
		  { BPF_PROG_TYPE_XDP, 0, 0 }, { BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP, 0 } },
		{ "prog array: XDP, then XDP with frags", BPF_MAP_TYPE_PROG_ARRAY,
		  { BPF_PROG_TYPE_XDP, 0, 0 }, { BPF_PROG_TYPE_XDP, 0, BPF_F_XDP_HAS_FRAGS } },
		{ "prog array: XDP, then XDP", BPF_MAP_TYPE_PROG_ARRAY,
		  { BPF_PROG_TYPE_XDP, 0, 0 }, { BPF_PROG_TYPE_XDP, 0, 0 } },
	};

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t c = 0; c < N(cases); c++) {
		struct bpf_result first[NSIDES], second[NSIDES];
		int map[NSIDES];

		for (int s = 0; s < NSIDES; s++) {
			map[s] = side_map_create(s, cases[c].map, 4, 4, 4, 0).rc;
			REQUIRE(map[s] >= 0);
			first[s] = load_user(s, map[s], cases[c].first.type, cases[c].first.eat,
					     cases[c].first.flags);
			second[s] = load_user(s, map[s], cases[c].second.type, cases[c].second.eat,
					      cases[c].second.flags);
		}
		AGREE(cases[c].what, first);
		CHECK(first[U].rc >= 0);
		AGREE(cases[c].what, second);
		for (int s = 0; s < NSIDES; s++) {
			if (first[s].rc >= 0)
				close(first[s].rc);
			if (second[s].rc >= 0)
				close(second[s].rc);
			close(map[s]);
		}
	}
}

/* A device map's entry program is held to the map's owner too: a tc program owns the map, so an
 * XDP devmap program may not go in; with an XDP owner it may. */
TEST(diff_map_owner_devmap_entries)
{
	const struct bpf_insn ret2[] = { BPF_MOV64_IMM(BPF_REG_0, 2), BPF_EXIT_INSN() };

	for (int owner_tc = 0; owner_tc < 2; owner_tc++) {
		struct bpf_result r[NSIDES];
		int fds[NSIDES][3];

		SKIP_WITHOUT_KERNEL_BPF();
		for (int s = 0; s < NSIDES; s++) {
			struct bpf_devmap_val v = { .ifindex = 1 }; /* lo */
			uint32_t key = 0;

			fds[s][0] = side_map_create(s, BPF_MAP_TYPE_DEVMAP, 4, sizeof(v), 4, 0).rc;
			REQUIRE(fds[s][0] >= 0);
			fds[s][1] = load_user(s, fds[s][0], owner_tc ? BPF_PROG_TYPE_SCHED_CLS
								    : BPF_PROG_TYPE_XDP, 0, 0).rc;
			fds[s][2] = side_prog_load_eat_log(s, BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP, ret2,
							   N(ret2), NULL, 0).rc;
			CHECK(fds[s][1] >= 0 && fds[s][2] >= 0);
			v.bpf_prog.fd = fds[s][2];
			r[s] = side_elem(s, BPF_MAP_UPDATE_ELEM, fds[s][0], &key, &v, 0);
		}
		AGREE(owner_tc ? "a devmap program into a tc-owned devmap"
			       : "a devmap program into an XDP-owned devmap", r);
		CHECK_EQ(r[U].rc, -owner_tc);
		for (int s = 0; s < NSIDES; s++)
			for (int i = 2; i >= 0; i--)
				if (fds[s][i] >= 0)
					close(fds[s][i]);
	}
}

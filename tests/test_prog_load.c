/* BPF_PROG_LOAD: attr rules, compared with the live kernel, and program lifetime.
 *
 * Each case builds one attr from a valid socket filter and changes one thing; both sides get the
 * same attr and must agree on success or on errno.  The kernel side SKIPs where the kernel's
 * bpf() is unavailable.  Cases that only userbpf can run (it refuses program types it does not
 * have; what the verifier records) are checked on their own.
 */
#include <fcntl.h>

#include "prog_struct.h"
#include "test_prog.h"

static struct bpf_insn ret0[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
static char long_license[200];

struct load_case {
	const char *name;
	void (*edit)(union bpf_attr *a);
};

#define EDIT(fn, ...)                                                                            \
	static void fn(union bpf_attr *a)                                                        \
	{                                                                                        \
		__VA_ARGS__;                                                                     \
	}

EDIT(e_none, (void)a)
EDIT(e_cnt0, a->insn_cnt = 0)
/* the kernel refuses the count before reading, but valgrind checks the whole range */
static struct bpf_insn many_insns[1000001];
EDIT(e_cnt_big, a->insn_cnt = 1000001; a->insns = (uintptr_t)many_insns)
EDIT(e_cnt_max, a->insn_cnt = 1000000; a->insns = 0)
EDIT(e_insns_null, a->insns = 0)
EDIT(e_license_null, a->license = 0)
EDIT(e_license_long, a->license = (uintptr_t)long_license)
EDIT(e_license_mit, a->license = (uintptr_t) "MIT")
EDIT(e_license_empty, a->license = (uintptr_t) "")
EDIT(e_flag_unknown, a->prog_flags = 1u << 8)
EDIT(e_flag_high, a->prog_flags = 1u << 31)
EDIT(e_flag_strict, a->prog_flags = BPF_F_STRICT_ALIGNMENT)
EDIT(e_flag_any, a->prog_flags = BPF_F_ANY_ALIGNMENT)
EDIT(e_flag_hi32, a->prog_flags = BPF_F_TEST_RND_HI32)
EDIT(e_flag_freq, a->prog_flags = BPF_F_TEST_STATE_FREQ)
EDIT(e_flag_frags, a->prog_flags = BPF_F_XDP_HAS_FRAGS)
EDIT(e_flag_frags_xdp, a->prog_flags = BPF_F_XDP_HAS_FRAGS; a->prog_type = BPF_PROG_TYPE_XDP)
EDIT(e_flag_devbound, a->prog_flags = 1u << 6)
EDIT(e_flag_devbound_xdp, a->prog_flags = 1u << 6; a->prog_type = BPF_PROG_TYPE_XDP)
EDIT(e_flag_reginv, a->prog_flags = 1u << 7)
EDIT(e_flag_token, a->prog_flags = 1u << 16)
EDIT(e_flag_bad_insns_null, a->prog_flags = 1u << 9; a->insns = 0)
EDIT(e_cnt0_bad_flag, a->prog_flags = 1u << 9; a->insn_cnt = 0)
EDIT(e_cnt0_insns_null, a->insn_cnt = 0; a->insns = 0)
EDIT(e_name_ok, memcpy(a->prog_name, "ab_1.Z", 7))
EDIT(e_name_dash, memcpy(a->prog_name, "a-b", 4))
EDIT(e_name_full, memset(a->prog_name, 'a', sizeof(a->prog_name)))
EDIT(e_name_15, memset(a->prog_name, 'a', sizeof(a->prog_name) - 1))
EDIT(e_name_after_nul, a->prog_name[0] = 'a'; a->prog_name[2] = '-')
EDIT(e_kver, a->kern_version = 0x12345678)
EDIT(e_type_kprobe, a->prog_type = BPF_PROG_TYPE_KPROBE)
EDIT(e_type_tp, a->prog_type = BPF_PROG_TYPE_TRACEPOINT)
EDIT(e_type_xdp, a->prog_type = BPF_PROG_TYPE_XDP)
EDIT(e_type_cls, a->prog_type = BPF_PROG_TYPE_SCHED_CLS)
EDIT(e_type_unspec, a->prog_type = BPF_PROG_TYPE_UNSPEC)
EDIT(e_type_huge, a->prog_type = 1000)
EDIT(e_type_huge_insns_null, a->prog_type = 1000; a->insns = 0)
EDIT(e_type_huge_bad_name, a->prog_type = 1000; a->prog_name[0] = '-')
EDIT(e_eat_sf, a->expected_attach_type = BPF_CGROUP_INET_EGRESS)
EDIT(e_eat_sf_huge, a->expected_attach_type = 1000)
EDIT(e_eat_xdp_devmap, a->prog_type = BPF_PROG_TYPE_XDP; a->expected_attach_type = BPF_XDP_DEVMAP)
EDIT(e_eat_xdp_cpumap, a->prog_type = BPF_PROG_TYPE_XDP; a->expected_attach_type = BPF_XDP_CPUMAP)
EDIT(e_eat_xdp_huge, a->prog_type = BPF_PROG_TYPE_XDP; a->expected_attach_type = 1000)
EDIT(e_eat_cls, a->prog_type = BPF_PROG_TYPE_SCHED_CLS; a->expected_attach_type = BPF_XDP)
EDIT(e_eat_kprobe_multi, a->prog_type = BPF_PROG_TYPE_KPROBE; a->expected_attach_type = 42)
EDIT(e_eat_kprobe_other, a->prog_type = BPF_PROG_TYPE_KPROBE; a->expected_attach_type = 1)
EDIT(e_eat_tp, a->prog_type = BPF_PROG_TYPE_TRACEPOINT; a->expected_attach_type = 1)
EDIT(e_sleep_sf, a->prog_flags = BPF_F_SLEEPABLE)
EDIT(e_sleep_xdp, a->prog_type = BPF_PROG_TYPE_XDP; a->prog_flags = BPF_F_SLEEPABLE)
EDIT(e_sleep_kprobe, a->prog_type = BPF_PROG_TYPE_KPROBE; a->prog_flags = BPF_F_SLEEPABLE)
EDIT(e_sleep_tp, a->prog_type = BPF_PROG_TYPE_TRACEPOINT; a->prog_flags = BPF_F_SLEEPABLE)
EDIT(e_sleep_cgskb, a->prog_type = BPF_PROG_TYPE_CGROUP_SKB; a->prog_flags = BPF_F_SLEEPABLE)
EDIT(e_eat_cgskb_in, a->prog_type = BPF_PROG_TYPE_CGROUP_SKB;
     a->expected_attach_type = BPF_CGROUP_INET_INGRESS)
EDIT(e_eat_cgskb_eg, a->prog_type = BPF_PROG_TYPE_CGROUP_SKB;
     a->expected_attach_type = BPF_CGROUP_INET_EGRESS)
EDIT(e_eat_cgskb_xdp, a->prog_type = BPF_PROG_TYPE_CGROUP_SKB; a->expected_attach_type = BPF_XDP)
EDIT(e_eat_cgskb_sock, a->prog_type = BPF_PROG_TYPE_CGROUP_SKB;
     a->expected_attach_type = BPF_CGROUP_INET_SOCK_CREATE)
EDIT(e_eat_rawtp, a->prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT; a->expected_attach_type = 5)
EDIT(e_attach_prog_fd_bad, a->attach_prog_fd = 9999)
EDIT(e_attach_prog_fd_stdin, a->attach_prog_fd = 0; a->attach_btf_id = 1)
EDIT(e_attach_btf_id, a->attach_btf_id = 1)
EDIT(e_attach_btf_id_huge, a->attach_btf_id = 0x100000)
EDIT(e_ifindex_sf, a->prog_ifindex = 1)
EDIT(e_ifindex_xdp_lo, a->prog_ifindex = 1; a->prog_type = BPF_PROG_TYPE_XDP)
EDIT(e_ifindex_xdp_none, a->prog_ifindex = 99999; a->prog_type = BPF_PROG_TYPE_XDP)
EDIT(e_ifindex_cls_lo, a->prog_ifindex = 1; a->prog_type = BPF_PROG_TYPE_SCHED_CLS)
EDIT(e_log_true_size, *(u_int32_t *)((char *)a + 140) = 77)
static struct bpf_insn map_fd_9999[] = {
	BPF_LD_MAP_FD(BPF_REG_1, 9999),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};
static struct bpf_insn map_fd_stdin[] = {
	BPF_LD_MAP_FD(BPF_REG_1, 0),
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};
EDIT(e_map_fd_bad, a->insns = (uintptr_t)map_fd_9999; a->insn_cnt = 4)
EDIT(e_map_fd_stdin, a->insns = (uintptr_t)map_fd_stdin; a->insn_cnt = 4)

static const struct load_case load_cases[] = {
	{ "valid", e_none },
	{ "insn_cnt 0", e_cnt0 },
	{ "insn_cnt 1000001", e_cnt_big },
	{ "insn_cnt 1000000, insns NULL", e_cnt_max },
	{ "insns NULL", e_insns_null },
	{ "license NULL", e_license_null },
	{ "license 199 bytes", e_license_long },
	{ "license MIT", e_license_mit },
	{ "license empty", e_license_empty },
	{ "prog_flags bit 8", e_flag_unknown },
	{ "prog_flags bit 31", e_flag_high },
	{ "STRICT_ALIGNMENT", e_flag_strict },
	{ "ANY_ALIGNMENT", e_flag_any },
	{ "TEST_RND_HI32", e_flag_hi32 },
	{ "TEST_STATE_FREQ", e_flag_freq },
	{ "XDP_HAS_FRAGS on a socket filter", e_flag_frags },
	{ "XDP_HAS_FRAGS on XDP", e_flag_frags_xdp },
	{ "XDP_DEV_BOUND_ONLY without ifindex", e_flag_devbound },
	{ "XDP_DEV_BOUND_ONLY on XDP without ifindex", e_flag_devbound_xdp },
	{ "TEST_REG_INVARIANTS", e_flag_reginv },
	{ "TOKEN_FD", e_flag_token },
	{ "bad flag before NULL insns", e_flag_bad_insns_null },
	{ "bad flag before insn_cnt 0", e_cnt0_bad_flag },
	{ "insn_cnt 0 before NULL insns", e_cnt0_insns_null },
	{ "name ab_1.Z", e_name_ok },
	{ "name a-b", e_name_dash },
	{ "name 16 chars", e_name_full },
	{ "name 15 chars", e_name_15 },
	{ "name bad char after NUL", e_name_after_nul },
	{ "kern_version", e_kver },
	{ "type KPROBE", e_type_kprobe },
	{ "type TRACEPOINT", e_type_tp },
	{ "type XDP", e_type_xdp },
	{ "type SCHED_CLS", e_type_cls },
	{ "type UNSPEC", e_type_unspec },
	{ "type 1000", e_type_huge },
	{ "type 1000, insns NULL", e_type_huge_insns_null },
	{ "type 1000, bad name", e_type_huge_bad_name },
	{ "socket filter, attach type CGROUP_INET_EGRESS", e_eat_sf },
	{ "socket filter, attach type 1000", e_eat_sf_huge },
	{ "XDP, attach type XDP_DEVMAP", e_eat_xdp_devmap },
	{ "XDP, attach type XDP_CPUMAP", e_eat_xdp_cpumap },
	{ "XDP, attach type 1000", e_eat_xdp_huge },
	{ "SCHED_CLS, attach type XDP", e_eat_cls },
	{ "KPROBE, attach type 42 (kprobe_multi)", e_eat_kprobe_multi },
	{ "CGROUP_SKB, attach type INET_INGRESS", e_eat_cgskb_in },
	{ "CGROUP_SKB, attach type INET_EGRESS", e_eat_cgskb_eg },
	{ "CGROUP_SKB, attach type XDP", e_eat_cgskb_xdp },
	{ "CGROUP_SKB, attach type INET_SOCK_CREATE", e_eat_cgskb_sock },
	{ "RAW_TRACEPOINT, attach type 5", e_eat_rawtp },
	{ "KPROBE, attach type 1", e_eat_kprobe_other },
	{ "TRACEPOINT, attach type 1", e_eat_tp },
	{ "SOCKET_FILTER, sleepable", e_sleep_sf },
	{ "XDP, sleepable", e_sleep_xdp },
	{ "KPROBE, sleepable", e_sleep_kprobe },
	{ "TRACEPOINT, sleepable", e_sleep_tp },
	{ "CGROUP_SKB, sleepable", e_sleep_cgskb },
	{ "attach_prog_fd not open", e_attach_prog_fd_bad },
	{ "attach_btf_id 1 with fd 0", e_attach_prog_fd_stdin },
	{ "attach_btf_id 1", e_attach_btf_id },
	{ "attach_btf_id above BTF_MAX_TYPE", e_attach_btf_id_huge },
	{ "prog_ifindex on a socket filter", e_ifindex_sf },
	{ "prog_ifindex lo, XDP", e_ifindex_xdp_lo },
	{ "prog_ifindex missing, XDP", e_ifindex_xdp_none },
	{ "prog_ifindex lo, SCHED_CLS", e_ifindex_cls_lo },
	{ "log_true_size non-zero", e_log_true_size },
	{ "map fd not open", e_map_fd_bad },
	{ "map fd 0 (not a map)", e_map_fd_stdin },
};

static int load_with(const struct side *s, const struct load_case *c, int *err)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uintptr_t)ret0;
	a.insn_cnt = 2;
	a.license = (uintptr_t) "GPL";
	c->edit(&a);
	errno = 0;
	fd = s->bpf(BPF_PROG_LOAD, &a, sizeof(a));
	*err = errno;
	if (fd >= 0)
		close(fd);
	return fd;
}

TEST(prog_load_attr_vs_kernel)
{
	int agree = 0;

	REQUIRE_KERNEL();
	memset(long_license, 'G', sizeof(long_license) - 1);
	for (size_t i = 0; i < ARRAY_SIZE(load_cases); i++) {
		const struct load_case *c = &load_cases[i];
		int ue, ke, u = load_with(&side_user, c, &ue), k = load_with(&side_kern, c, &ke);

		if (getenv("TEST_VERBOSE"))
			printf("  %-45s userbpf %-24s kernel %s\n", c->name,
			       u >= 0 ? "ok" : strerror(ue), k >= 0 ? "ok" : strerror(ke));
		if ((u >= 0) != (k >= 0) || (u < 0 && ue != ke))
			test_fail(__FILE__, __LINE__, "%s: userbpf %s, kernel %s", c->name,
				  u >= 0 ? "ok" : strerror(ue), k >= 0 ? "ok" : strerror(ke));
		else
			agree++;
	}
	if (getenv("TEST_VERBOSE"))
		printf("prog_load_attr_vs_kernel: %d/%zu cases agree\n", agree,
		       ARRAY_SIZE(load_cases));
}

/* Bytes after the last field, and a size beyond the union. */
TEST(prog_load_tail)
{
	struct {
		union bpf_attr a;
		char extra[64];
	} big;

	memset(&big, 0, sizeof(big));
	big.a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	big.a.insns = (uintptr_t)ret0;
	big.a.insn_cnt = 2;
	big.a.license = (uintptr_t) "GPL";
	/* past the kernel's 168-byte union: E2BIG */
	big.extra[168 - sizeof(big.a) + 3] = 1;
	CHECK_ERRNO(bpf(BPF_PROG_LOAD, &big.a, sizeof(big)), E2BIG);
	big.extra[168 - sizeof(big.a) + 3] = 0;
	/* 6.18 fields past our header: fd_array_cnt without an array, a signature */
	big.extra[148 - sizeof(big.a)] = 1;
	CHECK_ERRNO(bpf(BPF_PROG_LOAD, &big.a, sizeof(big)), EFAULT);
	big.extra[148 - sizeof(big.a)] = 0;
	big.extra[152 - sizeof(big.a)] = 1;
	CHECK_ERRNO(bpf(BPF_PROG_LOAD, &big.a, sizeof(big)), EOPNOTSUPP);
	big.extra[152 - sizeof(big.a)] = 0;
	/* prog_token_fd without BPF_F_TOKEN_FD, log_true_size: ignored */
	big.extra[144 - sizeof(big.a)] = 1;
	int fd = bpf(BPF_PROG_LOAD, &big.a, sizeof(big));
	CHECK(fd >= 0);
	close(fd);
	big.extra[144 - sizeof(big.a)] = 0;
	/* a short attr: fields not passed are zero (no license: EFAULT) */
	CHECK_ERRNO(bpf(BPF_PROG_LOAD, &big.a, offsetof(union bpf_attr, license)), EFAULT);
}

/* Program types the kernel has and userbpf does not are refused as unknown types. */
TEST(prog_load_unsupported_types)
{
	static const u_int32_t types[] = { BPF_PROG_TYPE_LWT_SEG6LOCAL,
					   BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE,
					   BPF_PROG_TYPE_LIRC_MODE2, BPF_PROG_TYPE_SYSCALL };
	union bpf_attr a;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		memset(&a, 0, sizeof(a));
		a.prog_type = types[i];
		a.insns = (uintptr_t)ret0;
		a.insn_cnt = 2;
		a.license = (uintptr_t) "GPL";
		CHECK_ERRNO(bpf(BPF_PROG_LOAD, &a, sizeof(a)), EINVAL);
	}
}

/* What the program records: the license's GPL compatibility (the kernel's list), the name,
 * the type and flags. */
TEST(prog_load_records)
{
	static const struct {
		const char *license;
		bool gpl;
	} lic[] = {
		{ "GPL", true },	  { "GPL v2", true },	    { "GPL and additional rights", true },
		{ "Dual BSD/GPL", true }, { "Dual MIT/GPL", true }, { "Dual MPL/GPL", true },
		{ "GPLv2", false },	  { "gpl", false },	    { "GPL ", false },
		{ "Proprietary", false }, { "", false },
	};
	union bpf_attr a;

	for (size_t i = 0; i < ARRAY_SIZE(lic); i++) {
		struct bpf_prog *p;
		int fd;

		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_XDP;
		a.insns = (uintptr_t)ret0;
		a.insn_cnt = 2;
		a.license = (uintptr_t)lic[i].license;
		a.prog_flags = BPF_F_TEST_RND_HI32;
		memcpy(a.prog_name, "xdp_prog", 9);
		fd = bpf(BPF_PROG_LOAD, &a, sizeof(a));
		REQUIRE(fd >= 0);
		p = prog_struct_of_fd(fd);
		REQUIRE(p);
		CHECK_EQ(p->gpl_compatible, lic[i].gpl);
		CHECK_EQ(p->type, BPF_PROG_TYPE_XDP);
		CHECK_EQ(p->prog_flags, BPF_F_TEST_RND_HI32);
		CHECK(!strcmp(p->name, "xdp_prog"));
		close(fd);
	}
}

/* A loaded program keeps the maps it uses alive after their fds are closed, and releases them
 * when it goes; a failed load leaks nothing. */
TEST(prog_load_holds_maps)
{
	struct bpf_insn insns[] = {
		BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
		BPF_MOV64_IMM(BPF_REG_0, 0),
		BPF_EXIT_INSN(),
	};
	unsigned live = obj_live_count();
	int map_fd, fd, fd2;

	map_fd = map_create_on(&side_user, BPF_MAP_TYPE_ARRAY, 4, 8, 4);
	REQUIRE(map_fd >= 0);
	fd = prog_load_on(&side_user, BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns),
			  map_fd);
	REQUIRE(fd >= 0);
	fd2 = prog_load_on(&side_user, BPF_PROG_TYPE_SOCKET_FILTER, insns, ARRAY_SIZE(insns),
			   map_fd);
	REQUIRE(fd2 >= 0);
	CHECK_EQ(obj_live_count(), live + 3);
	close(map_fd);
	CHECK_EQ(obj_live_count(), live + 3); /* the programs still hold the map */
	close(fd);
	CHECK_EQ(obj_live_count(), live + 2);
	close(fd2);
	CHECK_EQ(obj_live_count(), live);

	/* failures: bad type after the map was resolved? no, the type is checked first; so use
	 * a failing interp_prepare (unknown helper) after the map reference was taken */
	map_fd = map_create_on(&side_user, BPF_MAP_TYPE_HASH, 4, 8, 4);
	REQUIRE(map_fd >= 0);
	struct bpf_insn bad[] = {
		BPF_LD_MAP_FD(BPF_REG_1, MAP_SLOT),
		BPF_EMIT_CALL(BPF_FUNC_skb_store_bytes), /* not for socket filters */
		BPF_EXIT_INSN(),
	};
	CHECK_ERRNO(prog_load_on(&side_user, BPF_PROG_TYPE_SOCKET_FILTER, bad, ARRAY_SIZE(bad),
				 map_fd), EINVAL);
	close(map_fd);
	CHECK_EQ(obj_live_count(), live);
}

/* A program fd is an OBJ_PROG: map commands on it are EINVAL, and it is a real fd. */
TEST(prog_fd_is_fd)
{
	int fd = prog_load_on(&side_user, BPF_PROG_TYPE_SOCKET_FILTER, ret0, 2, -1);
	union bpf_attr a;
	char path[64], target[64];
	ssize_t n;

	REQUIRE(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	CHECK_ERRNO(bpf(BPF_MAP_DELETE_ELEM, &a, sizeof(a)), EINVAL);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	REQUIRE(n > 0);
	target[n] = 0;
	CHECK(strstr(target, "bpf-prog") != NULL);
	CHECK(fcntl(fd, F_GETFD) >= 0);
	close(fd);
}

/* Backends for differential tests (see kbpf.h): userbpf's bpf() and the kernel's bpf() system
 * call, plus a cached probe of whether the kernel's bpf() can be used at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf/insn.h"


static int under_valgrind = -1;

static int kernel_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	if (under_valgrind < 0)
		under_valgrind = getenv("USERBPF_VALGRIND") != NULL;
	/* valgrind's own bpf() wrapper dereferences attr and crashes on NULL.  The kernel reads no
	 * byte of a size-0 attr, so a zeroed one is the same call; with a size it answers EFAULT
	 * before reading anything (pinned by the runs outside valgrind). */
	if (under_valgrind && !attr) {
		static union bpf_attr zero;

		if (size) {
			errno = EFAULT;
			return -1;
		}
		attr = &zero;
	}
	return (int)syscall(__NR_bpf, cmd, attr, size);
}

const struct bpf_backend backend_userbpf = { "userbpf", bpf };
const struct bpf_backend backend_kernel = { "kernel", kernel_bpf };

struct bpf_result backend_call(const struct bpf_backend *be, int cmd, void *attr,
			       unsigned int size)
{
	struct bpf_result r;

	errno = 0;
	r.rc = be->bpf(cmd, attr, size);
	r.err = r.rc < 0 ? errno : 0;
	return r;
}

const struct bpf_backend *const diff_sides[NSIDES] = { &backend_kernel, &backend_userbpf };

struct bpf_result side_call(int s, int cmd, union bpf_attr *attr)
{
	return backend_call(diff_sides[s], cmd, attr, sizeof(*attr));
}

struct bpf_result side_map_create(int s, uint32_t type, uint32_t key_size, uint32_t value_size,
				  uint32_t max_entries, uint32_t flags)
{
	return side_map_create_btf(s, type, key_size, value_size, max_entries, flags, 0, 0, 0);
}

struct bpf_result side_map_create_btf(int s, uint32_t type, uint32_t key_size, uint32_t value_size,
				      uint32_t max_entries, uint32_t flags, int btf,
				      uint32_t key_id, uint32_t value_id)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key_size;
	a.value_size = value_size;
	a.max_entries = max_entries;
	a.map_flags = flags;
	a.btf_fd = (uint32_t)btf;
	a.btf_key_type_id = key_id;
	a.btf_value_type_id = value_id;
	return side_call(s, BPF_MAP_CREATE, &a);
}

int side_prog_load(int s, uint32_t type, const struct bpf_insn *insns, uint32_t cnt)
{
	return side_prog_load_log(s, type, insns, cnt, NULL, 0).rc;
}

struct bpf_result side_test_run_ctx(int s, int prog_fd, const void *pkt, uint32_t len,
				    uint32_t repeat, const void *ctx_in, uint32_t ctx_in_size,
				    void *ctx_out, uint32_t ctx_out_size, uint32_t *retval)
{
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog_fd;
	a.test.data_in = PTR_TO_U64(pkt);
	a.test.data_size_in = len;
	a.test.repeat = repeat;
	a.test.ctx_in = PTR_TO_U64(ctx_in);
	a.test.ctx_size_in = ctx_in ? ctx_in_size : 0;
	a.test.ctx_out = PTR_TO_U64(ctx_out);
	a.test.ctx_size_out = ctx_out_size;
	r = side_call(s, BPF_PROG_TEST_RUN, &a);
	*retval = a.test.retval;
	return r;
}

int side_btf_load(int s, const uint32_t *types, uint32_t nwords, const char *strs,
		  uint32_t strs_len)
{
	struct blob b = btf_blob(types, nwords, strs, strs_len);
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.btf = PTR_TO_U64(b.data);
	a.btf_size = b.size;
	fd = side_call(s, BPF_BTF_LOAD, &a).rc;
	free(b.data);
	return fd;
}

struct bpf_result side_test_run(int s, int prog_fd, const void *pkt, uint32_t len,
				uint32_t *retval)
{
	return side_test_run_ctx(s, prog_fd, pkt, len, 0, NULL, 0, NULL, 0, retval);
}

int results_agree_at(const char *file, int line, const char *what, const struct bpf_result r[2])
{
	if ((r[K].rc < 0) != (r[U].rc < 0) || (r[K].rc < 0 && r[K].err != r[U].err)) {
		test_fail(file, line, "%s: kernel rc %d errno %d, userbpf rc %d errno %d", what,
			  r[K].rc, r[K].err, r[U].rc, r[U].err);
		return 0;
	}
	return 1;
}

static int probe_state = -1; /* -1 not probed, 0 unavailable, 1 available */
static char probe_reason[128];

int kernel_bpf_available(void)
{
	union bpf_attr attr;
	int fd;

	if (probe_state >= 0)
		return probe_state;
	if (getenv("USERBPF_NO_KERNEL")) {
		probe_state = 0;
		snprintf(probe_reason, sizeof(probe_reason), "disabled by USERBPF_NO_KERNEL");
		return probe_state;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	errno = 0;
	fd = kernel_bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd >= 0) {
		close(fd);
		probe_state = 1;
		probe_reason[0] = '\0';
	} else {
		int e = errno;

		probe_state = 0;
		snprintf(probe_reason, sizeof(probe_reason), "BPF_MAP_CREATE failed with %s (%s)",
			 e == EPERM ? "EPERM" : e == ENOSYS ? "ENOSYS" : "an error", strerror(e));
	}
	return probe_state;
}

const char *kernel_bpf_unavailable_reason(void)
{
	kernel_bpf_available();
	return probe_reason;
}

struct bpf_result side_elem(int s, int cmd, int fd, const void *key, void *value, uint64_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = PTR_TO_U64(key);
	if (cmd == BPF_MAP_GET_NEXT_KEY)
		a.next_key = PTR_TO_U64(value);
	else
		a.value = PTR_TO_U64(value);
	a.flags = flags;
	return side_call(s, cmd, &a);
}

struct bpf_result side_prog_load_log(int s, uint32_t type, const struct bpf_insn *insns,
				     uint32_t cnt, char *log, size_t log_size)
{
	return side_prog_load_eat_log(s, type, 0, insns, cnt, log, log_size);
}

struct bpf_result side_prog_load_eat_log(int s, uint32_t type, uint32_t eat,
					 const struct bpf_insn *insns, uint32_t cnt, char *log,
					 size_t log_size)
{
	return side_prog_load_level(s, type, eat, insns, cnt, log, log_size, 1);
}

struct bpf_result side_prog_load_level(int s, uint32_t type, uint32_t eat,
				       const struct bpf_insn *insns, uint32_t cnt, char *log,
				       size_t log_size, uint32_t level)
{
	return side_prog_load_flags(s, type, eat, 0, insns, cnt, log, log_size, level);
}

struct bpf_result side_prog_load_flags(int s, uint32_t type, uint32_t eat, uint32_t prog_flags,
				       const struct bpf_insn *insns, uint32_t cnt, char *log,
				       size_t log_size, uint32_t level)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.expected_attach_type = eat;
	a.prog_flags = prog_flags;
	a.insns = PTR_TO_U64(insns);
	a.insn_cnt = cnt;
	a.license = PTR_TO_U64("GPL");
	if (log) {
		a.log_buf = PTR_TO_U64(log);
		a.log_size = (uint32_t)log_size;
		a.log_level = level;
		log[0] = 0;
	}
	return side_call(s, BPF_PROG_LOAD, &a);
}

/* The BTF of side_prog_load_cbs()'s programs: int main(void), global; int cb(void), static. */
static const char cbs_strs[] = "\0int\0main\0cb";
static const uint32_t cbs_types[] = {
	T_INT(1, 4, BTF_INT_SIGNED, 0, 32), T_PROTO(1, 0),
	T_FUNC(5, 2, BTF_FUNC_GLOBAL), T_FUNC(10, 2, BTF_FUNC_STATIC),
};

struct bpf_result side_prog_load_cbs(int s, uint32_t type, uint32_t prog_flags,
				     const struct bpf_insn *insns, uint32_t cnt, const uint32_t *cbs,
				     uint32_t ncbs, char *log, size_t log_size)
{
	struct bpf_func_info fi[1 + SIDE_MAX_CBS] = { { 0, 3 } };
	int btf = side_btf_load(s, cbs_types, sizeof(cbs_types) / 4, cbs_strs, sizeof(cbs_strs));
	union bpf_attr a;
	struct bpf_result r;

	for (uint32_t i = 0; i < ncbs && i < SIDE_MAX_CBS; i++)
		fi[i + 1] = (struct bpf_func_info){ cbs[i], 4 };
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.prog_flags = prog_flags;
	a.insns = PTR_TO_U64(insns);
	a.insn_cnt = cnt;
	a.license = PTR_TO_U64("GPL");
	a.prog_btf_fd = (uint32_t)btf;
	a.func_info = PTR_TO_U64(fi);
	a.func_info_cnt = 1 + (ncbs < SIDE_MAX_CBS ? ncbs : SIDE_MAX_CBS);
	a.func_info_rec_size = sizeof(fi[0]);
	if (log) {
		memset(log, 0, log_size); /* (a failed load's log is the kernel's writing) */
		a.log_buf = PTR_TO_U64(log);
		a.log_size = (uint32_t)log_size;
		a.log_level = 2;
	}
	r = side_call(s, BPF_PROG_LOAD, &a);
	if (btf >= 0)
		close(btf);
	return r;
}

const char *log_error_line(char *log)
{
	char *end = strstr(log, "\nprocessed"), *p;

	if (!end)
		return NULL;
	*end = 0;
	p = strrchr(log, '\n');
	return p ? p + 1 : log;
}

void verdicts_agree_at(const char *file, int line, const char *what, uint32_t type,
		       const struct bpf_insn *k_insns, const struct bpf_insn *u_insns,
		       uint32_t cnt)
{
	verdicts_agree_eat_at(file, line, what, type, 0, k_insns, u_insns, cnt);
}

bool verdicts_agree_eat_at(const char *file, int line, const char *what, uint32_t type,
			   uint32_t eat, const struct bpf_insn *k_insns,
			   const struct bpf_insn *u_insns, uint32_t cnt)
{
	static char log[NSIDES][65536];
	struct bpf_result r[NSIDES];

	r[K] = side_prog_load_eat_log(K, type, eat, k_insns, cnt, log[K], sizeof(log[K]));
	r[U] = side_prog_load_eat_log(U, type, eat, u_insns, cnt, log[U], sizeof(log[U]));
	if (results_agree_at(file, line, what, r) && r[K].rc < 0) {
		const char *ek = log_error_line(log[K]), *eu = log_error_line(log[U]);

		if (ek && eu && strcmp(ek, eu))
			test_fail(file, line, "%s: kernel says \"%s\", userbpf \"%s\"", what, ek,
				  eu);
	}
	for (int s = 0; s < NSIDES; s++)
		if (r[s].rc >= 0)
			close(r[s].rc);
	return r[K].rc >= 0;
}

int attach_types_agree_at(const char *file, int line, uint32_t type)
{
	const struct bpf_insn ret1[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	int accepted = 0;

	for (uint32_t eat = 0; eat < 64; eat++) {
		char what[48];

		snprintf(what, sizeof(what), "expected_attach_type %u", eat);
		accepted += verdicts_agree_eat_at(file, line, what, type, eat, ret1, ret1, 2);
	}
	return accepted;
}

int ctx_accesses_agree_at(const char *file, int line, uint32_t type, uint32_t eat, int lo, int hi,
			  bool ldsx)
{
	static const int sizes[] = { BPF_B, BPF_H, BPF_W, BPF_DW };
	int accepted = 0;

	for (int off = lo; off < hi; off++) {
		for (int z = 0; z < 4; z++) {
			for (int form = 0; form < (ldsx ? 4 : 3); form++) {
				struct bpf_insn insns[] = {
					BPF_MOV64_IMM(BPF_REG_0, 1),
					form == 0 ? BPF_LDX_MEM(sizes[z], BPF_REG_2, BPF_REG_1, off)
					: form == 1
						? BPF_STX_MEM(sizes[z], BPF_REG_1, BPF_REG_0, off)
					: form == 2 ? BPF_ST_MEM(sizes[z], BPF_REG_1, off, 7)
						    : BPF_RAW_INSN(BPF_LDX | BPF_MEMSX | sizes[z],
								   BPF_REG_2, BPF_REG_1, off, 0),
					BPF_EXIT_INSN(),
				};
				char what[80];

				if (form == 3 && sizes[z] == BPF_DW)
					continue; /* (no 64-bit sign extension) */
				snprintf(what, sizeof(what),
					 "type %u hook %u ctx off %d size %d form %d", type, eat, off,
					 z, form);
				accepted += verdicts_agree_eat_at(file, line, what, type, eat, insns,
								  insns, 3);
			}
		}
	}
	return accepted;
}

void test_run_unsupported_at(const char *file, int line, uint32_t type, uint32_t eat)
{
	const struct bpf_insn ret1[] = { BPF_MOV64_IMM(BPF_REG_0, 1), BPF_EXIT_INSN() };
	uint8_t pkt[64] = { 0 };
	struct bpf_result r[NSIDES];

	for (int s = 0; s < NSIDES; s++) {
		int prog = side_prog_load_eat_log(s, type, eat, ret1, 2, NULL, 0).rc;
		uint32_t ret;

		if (prog < 0) {
			test_fail(file, line, "type %u: the load failed (%d)", type, errno);
			return;
		}
		r[s] = side_test_run(s, prog, pkt, sizeof(pkt), &ret);
		close(prog);
	}
	if (results_agree_at(file, line, "BPF_PROG_TEST_RUN", r) && r[U].err != ENOTSUPP)
		test_fail(file, line, "type %u: the test run gave %d, not ENOTSUPP", type,
			  r[U].err);
}

void creates_agree_at(const char *file, int line, uint32_t type, const struct map_shape *shapes,
		      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bpf_result r[NSIDES];
		char what[96];

		snprintf(what, sizeof(what), "create type %u key %u value %u max %u flags %#x",
			 type, shapes[i].key_size, shapes[i].value_size, shapes[i].max_entries,
			 shapes[i].flags);
		for (int s = 0; s < NSIDES; s++)
			r[s] = side_map_create(s, type, shapes[i].key_size, shapes[i].value_size,
					       shapes[i].max_entries, shapes[i].flags);
		results_agree_at(file, line, what, r);
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
	}
}

uint64_t xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

bool runs_agree_at(const char *file, int line, const char *what, const int prog[NSIDES],
		   const void *pkt, uint32_t len, uint32_t *ret)
{
	struct bpf_result r[NSIDES];
	uint32_t rv[NSIDES] = { 0, 0 };

	for (int s = 0; s < NSIDES; s++)
		r[s] = side_test_run(s, prog[s], pkt, len, &rv[s]);
	if (!results_agree_at(file, line, what, r))
		return false;
	if (rv[K] != rv[U]) {
		test_fail(file, line, "%s: retval kernel %#x, userbpf %#x", what, rv[K], rv[U]);
		return false;
	}
	*ret = rv[K];
	return true;
}

void redirects_agree_at(const char *file, int line, const int map[NSIDES], bool lookup,
			uint8_t flag_mask, int runs, uint64_t seed)
{
	int prog[NSIDES], redirected = 0, fallback = 0;

	for (int s = 0; s < NSIDES; s++) {
		struct bpf_insn insns[] = {
			BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct xdp_md, data)),
			BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1, offsetof(struct xdp_md, data_end)),
			BPF_MOV64_REG(BPF_REG_4, BPF_REG_2),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, 16),
			BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
			BPF_JMP_REG(BPF_JGT, BPF_REG_4, BPF_REG_3, lookup ? 22 : 9),
			BPF_LDX_MEM(BPF_B, BPF_REG_6, BPF_REG_2, 14),
			BPF_ALU64_IMM(BPF_AND, BPF_REG_6, 7),
			BPF_LDX_MEM(BPF_B, BPF_REG_3, BPF_REG_2, 15),
			BPF_ALU64_IMM(BPF_AND, BPF_REG_3, 63),
			BPF_STX_MEM(BPF_W, BPF_REG_10, BPF_REG_6, -4),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_6),
			BPF_EMIT_CALL(BPF_FUNC_redirect_map),
			BPF_EXIT_INSN(), /* (without the lookup) */
			/* r0 |= (lookup(map, &k) ? *(u32 *)value + 1 : 0) << 8 */
			BPF_MOV64_REG(BPF_REG_7, BPF_REG_0),
			BPF_LD_MAP_FD(BPF_REG_1, map[s]),
			BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
			BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
			BPF_MOV64_IMM(BPF_REG_1, 0),
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
			BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_0, 0),
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
			BPF_ALU64_IMM(BPF_LSH, BPF_REG_1, 8),
			BPF_ALU64_REG(BPF_OR, BPF_REG_7, BPF_REG_1),
			BPF_MOV64_REG(BPF_REG_0, BPF_REG_7),
			BPF_EXIT_INSN(),
		};
		uint32_t n = sizeof(insns) / sizeof(insns[0]);

		if (lookup) /* (the first exit goes) */
			memmove(&insns[15], &insns[16], (n-- - 16) * sizeof(insns[0]));
		else
			n = 16;
		prog[s] = side_prog_load(s, BPF_PROG_TYPE_XDP, insns, n);
		if (prog[s] < 0) {
			test_fail(file, line, "side %d: the redirecting program: %s", s,
				  strerror(errno));
			if (s == U && prog[K] >= 0)
				close(prog[K]);
			return;
		}
	}
	for (int i = 0; i < runs; i++) {
		uint8_t pkt[64];
		uint32_t ret;
		char what[48];

		xorshift64(&seed);
		for (int b = 0; b < 64; b++)
			pkt[b] = (uint8_t)(seed >> (b % 8 * 8));
		if ((seed >> 40) % 4)
			pkt[15] &= flag_mask; /* mostly valid flags */
		snprintf(what, sizeof(what), "redirect run %d", i);
		if (!runs_agree_at(file, line, what, prog, pkt, sizeof(pkt), &ret))
			break;
		redirected += (ret & 0xff) == XDP_REDIRECT;
		fallback += (ret & 0xff) != XDP_REDIRECT;
	}
	if (redirected <= runs / 20 || fallback <= runs / 20)
		test_fail(file, line, "%d redirected, %d fell back, of %d runs", redirected, fallback,
			  runs);
	for (int s = 0; s < NSIDES; s++)
		close(prog[s]);
}

struct bpf_result side_obj_info(int s, int fd, void *info, uint32_t *len)
{
	union bpf_attr a;
	struct bpf_result r;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = *len;
	a.info.info = PTR_TO_U64(info);
	r = side_call(s, BPF_OBJ_GET_INFO_BY_FD, &a);
	*len = a.info.info_len;
	return r;
}

uint32_t side_map_id(int s, int fd)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return side_obj_info(s, fd, &info, &len).rc == 0 ? info.id : 0;
}

bool calls_agree_at(const char *file, int line, const char *what,
		    const struct bpf_result r[NSIDES], int *calls)
{
	(*calls)++;
	if (getenv("TEST_VERBOSE"))
		printf("%s: %d (errno %d)\n", what, r[K].rc, r[K].err);
	return results_agree_at(file, line, what, r);
}

uint32_t side_prog_id(int s, int fd)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return side_obj_info(s, fd, &info, &len).rc == 0 ? info.id : 0;
}

struct bpf_result side_prog_attach(int s, int target, int prog, uint32_t type, uint32_t flags,
				   int replace, uint32_t relative, uint64_t revision)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)target;
	a.attach_bpf_fd = (uint32_t)prog;
	a.attach_type = type;
	a.attach_flags = flags;
	a.replace_bpf_fd = (uint32_t)replace;
	memcpy((uint8_t *)&a + 20, &relative, 4);
	memcpy((uint8_t *)&a + 24, &revision, 8);
	return side_call(s, BPF_PROG_ATTACH, &a);
}

struct bpf_result side_prog_detach(int s, int target, int prog, uint32_t type, uint64_t revision)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)target;
	a.attach_bpf_fd = (uint32_t)prog;
	a.attach_type = type;
	memcpy((uint8_t *)&a + 24, &revision, 8);
	return side_call(s, BPF_PROG_DETACH, &a);
}

struct bpf_result side_link_create(int s, int target, int prog, uint32_t type, uint32_t flags,
				   uint32_t relative, uint64_t revision)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.target_fd = (uint32_t)target;
	a.link_create.attach_type = type;
	a.link_create.flags = flags;
	memcpy((uint8_t *)&a + 16, &relative, 4);
	memcpy((uint8_t *)&a + 24, &revision, 8);
	return side_call(s, BPF_LINK_CREATE, &a);
}

struct bpf_result side_link_update(int s, int link, int prog, uint32_t flags, int old)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_update.link_fd = (uint32_t)link;
	a.link_update.new_prog_fd = (uint32_t)prog;
	a.link_update.flags = flags;
	a.link_update.old_prog_fd = (uint32_t)old;
	return side_call(s, BPF_LINK_UPDATE, &a);
}

struct bpf_result side_prog_query(int s, int target, uint32_t type, uint32_t qflags,
				  uint32_t *ids, uint32_t cnt, uint32_t *pflags, union bpf_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->query.target_fd = (uint32_t)target;
	a->query.attach_type = type;
	a->query.query_flags = qflags;
	a->query.prog_ids = PTR_TO_U64(ids);
	a->query.prog_cnt = cnt;
	a->query.prog_attach_flags = PTR_TO_U64(pflags);
	a->query.attach_flags = 77; /* (an output: must be overwritten) */
	return side_call(s, BPF_PROG_QUERY, a);
}

int in_private_netns(void (*script)(void *), void *arg)
{
	int home = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC), err;

	if (home < 0 || unshare(CLONE_NEWNET)) {
		err = errno;
		if (home >= 0)
			close(home);
		return -err;
	}
	script(arg);
	err = setns(home, CLONE_NEWNET) ? -errno : 0;
	close(home);
	if (err)
		test_fail(__FILE__, __LINE__, "cannot go back to this thread's network namespace");
	return 0;
}

void side_link_info_head(int s, int link, uint32_t out[3])
{
	uint8_t info[64];
	uint32_t len = sizeof(info);

	memset(info, 0, sizeof(info));
	side_obj_info(s, link, info, &len);
	memcpy(&out[0], info, 4);
	memcpy(&out[1], info + 16, 8);
}

struct bpf_result side_link_detach(int s, int link)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.link_detach.link_fd = (uint32_t)link;
	return side_call(s, BPF_LINK_DETACH, &a);
}

bool walks_agree_at(const char *file, int line, const char *what, const int fd[NSIDES],
		    uint32_t vs, int max_keys,
		    bool (*same)(const void *k_value, const void *u_value, void *arg), void *arg)
{
	uint32_t key[NSIDES] = { 0 }, next[NSIDES];
	bool first = true;

	for (int n = 0; n < max_keys; n++) {
		struct bpf_result r[NSIDES];
		uint8_t v[NSIDES][64];

		for (int s = 0; s < NSIDES; s++) {
			next[s] = 0;
			r[s] = side_elem(s, BPF_MAP_GET_NEXT_KEY, fd[s], first ? NULL : &key[s],
					 &next[s], 0);
		}
		if (!results_agree_at(file, line, what, r) || next[K] != next[U]) {
			test_fail(file, line, "%s: walk step %d: next key %u / %u", what, n, next[K],
				  next[U]);
			return false;
		}
		if (r[K].rc < 0)
			return true;
		first = false;
		for (int s = 0; s < NSIDES; s++) {
			key[s] = next[s];
			memset(v[s], 0xee, sizeof(v[s]));
			r[s] = side_elem(s, BPF_MAP_LOOKUP_ELEM, fd[s], &key[s], v[s], 0);
		}
		if (!results_agree_at(file, line, what, r) ||
		    (r[K].rc == 0 && vs && !same(v[K], v[U], arg))) {
			test_fail(file, line, "%s: key %u: values differ", what, key[K]);
			return false;
		}
	}
	return true;
}

void verdicts_agree_map_at(const char *file, int line, const char *what, uint32_t type,
			   const struct bpf_insn *insns, uint32_t n, const int map[NSIDES],
			   int map_insn)
{
	struct bpf_insn side[NSIDES][32];

	if (n > 32) {
		test_fail(file, line, "%s: %u instructions, at most 32", what, n);
		return;
	}
	for (int s = 0; s < NSIDES; s++) {
		memcpy(side[s], insns, n * sizeof(*insns));
		side[s][map_insn].imm = map[s];
	}
	verdicts_agree_at(file, line, what, type, side[K], side[U], n);
}

bool verdicts_agree_maps_at(const char *file, int line, const char *what, uint32_t type,
			    uint32_t eat, const struct bpf_insn *insns, uint32_t n,
			    const int map[NSIDES])
{
	struct bpf_insn side[NSIDES][32];

	if (n > 32) {
		test_fail(file, line, "%s: %u instructions, at most 32", what, n);
		return false;
	}
	for (int s = 0; s < NSIDES; s++) {
		memcpy(side[s], insns, n * sizeof(*insns));
		fill_map_fds(side[s], n, map[s]);
	}
	return verdicts_agree_eat_at(file, line, what, type, eat, side[K], side[U], n);
}

bool kallsyms_file_with(char *path, const char *const *syms, int n)
{
	FILE *in = fopen("/proc/kallsyms", "r"), *out;
	int fd = mkstemp(path);
	char line[512];

	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		test_fail(__FILE__, __LINE__, "no symbol file %s", path);
		if (in)
			fclose(in);
		return false;
	}
	while (in && fgets(line, sizeof(line), in))
		fputs(line, out);
	if (in)
		fclose(in);
	for (int i = 0; i < n; i++)
		fprintf(out, "ffffffff84%06x D %s\n", i * 0x1000, syms[i]);
	fclose(out);
	return true;
}

bool kernel_has_trampolines(void)
{
	static int known = -1;
	const struct btf *btf = btf_vmlinux();
	struct bpf_insn p[] = { BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() };
	char log[256] = "";
	union bpf_attr a;
	int fd;

	if (known >= 0)
		return known;
	if (!kernel_bpf_available() || !btf)
		return (known = 0);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_FENTRY;
	a.attach_btf_id = btf_find_func(btf, "bpf_fentry_test1");
	a.insns = PTR_TO_U64(p);
	a.insn_cnt = 2;
	a.license = PTR_TO_U64("GPL");
	a.log_buf = PTR_TO_U64(log);
	a.log_size = sizeof(log);
	a.log_level = 1;
	fd = kernel_bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd >= 0)
		close(fd);
	known = fd >= 0 || errno != EPERM || log[0];
	return known;
}

bool kernel_is_x86_64(void)
{
	struct utsname u;

	return !uname(&u) && !strcmp(u.machine, "x86_64");
}

bool pids_are_global(void)
{
	char line[256];
	FILE *fp = fopen("/proc/self/status", "r");
	bool global = false;

	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "NSpid:", 6))
			global = strchr(line + 6, '\t') == strrchr(line + 6, '\t'); /* one pid */
	if (fp)
		fclose(fp);
	return global;
}

void fill_placeholders(struct bpf_insn *p, uint32_t n, const int32_t *vals, int nvals)
{
	for (uint32_t j = 0; j < n; j++) {
		if (p[j].off >= PLACEHOLDER(0) && p[j].off < PLACEHOLDER(nvals))
			p[j].off = (int16_t)vals[p[j].off - PLACEHOLDER(0)];
		if ((p[j].code == (BPF_ALU64 | BPF_ADD | BPF_K) ||
		     p[j].code == (BPF_ALU64 | BPF_MOV | BPF_K) ||
		     (p[j].code == (BPF_JMP | BPF_CALL) &&
		      p[j].src_reg == BPF_PSEUDO_KFUNC_CALL)) &&
		    p[j].imm >= PLACEHOLDER(0) && p[j].imm < PLACEHOLDER(nvals))
			p[j].imm = vals[p[j].imm - PLACEHOLDER(0)];
	}
}

uint32_t fill_tail_jumps(struct bpf_insn *p, uint32_t n)
{
	bool tail = false;

	for (uint32_t j = 0; j < n; j++)
		if (BPF_CLASS(p[j].code) == BPF_JMP && BPF_OP(p[j].code) != BPF_CALL &&
		    BPF_OP(p[j].code) != BPF_EXIT && p[j].off == 100) {
			p[j].off = (int16_t)(n - j - 1);
			tail = true;
		}
	if (tail) {
		p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
		p[n++] = BPF_EXIT_INSN();
	}
	return n;
}

void fill_map_fds(struct bpf_insn *p, uint32_t n, int fd)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i].code == (BPF_LD | BPF_DW | BPF_IMM) && p[i].src_reg == BPF_PSEUDO_MAP_FD)
			p[i].imm = fd;
}

uint32_t insns_used(const struct bpf_insn *p, uint32_t max)
{
	static const struct bpf_insn zero;

	while (max && !memcmp(&p[max - 1], &zero, sizeof(zero)))
		max--;
	return max;
}

void log_cut_stats(char *log)
{
	char *end = strstr(log, "processed ");

	if (end)
		*end = 0;
}

bool logs_same_at(const char *file, int line, const char *what, const char *k_log,
		  const char *u_log)
{
	if (!strcmp(k_log, u_log))
		return true;
	test_fail(file, line, "%s: level-2 logs differ:\n--- kernel\n%s--- userbpf\n%s", what,
		  k_log, u_log);
	return false;
}

void log_cut_map_addrs(char *log)
{
	for (char *m = log; (m = strstr(m, " = 0x"));) {
		char *q = m += 5;

		if (m - log < 7 || m[-7] != 'r' || m[-6] < '0' || m[-6] > '9')
			continue; /* (not "rN = 0x") */

		q += strspn(q, "0123456789abcdef");
		q += strspn(q, " ");
		memmove(m, q, strlen(q) + 1);
	}
}

int engines_agree(const char *what, int k_fd, uint32_t type, uint32_t flags,
		  const struct bpf_insn *p, uint32_t n)
{
	static const uint8_t pkt[64] = { 1, 2, 3 };
	uint64_t args[2] = { 0, 0 };
	uint32_t ret[NSIDES] = { 1, 2 };
	struct bpf_result t[NSIDES];
	int agreed = 0;
	/* (a ctx in for these; a packet for the others) */
	bool syscall = type == BPF_PROG_TYPE_SYSCALL || type == BPF_PROG_TYPE_RAW_TRACEPOINT;

	t[K] = side_test_run_ctx(K, k_fd, syscall ? NULL : pkt, syscall ? 0 : sizeof(pkt), 0,
				 syscall ? args : NULL, syscall ? sizeof(args) : 0, NULL, 0,
				 &ret[K]);
	for (int jit = 1; jit >= 0; jit--) {
		int old = userbpf_set_jit(jit);
		struct bpf_result l = side_prog_load_flags(U, type, 0, flags, p, n, NULL, 0, 0);
		struct bpf_prog_info info = { 0 };
		uint32_t len = sizeof(info);

		userbpf_set_jit(old);
		CHECK(l.rc >= 0);
		if (l.rc < 0)
			continue;
		CHECK_EQ(side_obj_info(U, l.rc, &info, &len).rc, 0);
#ifdef __x86_64__
		CHECK_EQ(info.jited_prog_len != 0, jit);
#else
		CHECK_EQ(info.jited_prog_len, 0); /* (no JIT here: both runs interpret) */
#endif
		t[U] = side_test_run_ctx(U, l.rc, syscall ? NULL : pkt,
					 syscall ? 0 : sizeof(pkt), 0, syscall ? args : NULL,
					 syscall ? sizeof(args) : 0, NULL, 0, &ret[U]);
		close(l.rc);
		if (AGREE(what, t) && t[K].rc == 0 && ret[U] == ret[K])
			agreed++;
		else
			test_fail(__FILE__, __LINE__, "%s (%s): kernel %u, userbpf %u", what,
				  jit ? "JIT" : "interpreter", ret[K], ret[U]);
	}
	return agreed;
}

int proc_parent(int pid)
{
	char path[64], line[512], *p;
	FILE *fp;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fp = fopen(path, "r");
	if (fp && fgets(line, sizeof(line), fp) && (p = strrchr(line, ')')))
		sscanf(p + 1, " %*c %d", &ppid);
	if (fp)
		fclose(fp);
	return ppid;
}

int proc_grandparent(void)
{
	int gp = proc_parent(getppid());

	return gp > 1 ? gp : getppid();
}

bool self_reads_work(void)
{
	static const char src[] = "probe";
	char dst[sizeof(src)] = { 0 };
	struct iovec local = { dst, sizeof(dst) }, remote = { (void *)src, sizeof(src) };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)sizeof(src) &&
	       !memcmp(dst, src, sizeof(src));
}

uint8_t *string_pages(void)
{
	uint8_t *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			      0);

	if (pages == MAP_FAILED)
		return NULL;
	for (int i = 0; i < 4096; i++)
		pages[i] = i % 37 ? (uint8_t)('a' + i % 26) : 0;
	if (mprotect(pages + 4096, 4096, PROT_NONE)) {
		munmap(pages, 8192);
		return NULL;
	}
	return pages;
}

bool copies_agree_at(const char *file, int line, const char *what, const uint32_t ret[NSIDES],
		     const uint8_t *k_bytes, const uint8_t *u_bytes, size_t n)
{
	if (ret[K] != ret[U]) {
		test_fail(file, line, "%s: the kernel returns %d, userbpf %d", what, (int32_t)ret[K],
			  (int32_t)ret[U]);
		return false;
	}
	if (!memcmp(k_bytes, u_bytes, n))
		return true;
	test_fail(file, line, "%s: the bytes differ", what);
	if (getenv("TEST_VERBOSE"))
		for (int s = 0; s < NSIDES; s++) {
			printf("%s: ", s == K ? "kernel " : "userbpf");
			for (size_t b = 0; b < n; b++)
				printf("%02x", (s == K ? k_bytes : u_bytes)[b]);
			printf("\n");
		}
	return false;
}

uint64_t copy_src(const uint8_t *pages, uint32_t kind, uint32_t r)
{
	switch (kind) {
	case 0: case 1: case 2: case 3:
		return (uint64_t)(uintptr_t)(pages + r % 4000);
	case 4: case 5:
		return (uint64_t)(uintptr_t)(pages + 4096 - r % 70);
	case 6:
		return 0;
	case 7:
		return r % 65536;
	case 8:
		return 0x0000800000000000ull + r % 4096;
	case 9:
		return 0xffff800000000000ull;
	case 10:
		return 0x00007ffffffff000ull + r % 4096;
	default:
		return 0xffffffff81000000ull;
	}
}

int copy_prog(int map_fd, uint32_t vsize, int dynptr_flags, uint64_t a2, uint64_t a3,
	      uint64_t a4, struct bpf_insn call, struct bpf_insn *p)
{
	const struct bpf_insn head[] = {
		BPF_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		BPF_MOV64_REG(BPF_REG_2, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		BPF_LD_MAP_FD(BPF_REG_1, map_fd),
		BPF_EMIT_CALL(BPF_FUNC_map_lookup_elem),
		BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 1),
		BPF_EXIT_INSN(),
		BPF_MOV64_REG(BPF_REG_6, BPF_REG_0),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_6),
	}, dynptr[] = {
		BPF_MOV64_IMM(BPF_REG_2, (int32_t)vsize),
		BPF_MOV64_IMM(BPF_REG_3, dynptr_flags),
		BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -16),
		BPF_EMIT_CALL(BPF_FUNC_dynptr_from_mem),
		BPF_MOV64_REG(BPF_REG_1, BPF_REG_10),
		BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, -16),
	}, args[] = {
		BPF_LD_IMM64(BPF_REG_2, a2),
		BPF_LD_IMM64(BPF_REG_3, a3),
		BPF_LD_IMM64(BPF_REG_4, a4),
		call,
		BPF_MOV32_REG(BPF_REG_0, BPF_REG_0),
		BPF_EXIT_INSN(),
	};
	int n = 0;

	memcpy(p, head, sizeof(head));
	n += (int)(sizeof(head) / sizeof(head[0]));
	if (dynptr_flags >= 0) {
		memcpy(p + n, dynptr, sizeof(dynptr));
		n += (int)(sizeof(dynptr) / sizeof(dynptr[0]));
	}
	memcpy(p + n, args, sizeof(args));
	return n + (int)(sizeof(args) / sizeof(args[0]));
}

uint8_t *copy_fixture(int maps[NSIDES], uint32_t vsize)
{
	uint8_t *pages = string_pages();

	for (int s = 0; s < NSIDES; s++)
		maps[s] = side_map_create(s, BPF_MAP_TYPE_ARRAY, 4, vsize, 1, 0).rc;
	if (pages && maps[K] >= 0 && maps[U] >= 0)
		return pages;
	copy_fixture_done(pages, maps);
	return NULL;
}

void copy_fixture_done(uint8_t *pages, const int maps[NSIDES])
{
	for (int s = 0; s < NSIDES; s++)
		if (maps[s] >= 0)
			close(maps[s]);
	if (pages)
		munmap(pages, 8192);
}

struct bpf_result side_copy_run(int s, int map, uint32_t vsize, uint32_t type,
				uint32_t prog_flags, const struct bpf_insn *insns, uint32_t n,
				bool pkt, uint8_t *value, uint32_t *ret)
{
	static const uint8_t zero_pkt[64];
	uint32_t key = 0;
	struct bpf_result r;
	int fd;

	memset(value, 0xaa, vsize);
	side_elem(s, BPF_MAP_UPDATE_ELEM, map, &key, value, 0);
	r = side_prog_load_flags(s, type, 0, prog_flags, insns, n, NULL, 0, 0);
	fd = r.rc;
	if (fd < 0)
		return r;
	r = side_test_run_ctx(s, fd, pkt ? zero_pkt : NULL, pkt ? sizeof(zero_pkt) : 0, 0, NULL, 0,
			      NULL, 0, ret);
	close(fd);
	side_elem(s, BPF_MAP_LOOKUP_ELEM, map, &key, value, 0);
	return r;
}

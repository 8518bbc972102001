/* Backends for differential tests: the same bpf() ABI served either by userbpf (the library under
 * test) or by the live kernel through syscall(__NR_bpf).  A test runs one sequence of calls on
 * both and compares return values, errno and object contents.
 */
#ifndef USERBPF_TESTS_KBPF_H
#define USERBPF_TESTS_KBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "userbpf.h"

struct bpf_backend {
	const char *name;
	int (*bpf)(int cmd, union bpf_attr *attr, unsigned int size);
};

extern const struct bpf_backend backend_userbpf;
extern const struct bpf_backend backend_kernel;

/* The outcome of one call: the return value and errno (0 when the call succeeded). */
struct bpf_result {
	int rc;
	int err;
};

/* Run one call on a backend and capture rc and errno. */
struct bpf_result backend_call(const struct bpf_backend *be, int cmd, void *attr,
			       unsigned int size);

/* 1 when the kernel's bpf() works (probed once by creating a tiny array map), else 0. */
int kernel_bpf_available(void);
/* Why the probe failed ("EPERM (...)", "ENOSYS (...)"), or "" when it succeeded. */
const char *kernel_bpf_unavailable_reason(void);

/* Whether process_vm_readv() on our own pid reads our memory, as userbpf's probe reads and
 * string kfuncs need (not under qemu-user, which has guest addresses). */
bool self_reads_work(void);

/* Whether the kernel can load programs that need a trampoline (fentry, fexit, fmod_ret): one
 * that answers EPERM before verifying anything cannot (a locked-down paravirtualised one, as
 * this project's machines run).  0 without the kernel's bpf() or BTF. */
bool kernel_has_trampolines(void);

/* Whether the kernel runs x86-64 (uname's machine), also as seen from an i386 build: there,
 * the few uapi fields whose layout differs by word size are read by the kernel as x86-64's. */
bool kernel_is_x86_64(void);

/* A symbol file for USERBPF_KALLSYMS: /proc/kallsyms with the n data symbols syms added (as a
 * kernel built with CONFIG_KALLSYMS_ALL lists its variables), made at path (a mkstemp()
 * template, which gets the name).  false (and a test failure) if it cannot be made. */
bool kallsyms_file_with(char *path, const char *const *syms, int n);

/* Whether this process's pids are the kernel's own (no pid namespace of its own): where they are
 * not, the kernel's task ids differ from userbpf's. */
bool pids_are_global(void);

/* Placeholders a table of test programs names values known only at run time by (offsets in
 * the kernel's BTF, kfunc ids, pids): an off or an imm of PLACEHOLDER(n). */
#define PLACEHOLDER(n) (-32000 + (n))
/* Replaces PLACEHOLDER(i) (i < nvals) by vals[i] in the n insns at p: in every off, and in the
 * imm of a 64-bit add or move of a constant and of a kfunc call. */
void fill_placeholders(struct bpf_insn *p, uint32_t n, const int32_t *vals, int nvals);
/* A table's shorthand for "return 0": a conditional jump whose off is 100 goes to an
 * "r0 = 0; exit" added after the n insns at p (room for 2 more): the count with it. */
uint32_t fill_tail_jumps(struct bpf_insn *p, uint32_t n);
/* Every LD_IMM64 of a map fd (BPF_PSEUDO_MAP_FD) in the n insns at p loads fd. */
void fill_map_fds(struct bpf_insn *p, uint32_t n, int fd);
/* How many of the max insns at p are the program: up to the last that is not all zero. */
uint32_t insns_used(const struct bpf_insn *p, uint32_t max);
/* Cuts a verifier log at its statistics line ("processed ..."), whose time differs from side
 * to side. */
void log_cut_stats(char *log);
/* Whether the two sides' verifier logs are the same text; a difference is reported at
 * file:line with both. */
bool logs_same_at(const char *file, int line, const char *what, const char *k_log,
		  const char *u_log);
#define LOGS_SAME(what, k_log, u_log) logs_same_at(__FILE__, __LINE__, what, k_log, u_log)

/* Cuts the map addresses out of a verifier log ("r1 = 0xffff8881...  ; R1=map_ptr": the
 * address and the padding after it, for any of r0..r9), which differ from side to side. */
void log_cut_map_addrs(char *log);

/* The kernel's run of its program k_fd (of type, loaded with flags) against userbpf's of the
 * same n insns p, loaded once JIT-compiled and once interpreted (the JIT's with native code):
 * how many of the two gave the kernel's value (a failure at each other).  Syscall and raw
 * tracepoint programs get a 16-byte ctx in, the others a 64-byte packet. */
int engines_agree(const char *what, int k_fd, uint32_t type, uint32_t flags,
		  const struct bpf_insn *p, uint32_t n);

/* The parent of process pid, from /proc/<pid>/stat (0 if it is gone). */
int proc_parent(int pid);
/* This process's grandparent, or its parent where that is init or gone: a task the kernel can
 * hand out a reference to (the sandbox this was written in has an init whose task struct no
 * reference can be taken on: its bpf_task_from_pid(1) is NULL). */
int proc_grandparent(void);

/* Two pages for the memory-copy tests: the first lowercase letters with a NUL every 37 bytes
 * (from its start), the second unreadable (PROT_NONE).  munmap() 8192 bytes when done. */
uint8_t *string_pages(void);

/* The two sides of a differential test, the kernel first. */
enum { K, U, NSIDES };
extern const struct bpf_backend *const diff_sides[NSIDES];

/* Whether a copy's outcome is the same on both sides: the value returned (ret) and the n bytes
 * it left in value[K] and value[U].  A difference is reported at file:line (TEST_VERBOSE=1
 * prints both sides' bytes). */
#define COPIES_AGREE(what, ret, k_bytes, u_bytes, n)                                             \
	copies_agree_at(__FILE__, __LINE__, what, ret, k_bytes, u_bytes, n)
bool copies_agree_at(const char *file, int line, const char *what, const uint32_t ret[NSIDES],
		     const uint8_t *k_bytes, const uint8_t *u_bytes, size_t n);

/* A source address for the memory-copy tests, of a kind (0 to COPY_SRC_KINDS - 1), r a random
 * number: a string in string_pages() (kinds 0-3), one running into its unreadable page (4, 5),
 * NULL (6), a small integer (7), a non-canonical address (8), the kernel's guard hole (9), the
 * top page of user space (10), the kernel's text (11). */
#define COPY_SRC_KINDS 12
uint64_t copy_src(const uint8_t *pages, uint32_t kind, uint32_t r);

/* The memory-copy tests' program, into p (room for 32 instructions; the count returned):
 * r6 = the value at key 0 of map_fd (else return 0); r1 = r6, or, for dynptr_flags >= 0, a
 * local dynptr at fp - 16 over vsize bytes of it (flags 1: a NULL one); r2, r3, r4 = a2, a3, a4
 * (64-bit constants); then call, and return its result zero-extended. */
int copy_prog(int map_fd, uint32_t vsize, int dynptr_flags, uint64_t a2, uint64_t a3,
	      uint64_t a4, struct bpf_insn call, struct bpf_insn *p);

/* The memory-copy tests' fixture: string_pages() (returned; NULL on failure), and on each side
 * a one-element array map (4-byte key 0) of vsize-byte values for programs to copy into, whose
 * fds go in maps.  copy_fixture_done() closes and unmaps them. */
uint8_t *copy_fixture(int maps[NSIDES], uint32_t vsize);
void copy_fixture_done(uint8_t *pages, const int maps[NSIDES]);

/* One copy on side s: the map's value set to vsize 0xaa bytes, the program (type, prog_flags)
 * loaded, test-run once (on a 64-byte zero packet if pkt, else without data or ctx), the value
 * read back into value.  *ret is the program's return value. */
struct bpf_result side_copy_run(int s, int map, uint32_t vsize, uint32_t type,
				uint32_t prog_flags, const struct bpf_insn *insns, uint32_t n,
				bool pkt, uint8_t *value, uint32_t *ret);

/* backend_call() on side s with the whole attr union. */
struct bpf_result side_call(int s, int cmd, union bpf_attr *attr);

/* BPF_MAP_CREATE on side s with these fields (the rest zero). */
struct bpf_result side_map_create(int s, uint32_t type, uint32_t key_size, uint32_t value_size,
				  uint32_t max_entries, uint32_t flags);

/* BPF_MAP_CREATE on side s with these fields and the BTF blob btf's key and value types (the rest
 * zero). */
struct bpf_result side_map_create_btf(int s, uint32_t type, uint32_t key_size, uint32_t value_size,
				      uint32_t max_entries, uint32_t flags, int btf,
				      uint32_t key_id, uint32_t value_id);

/* BPF_MAP_CREATE of type with each of n shapes on both sides: the results must agree. */
struct map_shape {
	uint32_t key_size, value_size, max_entries, flags;
};
void creates_agree_at(const char *file, int line, uint32_t type, const struct map_shape *shapes,
		      size_t n);
#define CREATES_AGREE(type, shapes)                                                              \
	creates_agree_at(__FILE__, __LINE__, type, shapes, sizeof(shapes) / sizeof((shapes)[0]))

/* The next value of a xorshift64 generator (state must not be 0). */
uint64_t xorshift64(uint64_t *state);

/* BPF_PROG_TEST_RUN of each side's program with the packet: the results and retvals must
 * agree (else a failure is reported at file:line and the answer is false); *ret: the retval. */
bool runs_agree_at(const char *file, int line, const char *what, const int prog[NSIDES],
		   const void *pkt, uint32_t len, uint32_t *ret);
#define RUNS_AGREE(what, prog, pkt, len, ret)                                                    \
	runs_agree_at(__FILE__, __LINE__, what, prog, pkt, len, ret)

/* XDP redirection through a map (device, CPU, AF_XDP socket maps), each side's program loaded
 * for its map[s]: k = packet byte 14 % 8; r0 = bpf_redirect_map(map, k, packet byte 15 % 64),
 * with lookup also | (a lookup of k: its value's first u32 + 1, or 0) << 8.  runs seeded
 * packets run on both sides, whose byte 15 mostly holds the flags flag_mask allows, must give
 * the same results; both XDP_REDIRECT and the fallback must come up more than runs / 20 times
 * each.  Failures are reported at file:line. */
void redirects_agree_at(const char *file, int line, const int map[NSIDES], bool lookup,
			uint8_t flag_mask, int runs, uint64_t seed);
#define REDIRECTS_AGREE(map, lookup, flag_mask, runs, seed)                                      \
	redirects_agree_at(__FILE__, __LINE__, map, lookup, flag_mask, runs, seed)

/* An element command on side s: key, value (GET_NEXT_KEY: the next key), flags. */
struct bpf_result side_elem(int s, int cmd, int fd, const void *key, void *value,
			    uint64_t flags);

/* Walks maps with 4-byte keys and values of at most 64 bytes with GET_NEXT_KEY (at most
 * max_keys keys) and looks each key up: both sides must give the same keys in the same order,
 * with values that same() finds equal (each value is vs bytes, filled with 0xee first; the
 * side is passed, as ids differ between the sides).  Failures are reported at file:line. */
bool walks_agree_at(const char *file, int line, const char *what, const int fd[NSIDES],
		    uint32_t vs, int max_keys,
		    bool (*same)(const void *k_value, const void *u_value, void *arg), void *arg);
#define WALKS_AGREE(what, fd, vs, max_keys, same, arg)                                           \
	walks_agree_at(__FILE__, __LINE__, what, fd, vs, max_keys, same, arg)

/* BPF_OBJ_GET_INFO_BY_FD of fd on side s into info, *len bytes of room (the length the call
 * leaves is written back). */
struct bpf_result side_obj_info(int s, int fd, void *info, uint32_t *len);
/* The id of the map behind fd on side s (0 if its info cannot be read). */
uint32_t side_map_id(int s, int fd);
/* The same for a program. */
uint32_t side_prog_id(int s, int fd);

/* A script's call, made on both sides: the results must agree; *calls counts it, and
 * TEST_VERBOSE shows it.  CALL_BOTH runs call (an expression of s, the side) into r[] and
 * compares, with s, r and calls in the caller's scope. */
bool calls_agree_at(const char *file, int line, const char *what,
		    const struct bpf_result r[NSIDES], int *calls);
#define CALL_BOTH(what, call)                                                                    \
	do {                                                                                     \
		for (s = 0; s < NSIDES; s++)                                                     \
			r[s] = (call);                                                           \
		calls_agree_at(__FILE__, __LINE__, what, r, &calls);                             \
	} while (0)

/* The attach commands on side s: BPF_PROG_ATTACH (with 6.16's relative_fd/_id and
 * expected_revision), BPF_PROG_DETACH, BPF_LINK_CREATE (target_fd, flags, and the cgroup or tcx
 * relative fd/id and revision), BPF_LINK_UPDATE, BPF_LINK_DETACH. */
struct bpf_result side_prog_attach(int s, int target, int prog, uint32_t type, uint32_t flags,
				   int replace, uint32_t relative, uint64_t revision);
struct bpf_result side_prog_detach(int s, int target, int prog, uint32_t type, uint64_t revision);
struct bpf_result side_link_create(int s, int target, int prog, uint32_t type, uint32_t flags,
				   uint32_t relative, uint64_t revision);
struct bpf_result side_link_update(int s, int link, int prog, uint32_t flags, int old);
struct bpf_result side_link_detach(int s, int link);
/* Runs script(arg) with the calling thread in a network namespace of its own (the kernel's
 * attachments there meet no traffic of this machine's), then back in its own (a failure if it
 * cannot).  0, or -errno where no namespace can be made (the caller skips). */
int in_private_netns(void (*script)(void *), void *arg);
/* A link's info on side s: its type, then the 8 bytes of its kind's first fields (16..23: a
 * netns link's inode and attach type, a tcx link's ifindex and attach type, an XDP link's
 * ifindex). */
void side_link_info_head(int s, int link, uint32_t out[3]);
/* BPF_PROG_QUERY of target for type: cnt ids into ids (NULL: none asked) and their attach flags
 * into pflags (NULL: none); the attr as the call left it (attach_flags, prog_cnt, revision) in
 * *a. */
struct bpf_result side_prog_query(int s, int target, uint32_t type, uint32_t qflags,
				  uint32_t *ids, uint32_t cnt, uint32_t *pflags, union bpf_attr *a);

/* BPF_PROG_LOAD on side s (license GPL), with a level-1 log into log unless it is NULL; the
 * _eat form with expected_attach_type eat. */
struct bpf_result side_prog_load_log(int s, uint32_t type, const struct bpf_insn *insns,
				     uint32_t cnt, char *log, size_t log_size);
struct bpf_result side_prog_load_eat_log(int s, uint32_t type, uint32_t eat,
					 const struct bpf_insn *insns, uint32_t cnt, char *log,
					 size_t log_size);
/* The same with a log of that level. */
struct bpf_result side_prog_load_level(int s, uint32_t type, uint32_t eat,
				       const struct bpf_insn *insns, uint32_t cnt, char *log,
				       size_t log_size, uint32_t level);
/* ... and with these prog_flags (BPF_F_SLEEPABLE, ...). */
struct bpf_result side_prog_load_flags(int s, uint32_t type, uint32_t eat, uint32_t prog_flags,
				       const struct bpf_insn *insns, uint32_t cnt, char *log,
				       size_t log_size, uint32_t level);
/* ... of a program with callbacks, which the kernel takes with BTF func_info only: a global
 * main and static functions at the ncbs (at most SIDE_MAX_CBS, ascending) insns of cbs; a
 * level-2 log into log (NULL: none). */
#define SIDE_MAX_CBS 4
struct bpf_result side_prog_load_cbs(int s, uint32_t type, uint32_t prog_flags,
				     const struct bpf_insn *insns, uint32_t cnt, const uint32_t *cbs,
				     uint32_t ncbs, char *log, size_t log_size);

/* The error line of a level-1 log: the last line before "processed ..." (cut there); NULL
 * without that line (6.18 ends some messages without a newline, which glues them to it). */
const char *log_error_line(char *log);

/* Loads one program on both sides (k_insns and u_insns: the same program with each side's map
 * fds): the verdicts must agree and, for a rejection, the error line (the last one before
 * "processed ..."); failures are reported at file:line. */
void verdicts_agree_at(const char *file, int line, const char *what, uint32_t type,
		       const struct bpf_insn *k_insns, const struct bpf_insn *u_insns,
		       uint32_t cnt);
#define VERDICTS_AGREE(what, type, k_insns, u_insns, cnt)                                        \
	verdicts_agree_at(__FILE__, __LINE__, what, type, k_insns, u_insns, cnt)

/* The same with expected_attach_type eat (the kernel's verdict: accepted). */
bool verdicts_agree_eat_at(const char *file, int line, const char *what, uint32_t type,
			   uint32_t eat, const struct bpf_insn *k_insns,
			   const struct bpf_insn *u_insns, uint32_t cnt);
#define VERDICTS_AGREE_EAT(what, type, eat, insns, cnt)                                          \
	verdicts_agree_eat_at(__FILE__, __LINE__, what, type, eat, insns, insns, cnt)

/* "r0 = 1; exit" of type loaded on both sides with every expected_attach_type below 64: the
 * verdicts (and error lines) must agree; how many the kernel accepted. */
int attach_types_agree_at(const char *file, int line, uint32_t type);
#define ATTACH_TYPES_AGREE(type) attach_types_agree_at(__FILE__, __LINE__, type)

/* Every access to the ctx of type (attach type eat) at each offset in [lo, hi) and each size:
 * a load, a store of a register and of an immediate, and with ldsx a sign-extending load, each
 * loaded on both sides (VERDICTS_AGREE_EAT: the verdicts and error lines must agree); how many
 * the kernel accepted. */
int ctx_accesses_agree_at(const char *file, int line, uint32_t type, uint32_t eat, int lo, int hi,
			  bool ldsx);
#define CTX_ACCESSES_AGREE(type, eat, lo, hi, ldsx)                                              \
	ctx_accesses_agree_at(__FILE__, __LINE__, type, eat, lo, hi, ldsx)

/* BPF_PROG_TEST_RUN of "r0 = 1; exit" of type (attach type eat): both sides refuse it with
 * ENOTSUPP (the kernel's types without a test run). */
void test_run_unsupported_at(const char *file, int line, uint32_t type, uint32_t eat);
#define TEST_RUN_UNSUPPORTED(type, eat) test_run_unsupported_at(__FILE__, __LINE__, type, eat)

/* VERDICTS_AGREE of the n (at most 32) insns, whose instruction map_insn loads map[s] on side s. */
void verdicts_agree_map_at(const char *file, int line, const char *what, uint32_t type,
			   const struct bpf_insn *insns, uint32_t n, const int map[NSIDES],
			   int map_insn);
#define VERDICTS_AGREE_MAP(what, type, insns, n, map, map_insn)                                  \
	verdicts_agree_map_at(__FILE__, __LINE__, what, type, insns, n, map, map_insn)
/* VERDICTS_AGREE_EAT of the n (at most 32) insns, every map fd load of which loads map[s] on
 * side s; the kernel's verdict (accepted). */
bool verdicts_agree_maps_at(const char *file, int line, const char *what, uint32_t type,
			    uint32_t eat, const struct bpf_insn *insns, uint32_t n,
			    const int map[NSIDES]);

/* BPF_PROG_LOAD of cnt insns of type on side s (license GPL, no log): the fd, or -1 and errno. */
int side_prog_load(int s, uint32_t type, const struct bpf_insn *insns, uint32_t cnt);

/* BPF_BTF_LOAD on side s of the blob btf_blob() makes of nwords type words and the strs_len
 * bytes of strs (tests/btf_blob.h): the fd, or -1 and errno. */
int side_btf_load(int s, const uint32_t *types, uint32_t nwords, const char *strs,
		  uint32_t strs_len);

/* BPF_PROG_TEST_RUN of prog_fd on side s with the packet pkt (len bytes); *retval set. */
struct bpf_result side_test_run(int s, int prog_fd, const void *pkt, uint32_t len,
				uint32_t *retval);

/* The same with repeat and a ctx in and out (ctx_in NULL: none in). */
struct bpf_result side_test_run_ctx(int s, int prog_fd, const void *pkt, uint32_t len,
				    uint32_t repeat, const void *ctx_in, uint32_t ctx_in_size,
				    void *ctx_out, uint32_t ctx_out_size, uint32_t *retval);

/* Whether the sides' results agree: both succeeded, or both failed with the same errno; a test
 * failure at file:line naming what otherwise. */
int results_agree_at(const char *file, int line, const char *what, const struct bpf_result r[2]);
#define AGREE(what, r) results_agree_at(__FILE__, __LINE__, what, r)

/* Put a pointer into an attr field, on 32- and 64-bit builds alike. */
#define PTR_TO_U64(p) ((uint64_t)(uintptr_t)(p))

/* In a test body: skip the test when the kernel cannot serve as the reference. */
#define SKIP_WITHOUT_KERNEL_BPF()                                                              \
	do {                                                                                     \
		if (!kernel_bpf_available())                                                     \
			SKIP("kernel bpf() unavailable: %s", kernel_bpf_unavailable_reason());   \
	} while (0)

#endif

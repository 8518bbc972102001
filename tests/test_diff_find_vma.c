/* bpf_find_vma() against the kernel: a (sleepable) syscall program asks for the area of this
 * process's memory holding an address (the executable's data and code, the stack, the heap, an
 * anonymous and a shared file mapping, a hole between mappings, NULL, the vsyscall page, the
 * vDSO; a bad flag) and its callback reports the struct vm_area_struct it gets: start, end, page
 * offset, permission flags, whether a file is mapped, and the file's inode number and name,
 * walked to through the kernel's struct file, dentry and inode.  Both must give the same result
 * and report, compiled and interpreted, and the same verdict and level-2 log; the refusals (a
 * callback returning 2, a NULL task, the ctx as the task, the ctx as the callback's) the
 * kernel's, log line included, and so must what other program types (a socket filter, a
 * kprobe, XDP) are allowed.  Skipped without the kernel's bpf() or its BTF.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "kbpf.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/insn.h"

/* The program's ctx: addr and flags in, the result and the callback's report out. */
struct vma_report {
	uint64_t addr, flags;
	int64_t ret;
	uint64_t start, end, pgoff, vm_flags, has_file, ino;
	char name[16];
};

enum { O_START, O_END, O_PGOFF, O_FLAGS, O_FILE, O_F_INODE, O_I_INO, O_F_DENTRY, O_D_NAME,
       O__COUNT };
#define OFF(n) PLACEHOLDER(n)
#define CB 37 /* the callback's first insn */
#define NINSNS 61

/* main: r0 = bpf_find_vma(current task, ctx->addr, cb, fp - 64, ctx->flags), stored in ctx; the
 * report copied from fp - 64 to the ctx.  cb(task, vma, buf): the area's fields into buf, and
 * with a file its inode number and name. */
static void build(struct bpf_insn *p)
{
	int n = 0;

	p[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
	for (int i = 0; i < 8; i++)
		p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_10, (short)(-64 + 8 * i), 0);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf);
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_0);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_6, 0);
	p[n++] = BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, BPF_PSEUDO_FUNC, 0, CB - 13);
	p[n++] = BPF_RAW_INSN(0, 0, 0, 0, 0);
	p[n++] = BPF_MOV64_REG(BPF_REG_4, BPF_REG_10);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -64);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_6, 8);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_find_vma);
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_0, 16);
	for (int i = 0; i < 8; i++) {
		p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_10, (short)(-64 + 8 * i));
		p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_6, BPF_REG_1, (short)(24 + 8 * i));
	}
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
	/* n == CB */
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_2, OFF(O_START));
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_4, 0);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_2, OFF(O_END));
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_4, 8);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_2, OFF(O_PGOFF));
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_4, 16);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_2, OFF(O_FLAGS));
	p[n++] = BPF_ALU64_IMM(BPF_AND, BPF_REG_4, 0xf);
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_4, 24);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_2, OFF(O_FILE));
	p[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_4, 0, 11);
	p[n++] = BPF_ST_MEM(BPF_DW, BPF_REG_3, 32, 1);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_4, OFF(O_F_INODE));
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_5, OFF(O_I_INO));
	p[n++] = BPF_STX_MEM(BPF_DW, BPF_REG_3, BPF_REG_5, 40);
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_4, OFF(O_F_DENTRY));
	p[n++] = BPF_LDX_MEM(BPF_DW, BPF_REG_5, BPF_REG_5, OFF(O_D_NAME));
	p[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_3);
	p[n++] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 48);
	p[n++] = BPF_MOV64_IMM(BPF_REG_2, 16);
	p[n++] = BPF_MOV64_REG(BPF_REG_3, BPF_REG_5);
	p[n++] = BPF_EMIT_CALL(BPF_FUNC_probe_read_kernel_str);
	p[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
	p[n++] = BPF_EXIT_INSN();
}

static bool offsets(int32_t *o)
{
	const struct btf *btf = btf_vmlinux();
	u32 vma = btf ? btf_find_by_name_kind(btf, "vm_area_struct", BTF_KIND_STRUCT) : 0;
	u32 file = btf ? btf_find_by_name_kind(btf, "file", BTF_KIND_STRUCT) : 0;
	u32 inode = btf ? btf_find_by_name_kind(btf, "inode", BTF_KIND_STRUCT) : 0;
	u32 dentry = btf ? btf_find_by_name_kind(btf, "dentry", BTF_KIND_STRUCT) : 0;
	u32 path = btf ? btf_find_by_name_kind(btf, "path", BTF_KIND_STRUCT) : 0;
	u32 qstr = btf ? btf_find_by_name_kind(btf, "qstr", BTF_KIND_STRUCT) : 0;

	if (!vma || !file || !inode || !dentry || !path || !qstr)
		return false;
	o[O_START] = (int32_t)btf_member_offset(btf, vma, "vm_start");
	o[O_END] = (int32_t)btf_member_offset(btf, vma, "vm_end");
	o[O_PGOFF] = (int32_t)btf_member_offset(btf, vma, "vm_pgoff");
	o[O_FLAGS] = (int32_t)btf_member_offset(btf, vma, "vm_flags");
	o[O_FILE] = (int32_t)btf_member_offset(btf, vma, "vm_file");
	o[O_F_INODE] = (int32_t)btf_member_offset(btf, file, "f_inode");
	o[O_I_INO] = (int32_t)btf_member_offset(btf, inode, "i_ino");
	o[O_F_DENTRY] = (int32_t)(btf_member_offset(btf, file, "f_path") +
				  btf_member_offset(btf, path, "dentry"));
	o[O_D_NAME] = (int32_t)(btf_member_offset(btf, dentry, "d_name") +
				btf_member_offset(btf, qstr, "name"));
	for (int i = 0; i < O__COUNT; i++)
		if (o[i] < 0)
			return false;
	return true;
}

/* PROG_LOAD on side s of the program with its callback at cb (func_info for both), sleepable as
 * 6.18 wants syscall programs; the fd, or -1 and errno (with the log). */
static struct bpf_result load_as(int s, uint32_t type, const struct bpf_insn *p, uint32_t n,
				 uint32_t cb, char *log, size_t log_size)
{
	return side_prog_load_cbs(s, type, type == BPF_PROG_TYPE_SYSCALL ? BPF_F_SLEEPABLE : 0, p,
				  n, &cb, 1, log, log_size);
}

static struct bpf_result load(int s, const struct bpf_insn *p, char *log, size_t log_size)
{
	return load_as(s, BPF_PROG_TYPE_SYSCALL, p, NINSNS, CB, log, log_size);
}

static int data_word = 42;
static void code_here(void)
{
}

TEST(diff_find_vma)
{
	static char log[NSIDES][1 << 20];
	struct bpf_insn p[NINSNS];
	struct bpf_result r[NSIDES];
	int32_t o[O__COUNT];
	int fd[NSIDES], jit_was, stack_word = 1, agreed = 0, found = 0;
	char tmpl[] = "/tmp/userbpf-vma-XXXXXX";
	uint8_t *anon, *hole, *shared;
	int tmp;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!offsets(o))
		SKIP("no kernel BTF with struct vm_area_struct, file, dentry and inode");
	build(p);
	fill_placeholders(p, NINSNS, o, O__COUNT);
	for (int s = 0; s < NSIDES; s++)
		r[s] = load(s, p, log[s], sizeof(log[s]));
	if (!AGREE("find_vma program", r))
		return;
	if (r[K].rc < 0) {
		test_fail(__FILE__, __LINE__, "the kernel refuses the program: %s",
			  log_error_line(log[K]) ?: "?");
		return;
	}
	LOGS_SAME("find_vma program", log[K], log[U]);
	fd[K] = r[K].rc;
	fd[U] = r[U].rc;
	/* the areas: anonymous, with a hole in the middle, and a shared file mapping */
	anon = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(anon != MAP_FAILED);
	hole = anon + 4096;
	munmap(hole, 4096);
	tmp = mkstemp(tmpl);
	REQUIRE(tmp >= 0 && ftruncate(tmp, 8192) == 0);
	shared = mmap(NULL, 8192, PROT_READ, MAP_SHARED, tmp, 0);
	REQUIRE(shared != MAP_FAILED);
	void *heap = malloc(64);
	const uint64_t addrs[] = {
		(uintptr_t)&data_word, (uintptr_t)code_here, (uintptr_t)&stack_word,
		(uintptr_t)heap, (uintptr_t)anon + 8, (uintptr_t)anon + 2 * 4096 + 100,
		(uintptr_t)hole + 10, (uintptr_t)shared + 4096, 0, 0xffffffffff600000ull, 4096,
		(uintptr_t)&data_word, getauxval(AT_SYSINFO_EHDR),
	};
	jit_was = userbpf_set_jit(1);
	for (int jit = 1; jit >= 0; jit--) {
		int ufd = fd[U];

		if (!jit) {
			userbpf_set_jit(0);
			ufd = load(U, p, NULL, 0).rc;
			REQUIRE(ufd >= 0);
		}
		for (size_t i = 0; i < sizeof(addrs) / sizeof(*addrs); i++) {
			struct vma_report out[NSIDES];
			bool bad_flag = i == 11;
			struct bpf_result t[NSIDES];
			uint32_t ret;
			char what[64];

			snprintf(what, sizeof(what), "address %zu (%s)", i, jit ? "JIT" : "interp");
			/* (a syscall program's run writes its ctx back where it came from) */
			for (int s = 0; s < NSIDES; s++) {
				out[s] = (struct vma_report){ .addr = addrs[i], .flags = bad_flag };
				t[s] = side_test_run_ctx(s, s == U ? ufd : fd[K], NULL, 0, 0,
							 &out[s], sizeof(out[s]), NULL, 0, &ret);
			}
			if (!AGREE(what, t))
				continue;
			if (t[K].rc) {
				test_fail(__FILE__, __LINE__, "%s: the run fails (errno %d)", what,
					  t[K].err);
				continue;
			}
			if (memcmp(&out[K], &out[U], sizeof(out[K]))) {
				test_fail(__FILE__, __LINE__,
					  "%s: kernel ret %lld %#llx-%#llx pgoff %llu flags %#llx "
					  "file %llu ino %llu name %.16s; userbpf ret %lld "
					  "%#llx-%#llx pgoff %llu flags %#llx file %llu ino %llu "
					  "name %.16s", what,
					  (long long)out[K].ret, (unsigned long long)out[K].start,
					  (unsigned long long)out[K].end,
					  (unsigned long long)out[K].pgoff,
					  (unsigned long long)out[K].vm_flags,
					  (unsigned long long)out[K].has_file,
					  (unsigned long long)out[K].ino, out[K].name,
					  (long long)out[U].ret, (unsigned long long)out[U].start,
					  (unsigned long long)out[U].end,
					  (unsigned long long)out[U].pgoff,
					  (unsigned long long)out[U].vm_flags,
					  (unsigned long long)out[U].has_file,
					  (unsigned long long)out[U].ino, out[U].name);
				continue;
			}
			agreed++;
			found += out[K].ret == 0;
		}
		if (!jit)
			close(ufd);
	}
	userbpf_set_jit(jit_was);
	free(heap);
	munmap(shared, 8192);
	munmap(anon, 4096);
	munmap(anon + 2 * 4096, 4096);
	close(tmp);
	unlink(tmpl);
	close(fd[K]);
	close(fd[U]);
	printf("diff_find_vma: %d lookups (%d found an area) with the kernel's results and "
	       "reports\n", agreed, found);
	CHECK_EQ(agreed, 26);
	/* (8 of the 13 addresses are in an area, on both passes: not the hole, NULL, the
	 * vsyscall page, 4096, nor the one asked with a bad flag; under valgrind, whose own
	 * mappings hold some, fewer) */
	CHECK(found >= 12);
}

/* The refusals: each program's verdict, errno and log line must be the kernel's. */
TEST(diff_find_vma_refusals)
{
	enum { OK, CB_RET_2, NULL_TASK, CTX_TASK, CTX_CB_CTX, SOCKET_FILTER, KPROBE, XDP, NCASES };
	static const char *const names[NCASES] = {
		"accepted", "callback returns 2", "NULL task", "the ctx as the task",
		"the ctx as the callback's ctx", "a socket filter", "a kprobe", "XDP",
	};
	static char log[NSIDES][1 << 16];
	int accepted = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	if (!btf_vmlinux())
		SKIP("no kernel BTF: the task argument is the kernel's task_struct");
	for (int c = 0; c < NCASES; c++) {
		uint32_t type = c == SOCKET_FILTER ? BPF_PROG_TYPE_SOCKET_FILTER
				: c == KPROBE	   ? BPF_PROG_TYPE_KPROBE
				: c == XDP	   ? BPF_PROG_TYPE_XDP
						   : BPF_PROG_TYPE_SYSCALL;
		const struct bpf_insn p[] = {
			BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),
			BPF_ST_MEM(BPF_DW, BPF_REG_10, -8, 0),
			BPF_EMIT_CALL(BPF_FUNC_get_current_task_btf),
			c == NULL_TASK ? BPF_MOV64_IMM(BPF_REG_1, 0)
			: c == CTX_TASK ? BPF_MOV64_REG(BPF_REG_1, BPF_REG_6)
					: BPF_MOV64_REG(BPF_REG_1, BPF_REG_0),
			BPF_MOV64_IMM(BPF_REG_2, 4096),
			BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, BPF_PSEUDO_FUNC, 0, 7),
			BPF_RAW_INSN(0, 0, 0, 0, 0),
			c == CTX_CB_CTX ? BPF_MOV64_REG(BPF_REG_4, BPF_REG_6)
					: BPF_MOV64_REG(BPF_REG_4, BPF_REG_10),
			c == CTX_CB_CTX ? BPF_MOV64_IMM(BPF_REG_5, 0)
					: BPF_ALU64_IMM(BPF_ADD, BPF_REG_4, -8),
			BPF_MOV64_IMM(BPF_REG_5, 0),
			BPF_EMIT_CALL(BPF_FUNC_find_vma),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN(),
			/* 13: the callback */
			BPF_MOV64_IMM(BPF_REG_0, c == CB_RET_2 ? 2 : 0),
			BPF_EXIT_INSN(),
		};
		struct bpf_result r[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			r[s] = load_as(s, type, p, sizeof(p) / sizeof(*p), 13, log[s],
				       sizeof(log[s]));
		if (AGREE(names[c], r) && r[K].rc < 0) {
			const char *k = log_error_line(log[K]), *u = log_error_line(log[U]);

			if (!k || !u || strcmp(k, u))
				test_fail(__FILE__, __LINE__,
					  "%s: kernel says \"%s\", userbpf \"%s\"", names[c],
					  k ?: "?", u ?: "?");
			if (getenv("TEST_VERBOSE"))
				printf("  %s: %s\n", names[c], k ?: "?");
		}
		for (int s = 0; s < NSIDES; s++)
			if (r[s].rc >= 0)
				close(r[s].rc);
		accepted += r[K].rc >= 0;
	}
	/* the well-formed program, as a syscall program, a socket filter, a kprobe and XDP (one
	 * of 6.18's base helpers: every program type) */
	CHECK_EQ(accepted, 4);
}

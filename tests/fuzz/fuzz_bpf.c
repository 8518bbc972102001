/* libFuzzer target for userbpf's bpf() entry point (make fuzz).
 *
 * Why: bpf() takes an attr of any size and content from its caller; whatever the bytes, userbpf
 * must answer as the kernel does (success, or -1 with a known errno) without crashing, leaking, or
 * touching memory the kernel would not.  The input is a sequence of steps:
 *
 *   cmd byte, 2 size bytes, 1 mode byte, attr bytes (up to sizeof(union bpf_attr)),
 *   then one selector byte per pointer or fd field of that command (and some for lengths)
 *
 * The attr is a heap buffer of exactly `size` bytes (so ASan reports a read past what the caller
 * passed), except for commands that write results back into attr, which get at least the whole
 * union as on the kernel.  Pointer fields are never passed through raw: each becomes NULL or a
 * pointer to a harness buffer of at least the size the kernel would access there (exactly that
 * size, or that plus a fuzz-chosen slack, or a 64 KiB buffer), filled with input bytes.  String
 * fields become NULL or one of a few fixed strings (never a path that could be created).  fd
 * fields become -1, a /dev/null fd, 0, a closed number, a cgroup made for the run or this
 * thread's network namespace (attach targets), or an fd this input created.  Map sizes
 * are clamped (small, or raw with at most 1 GiB of elements), so that no create asks for more
 * memory than libFuzzer allows.
 *
 * Every call must return -1 with an errno in a known set, or succeed; fds that commands return are
 * tracked and closed at the end of the input, after which the lowest free fd must be what it was
 * at the start of the input (no fd leak).  The harness has no randomness or clock: a given input
 * always does the same calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../test_cgroup.h"
#include "userbpf.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

#define MAX_STEPS 64
#define MAX_FDS 64
#define BIG (64 * 1024)
#define MAX_NEED (16u << 20) /* a field needing more than this gets NULL */
#define ATTR_SZ ((unsigned int)sizeof(union bpf_attr))

/* Let a huge create fail with ENOMEM, as on the kernel, instead of aborting in ASan. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t get8(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint16_t get16(struct in *in)
{
	uint16_t v = get8(in);

	return v | (uint16_t)get8(in) << 8;
}

/* Fills buf from the input without consuming it; the rest with a byte pattern. */
static void fill(const struct in *in, uint8_t *buf, size_t len, uint8_t pat)
{
	size_t k = in->n < len ? in->n : len;

	memcpy(buf, in->p, k);
	memset(buf + k, pat, len - k);
}

struct map_info {
	int fd;
	int is_map;
	uint32_t type, key_size, value_size;
};

struct state {
	struct map_info fds[MAX_FDS];
	int nfds;
	int devnull;
	void *allocs[64];
	int nallocs;
};

static void *alloc(struct state *s, size_t n)
{
	void *p;

	if (s->nallocs == 64)
		return NULL;
	p = malloc(n ? n : 1);
	if (p)
		s->allocs[s->nallocs++] = p;
	return p;
}

static void free_allocs(struct state *s)
{
	for (int i = 0; i < s->nallocs; i++)
		free(s->allocs[i]);
	s->nallocs = 0;
}

static const struct map_info *find_fd(const struct state *s, int fd)
{
	for (int i = 0; i < s->nfds; i++)
		if (s->fds[i].fd == fd)
			return &s->fds[i];
	return NULL;
}

/* A field at off of width w, within the size the caller passed?  A field cut by size is
 * zeroed where it lies, so that no partial pointer reaches the library. */
static int field_in(uint8_t *attr, unsigned int size, unsigned int off, unsigned int w)
{
	if (!attr || off >= size)
		return 0;
	if (off + w > size) {
		memset(attr + off, 0, size - off);
		return 0;
	}
	return 1;
}

/* Attach targets (BPF_PROG_ATTACH, BPF_LINK_CREATE, BPF_PROG_QUERY): a cgroup2 directory made
 * for the run (removed at exit), this thread's network namespace; -1 where there is none. */
static int cgroup_fd = -1, netns_fd = -1;
static char cgroup_dir[5300];

static void remove_cgroup_dir(void)
{
	if (cgroup_dir[0])
		rmdir(cgroup_dir);
}

static void open_attach_targets(void)
{
	char own[5200];

	netns_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own_cgroup_dir(own, sizeof(own)))
		return;
	snprintf(cgroup_dir, sizeof(cgroup_dir), "%.5000s/userbpf-fuzz-%d", own, (int)getpid());
	if (mkdir(cgroup_dir, 0755)) {
		cgroup_dir[0] = 0;
		return;
	}
	atexit(remove_cgroup_dir);
	cgroup_fd = open(cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int put_fd(struct state *s, struct in *in, uint8_t *attr, unsigned int size,
		  unsigned int off)
{
	uint8_t b = get8(in);
	int32_t fd;

	switch (b % 8) {
	case 0: fd = -1; break;
	case 1: fd = s->devnull; break;
	case 2: fd = 0; break;
	case 3: /* not open, or an attach target: a cgroup made for the run, this network ns */
		fd = !(b & 8) ? 1 << 20 : b & 16 ? cgroup_fd : netns_fd;
		break;
	default: fd = s->nfds ? s->fds[(b / 8) % s->nfds].fd : -1; break;
	}
	if (field_in(attr, size, off, 4))
		memcpy(attr + off, &fd, 4);
	else
		fd = 0; /* what the library sees past size */
	return fd;
}

/* A pointer field whose target the library may access for `need` bytes (0: unknown). */
static void put_ptr(struct state *s, struct in *in, uint8_t *attr, unsigned int size,
		    unsigned int off, uint64_t need)
{
	uint8_t b = get8(in);
	uint64_t len;
	uint8_t *p = NULL;

	if (!field_in(attr, size, off, 8))
		return;
	if (need > MAX_NEED)
		b = 0;
	switch (b % 4) {
	case 0: len = 0; break;				/* NULL */
	case 1: len = need > BIG ? need : BIG; break;	/* big */
	case 2: len = need ? need : BIG; break;		/* exact */
	default: len = need ? need + get8(in) : BIG; break; /* a little more */
	}
	if (len) {
		p = alloc(s, len);
		if (p)
			fill(in, p, len, b);
	}
	uint64_t v = (uint64_t)(uintptr_t)p;

	memcpy(attr + off, &v, 8);
}

static void put_str(struct in *in, uint8_t *attr, unsigned int size,
		    unsigned int off)
{
	static const char *const strs[] = { "", "GPL", "/nonexistent-userbpf-fuzz/obj",
					    "sys_enter" };
	uint8_t b = get8(in);
	const char *str = b % 5 ? strs[b % 4] : NULL;
	uint64_t v = (uint64_t)(uintptr_t)str;

	if (field_in(attr, size, off, 8))
		memcpy(attr + off, &v, 8);
}

/* Clamps a u32 length field to max (inclusive). */
static uint32_t clamp_u32(uint8_t *attr, unsigned int size, unsigned int off, uint32_t max)
{
	uint32_t v = 0;

	if (field_in(attr, size, off, 4)) {
		memcpy(&v, attr + off, 4);
		v %= max + 1;
		memcpy(attr + off, &v, 4);
	}
	return v;
}

static uint32_t get_u32(const uint8_t *attr, unsigned int size, unsigned int off)
{
	uint32_t v = 0;

	if (attr && off + 4 <= size)
		memcpy(&v, attr + off, 4);
	return v;
}

#define OFF(f) ((unsigned int)offsetof(union bpf_attr, f))

/* What the library may read or write through a key or value pointer of this map. */
static uint64_t key_need(const struct map_info *m)
{
	return m && m->is_map ? m->key_size : 0;
}

static uint64_t value_need(const struct map_info *m)
{
	if (!m || !m->is_map)
		return 0;
	switch (m->type) {
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE:
		/* rounded up to 8 per possible CPU; assume no more than 1024 CPUs */
		return ((uint64_t)m->value_size + 7) / 8 * 8 * 1024;
	}
	return m->value_size;
}

static int cmd_returns_fd(int cmd)
{
	switch (cmd) {
	case BPF_MAP_CREATE: case BPF_PROG_LOAD: case BPF_OBJ_GET: case BPF_PROG_GET_FD_BY_ID:
	case BPF_MAP_GET_FD_BY_ID: case BPF_BTF_LOAD: case BPF_BTF_GET_FD_BY_ID:
	case BPF_RAW_TRACEPOINT_OPEN: case BPF_LINK_CREATE: case BPF_LINK_GET_FD_BY_ID:
	case BPF_ITER_CREATE: case BPF_ENABLE_STATS:
		return 1;
	}
	return 0;
}

/* Commands that write results back into attr (as the kernel does, whatever size says). */
static int cmd_writes_attr(int cmd)
{
	switch (cmd) {
	case BPF_MAP_LOOKUP_BATCH: case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH: case BPF_MAP_DELETE_BATCH: case BPF_PROG_TEST_RUN:
	case BPF_OBJ_GET_INFO_BY_FD: case BPF_PROG_QUERY: case BPF_TASK_FD_QUERY:
	case BPF_MAP_GET_NEXT_ID: case BPF_PROG_GET_NEXT_ID: case BPF_BTF_GET_NEXT_ID:
	case BPF_LINK_GET_NEXT_ID:
		return 1;
	}
	return 0;
}

static int errno_known(int e)
{
	switch (e) {
	case EPERM: case ENOENT: case ESRCH: case ENXIO: case E2BIG: case EBADF: case EAGAIN:
	case ENOMEM: case EACCES: case EFAULT: case EBUSY: case EEXIST: case ENODEV:
	case ENOTDIR: case EINVAL: case ENFILE: case EMFILE: case ENOSPC: case ERANGE:
	case ENOSYS: case ELOOP: case EOPNOTSUPP: case ENOTSUPP:
	case EBADFD: /* BPF_OBJ_GET_INFO_BY_FD of a closed fd, as the kernel's */
	case ENOTSOCK: /* a socket storage map's key: an fd that is not a socket */
	case EPROTO: /* an fd_array index (map or kfunc BTF) without fd_array, as 6.18 */
	case EBADMSG: /* an skb test run's CHECKSUM_COMPLETE that does not match its data */
	case EAFNOSUPPORT: /* an sk_lookup test run's ctx of neither family */
	case EOVERFLOW: /* a cpumap entry's queue size past the kernel's limit */
	case EIO: /* an iterator's output that could not be written to its memfd */
	case ESTALE: /* a cgroup attach or detach at another revision than the list's */
	case ENOLINK: /* an update of a cgroup link that was detached */
		return 1;
	}
	return 0;
}

/* Replaces every pointer and fd field of cmd, and clamps the lengths that size buffers. */
static void fixup(struct state *s, struct in *in, int cmd, uint8_t *a, unsigned int size)
{
	const struct map_info *m;
	uint32_t cnt;
	uint64_t kn, vn;

	switch (cmd) {
	case BPF_MAP_CREATE:
		if (get8(in) & 1) { /* small sizes, unless the input asks for raw ones */
			clamp_u32(a, size, OFF(key_size), 64);
			clamp_u32(a, size, OFF(value_size), 512);
			clamp_u32(a, size, OFF(max_entries), 1024);
		} else {
			/* Raw, but with at most 1 GiB of elements: a larger calloc would fail
			 * with ENOMEM, as it should, but libFuzzer reports any malloc over
			 * -rss_limit_mb as an out-of-memory crash. */
			uint64_t ks = get_u32(a, size, OFF(key_size));
			uint64_t vs = clamp_u32(a, size, OFF(value_size), 64u << 20);
			uint64_t max = 1024ULL * 1024 * 1024 / (ks + vs + 64);

			clamp_u32(a, size, OFF(max_entries), max < UINT32_MAX ? max : UINT32_MAX);
		}
		put_fd(s, in, a, size, OFF(inner_map_fd));
		put_fd(s, in, a, size, OFF(btf_fd));
		break;
	case BPF_MAP_LOOKUP_ELEM:
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_GET_NEXT_KEY:
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
		m = find_fd(s, put_fd(s, in, a, size, OFF(map_fd)));
		put_ptr(s, in, a, size, OFF(key), key_need(m));
		put_ptr(s, in, a, size, OFF(value), /* also next_key */
			cmd == BPF_MAP_GET_NEXT_KEY ? key_need(m) : value_need(m));
		break;
	case BPF_MAP_FREEZE:
		put_fd(s, in, a, size, OFF(map_fd));
		break;
	case BPF_MAP_LOOKUP_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
		m = find_fd(s, put_fd(s, in, a, size, OFF(batch.map_fd)));
		kn = key_need(m);
		vn = value_need(m);
		/* keep count * element size bounded, so that exact buffers stay allocatable */
		cnt = clamp_u32(a, size, OFF(batch.count),
				get8(in) & 1 ? 4096 : 16);
		if (!m) /* unknown sizes: a 64 KiB buffer holds what a rejected call reads */
			kn = vn = 0;
		put_ptr(s, in, a, size, OFF(batch.in_batch), kn > 8 ? kn : 8);
		put_ptr(s, in, a, size, OFF(batch.out_batch), kn > 8 ? kn : 8);
		put_ptr(s, in, a, size, OFF(batch.keys), kn * cnt);
		put_ptr(s, in, a, size, OFF(batch.values), vn * cnt);
		break;
	case BPF_PROG_LOAD: {
		uint32_t n = clamp_u32(a, size, OFF(insn_cnt), 8192);

		put_ptr(s, in, a, size, OFF(insns), (uint64_t)n * 8);
		put_str(in, a, size, OFF(license));
		n = clamp_u32(a, size, OFF(log_size), BIG);
		put_ptr(s, in, a, size, OFF(log_buf), n);
		put_fd(s, in, a, size, OFF(prog_btf_fd));
		n = clamp_u32(a, size, OFF(func_info_cnt), 64);
		put_ptr(s, in, a, size, OFF(func_info),
			(uint64_t)n * clamp_u32(a, size, OFF(func_info_rec_size), 256));
		n = clamp_u32(a, size, OFF(line_info_cnt), 64);
		put_ptr(s, in, a, size, OFF(line_info),
			(uint64_t)n * clamp_u32(a, size, OFF(line_info_rec_size), 256));
		put_fd(s, in, a, size, OFF(attach_prog_fd));
		put_ptr(s, in, a, size, OFF(fd_array), 0);
		n = clamp_u32(a, size, OFF(core_relo_cnt), 64);
		put_ptr(s, in, a, size, OFF(core_relos),
			(uint64_t)n * clamp_u32(a, size, OFF(core_relo_rec_size), 256));
		break;
	}
	case BPF_OBJ_PIN:
	case BPF_OBJ_GET:
		put_str(in, a, size, OFF(pathname));
		put_fd(s, in, a, size, OFF(bpf_fd));
		break;
	case BPF_PROG_ATTACH:
	case BPF_PROG_DETACH:
		put_fd(s, in, a, size, OFF(target_fd));
		put_fd(s, in, a, size, OFF(attach_bpf_fd));
		put_fd(s, in, a, size, OFF(replace_bpf_fd));
		break;
	case BPF_PROG_TEST_RUN:
		put_fd(s, in, a, size, OFF(test.prog_fd));
		put_ptr(s, in, a, size, OFF(test.data_in),
			clamp_u32(a, size, OFF(test.data_size_in), BIG));
		put_ptr(s, in, a, size, OFF(test.data_out),
			clamp_u32(a, size, OFF(test.data_size_out), BIG));
		put_ptr(s, in, a, size, OFF(test.ctx_in),
			clamp_u32(a, size, OFF(test.ctx_size_in), BIG));
		put_ptr(s, in, a, size, OFF(test.ctx_out),
			clamp_u32(a, size, OFF(test.ctx_size_out), BIG));
		break;
	case BPF_OBJ_GET_INFO_BY_FD:
		put_fd(s, in, a, size, OFF(info.bpf_fd));
		put_ptr(s, in, a, size, OFF(info.info), clamp_u32(a, size, OFF(info.info_len), BIG));
		break;
	case BPF_PROG_QUERY:
		put_fd(s, in, a, size, OFF(query.target_fd));
		cnt = clamp_u32(a, size, OFF(query.prog_cnt), 4096);
		put_ptr(s, in, a, size, OFF(query.prog_ids), (uint64_t)cnt * 4);
		put_ptr(s, in, a, size, OFF(query.prog_attach_flags), (uint64_t)cnt * 4);
		break;
	case BPF_RAW_TRACEPOINT_OPEN:
		put_str(in, a, size, OFF(raw_tracepoint.name));
		put_fd(s, in, a, size, OFF(raw_tracepoint.prog_fd));
		break;
	case BPF_BTF_LOAD:
		put_ptr(s, in, a, size, OFF(btf), clamp_u32(a, size, OFF(btf_size), BIG));
		put_ptr(s, in, a, size, OFF(btf_log_buf), clamp_u32(a, size, OFF(btf_log_size), BIG));
		break;
	case BPF_TASK_FD_QUERY:
		put_ptr(s, in, a, size, OFF(task_fd_query.buf),
			clamp_u32(a, size, OFF(task_fd_query.buf_len), BIG));
		break;
	case BPF_LINK_CREATE:
		/* its union holds many pointers: keep the common head only */
		if (a && size > OFF(link_create.flags) + 4)
			memset(a + OFF(link_create.flags) + 4, 0, size - OFF(link_create.flags) - 4);
		put_fd(s, in, a, size, OFF(link_create.prog_fd));
		put_fd(s, in, a, size, OFF(link_create.target_fd));
		break;
	case BPF_LINK_UPDATE:
		put_fd(s, in, a, size, OFF(link_update.link_fd));
		put_fd(s, in, a, size, OFF(link_update.new_prog_fd));
		put_fd(s, in, a, size, OFF(link_update.old_prog_fd));
		break;
	case BPF_ITER_CREATE:
		put_fd(s, in, a, size, OFF(iter_create.link_fd));
		break;
	case BPF_LINK_DETACH:
		put_fd(s, in, a, size, OFF(link_detach.link_fd));
		break;
	case BPF_PROG_BIND_MAP:
		put_fd(s, in, a, size, OFF(prog_bind_map.prog_fd));
		put_fd(s, in, a, size, OFF(prog_bind_map.map_fd));
		break;
	case BPF_PROG_GET_NEXT_ID: case BPF_MAP_GET_NEXT_ID: case BPF_BTF_GET_NEXT_ID:
	case BPF_LINK_GET_NEXT_ID: case BPF_PROG_GET_FD_BY_ID: case BPF_MAP_GET_FD_BY_ID:
	case BPF_BTF_GET_FD_BY_ID: case BPF_LINK_GET_FD_BY_ID: case BPF_ENABLE_STATS:
		break; /* no pointers or fds */
	default:
		/* a command this header does not know: its fields are unknown, so no pointers */
		if (a && size > 4)
			memset(a + 4, 0, size - 4);
		break;
	}
}

static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

static int initialized, devnull_fd;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct state s;
	int base_fd;

	if (!initialized) {
		devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		open_attach_targets();
		initialized = 1;
	}
	base_fd = lowest_free_fd(); /* libFuzzer's own files come and go between inputs */
	memset(&s, 0, sizeof(s));
	s.devnull = devnull_fd;

	for (int step = 0; step < MAX_STEPS && in.n >= 4; step++) {
		uint8_t cb = get8(&in), mode;
		uint16_t sz = get16(&in);
		int cmd, ret, err;
		unsigned int asize, alloc_size;
		uint8_t *attr = NULL;

		cmd = cb < 0xf0 ? cb % 40 : cb == 0xff ? -1 : cb == 0xfe ? 1 << 30 : cb - 0xf0 + 40;
		switch (sz >> 14) {
		case 0: asize = ATTR_SZ; break;
		case 1: asize = sz % (ATTR_SZ + 1); break;
		case 2: asize = ATTR_SZ + sz % 64; break;
		default: asize = sz & 0x3fff; break; /* past a page: E2BIG */
		}
		mode = get8(&in);
		alloc_size = asize;
		if (cmd_writes_attr(cmd) && alloc_size < ATTR_SZ)
			alloc_size = ATTR_SZ;
		if (!(mode & 1)) {
			attr = alloc(&s, alloc_size);
			if (!attr)
				break;
			memset(attr, 0, alloc_size);
			for (unsigned int i = 0; i < asize && i < ATTR_SZ; i++)
				attr[i] = get8(&in);
			/* bytes past the union: zero (accepted) unless the input says otherwise */
			if ((mode & 2) && asize > ATTR_SZ)
				attr[asize - 1] = mode | 0x80;
			fixup(&s, &in, cmd, attr, asize);
		}

		errno = 0;
		ret = bpf(cmd, (union bpf_attr *)attr, asize);
		err = errno;
		if (ret == -1) {
			if (!errno_known(err)) {
				fprintf(stderr, "bpf(cmd %d, size %u): -1 with unknown errno %d\n", cmd,
					asize, err);
				abort();
			}
		} else if (ret < 0) {
			fprintf(stderr, "bpf(cmd %d, size %u) returned %d\n", cmd, asize, ret);
			abort();
		} else if (cmd_returns_fd(cmd)) {
			if (ret <= 2 || fcntl(ret, F_GETFD) < 0 || find_fd(&s, ret)) {
				fprintf(stderr, "bpf(cmd %d) returned %d: not a new fd\n", cmd, ret);
				abort();
			}
			if (s.nfds == MAX_FDS) {
				close(ret);
			} else {
				struct map_info *m = &s.fds[s.nfds++];

				m->fd = ret;
				m->is_map = cmd == BPF_MAP_CREATE; /* GET_FD_BY_ID: sizes unknown */
				m->type = get_u32(attr, asize, OFF(map_type));
				m->key_size = get_u32(attr, asize, OFF(key_size));
				m->value_size = get_u32(attr, asize, OFF(value_size));
			}
		} else if (ret != 0) {
			fprintf(stderr, "bpf(cmd %d) returned %d, want 0 or -1\n", cmd, ret);
			abort();
		}
		free_allocs(&s);
	}
	free_allocs(&s);
	for (int i = 0; i < s.nfds; i++) {
		if (close(s.fds[i].fd)) {
			fprintf(stderr, "close(%d) of a bpf fd failed: errno %d\n", s.fds[i].fd, errno);
			abort();
		}
	}
	if (lowest_free_fd() != base_fd) {
		fprintf(stderr, "fd leak: lowest free fd %d, was %d\n", lowest_free_fd(), base_fd);
		abort();
	}
	return 0;
}

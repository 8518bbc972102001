/* The kernel's BTF, read once from the running kernel's file (vmlinux.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "verifier/env.h"

#define VMLINUX_BTF_PATH "/sys/kernel/btf/vmlinux"

static struct btf *vmlinux;
static pthread_once_t vmlinux_once = PTHREAD_ONCE_INIT;

/* The whole file at path (sysfs reports its size, but a copy elsewhere may be a pipe: read to
 * the end), or NULL. */
static u8 *read_file(const char *path, u32 *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 20, len = 0;
	u8 *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (len == cap || !buf) {
			u8 *nb;

			if (buf)
				cap *= 2;
			if (cap > BTF_MAX_SIZE * 2u)
				break;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 && len) {
				sys_close(fd);
				*size = (u32)len;
				return buf;
			}
			break;
		}
		len += (size_t)n;
	}
	sys_close(fd);
	free(buf);
	return NULL;
}

struct btf *btf_parse_blob(const u8 *data, u32 size, int *err)
{
	struct vlog log = { 0 };
	struct btf *btf = calloc(1, sizeof(*btf));

	if (!btf) {
		*err = -ENOMEM;
		return NULL;
	}
	/* (btf_parse() keeps copies of the sections: the caller's bytes can go) */
	*err = btf_parse(btf, data, size, &log);
	if (*err) {
		btf_free_parsed(btf);
		return NULL;
	}
	return btf;
}

struct btf *btf_parse_file(const char *path, int *err)
{
	struct btf *btf;
	u32 size = 0;
	u8 *data;

	errno = 0;
	data = read_file(path, &size);
	if (!data) {
		*err = errno ? -errno : -EINVAL;
		return NULL;
	}
	btf = btf_parse_blob(data, size, err);
	free(data);
	return btf;
}

void btf_free_parsed(struct btf *btf)
{
	if (btf) {
		btf_free_data(btf);
		free(btf);
	}
}

static void vmlinux_load(void)
{
	const char *path = getenv("USERBPF_VMLINUX_BTF");
	int err;

	vmlinux = btf_parse_file(path && *path ? path : VMLINUX_BTF_PATH, &err);
	(void)err; /* no kernel BTF: btf_vmlinux() says NULL */
}

const struct btf *btf_vmlinux(void)
{
	pthread_once(&vmlinux_once, vmlinux_load);
	return vmlinux;
}

u32 btf_find_by_name_kind(const struct btf *btf, const char *name, u32 kind)
{
	for (u32 id = 1; id < btf->nr_types; id++) {
		const struct btf_type *t = btf->types[id];
		const char *n;

		if (BTF_INFO_KIND(t->info) != kind)
			continue;
		n = btf_str_by_offset(btf, t->name_off);
		if (n && !strcmp(n, name))
			return id;
	}
	return 0;
}

long btf_member_offset(const struct btf *btf, u32 id, const char *name)
{
	const struct btf_type *t = btf_skip_modifiers(btf, id, NULL);
	const struct btf_member *m;
	u32 kind;

	if (!t)
		return -1;
	kind = BTF_INFO_KIND(t->info);
	if (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION)
		return -1;
	m = (const struct btf_member *)(t + 1);
	for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++, m++) {
		u32 bits = BTF_INFO_KFLAG(t->info) ? BTF_MEMBER_BIT_OFFSET(m->offset) : m->offset;
		const char *n = btf_str_by_offset(btf, m->name_off);
		long off;

		if (bits % 8)
			continue; /* (a bitfield: none of ours) */
		if (n && *n && !strcmp(n, name))
			return bits / 8;
		if ((!n || !*n) && (off = btf_member_offset(btf, m->type, name)) >= 0)
			return bits / 8 + off;
	}
	return -1;
}
/* The kernel's struct name, its id found once into *id. */
static u32 cached_struct(u32 *id, const char *name)
{
	const struct btf *btf;

	/* (a race computes the same id twice) */
	if (!__atomic_load_n(id, __ATOMIC_RELAXED) && (btf = btf_vmlinux()))
		__atomic_store_n(id, btf_find_by_name_kind(btf, name, BTF_KIND_STRUCT),
				 __ATOMIC_RELAXED);
	return __atomic_load_n(id, __ATOMIC_RELAXED);
}

u32 btf_vmlinux_task_struct(void)
{
	static u32 id;

	return cached_struct(&id, "task_struct");
}

u32 btf_vmlinux_cgroup(void)
{
	static u32 id;

	return cached_struct(&id, "cgroup");
}

u32 btf_find_func(const struct btf *btf, const char *name)

{
	return btf_find_by_name_kind(btf, name, BTF_KIND_FUNC);
}

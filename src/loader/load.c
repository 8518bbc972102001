/* The loader's public API: opening (options, a private copy of the image, then elf.c's parse),
 * loading through the backend, closing, and the accessors.
 *
 * Load order: .BTF (BPF_BTF_LOAD, best effort), maps (create; global data: fill key 0 with the section's bytes, then freeze
 * .rodata), then each program (build its instructions with reloc.c, BPF_PROG_LOAD).  Any
 * failure closes every fd created so far, so an object is either fully loaded or not at all.
 * The backend follows bpf()'s contract; its -1/errno is turned into a negative errno once, in
 * backend().  Options follow the sz/last-field contract of the bpf() attr (GUIDE.md, 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/vmlinux.h"
#include "loader.h"

int ld_err(const struct userbpf_object *obj, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!obj->errbuf || !obj->errbuf_size)
		return err;
	n = snprintf(obj->errbuf, obj->errbuf_size, "%s: ", obj->name);
	if (n >= 0 && (size_t)n < obj->errbuf_size) {
		va_start(ap, fmt);
		vsnprintf(obj->errbuf + n, obj->errbuf_size - n, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Calls the backend and returns its result, or the negative errno it failed with. */
static int backend(const struct userbpf_object *obj, int cmd, union bpf_attr *attr)
{
	int ret;

	errno = 0;
	ret = obj->bpf(cmd, attr, sizeof(*attr));
	if (ret < 0)
		return errno ? -errno : -EIO; /* a backend that forgot errno: still a failure */
	return ret;
}

/* Copies the caller's options (sz bytes of them) into o, refusing unknown non-zero bytes. */
static int opts_copy(const struct userbpf_object_opts *opts, struct userbpf_object_opts *o)
{
	const size_t end = offsetof(struct userbpf_object_opts, userbpf_object_opts__last_field) +
			   sizeof(opts->userbpf_object_opts__last_field);

	memset(o, 0, sizeof(*o));
	if (!opts)
		return 0;
	if (opts->sz < sizeof(opts->sz))
		return -EINVAL;
	for (size_t i = end; i < opts->sz; i++)
		if (((const u8 *)opts)[i])
			return -EINVAL;
	memcpy(o, opts, opts->sz < end ? opts->sz : end);
	return 0;
}

static int obj_new(const struct userbpf_object_opts *opts, const char *dflt_name,
		   struct userbpf_object **objp)
{
	struct userbpf_object_opts o;
	struct userbpf_object *obj;
	const char *name;
	int err;

	err = opts_copy(opts, &o);
	if (err) {
		/* The error buffer is not trusted either when the options are malformed. */
		return err;
	}
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return -ENOMEM;
	name = o.name ? o.name : dflt_name;
	snprintf(obj->name, sizeof(obj->name), "%s", name);
	obj->bpf = o.bpf ? o.bpf : bpf;
	obj->errbuf = o.errbuf;
	obj->errbuf_size = o.errbuf_size;
	if (obj->errbuf && obj->errbuf_size)
		obj->errbuf[0] = '\0';
	obj->log_buf = o.log_buf;
	obj->log_size = o.log_size;
	obj->log_level = o.log_level;
	obj->btf_fd = -1;
	obj->kconfig_map = -1;
	if (o.pin_root_path) {
		obj->pin_root = strdup(o.pin_root_path);
		if (!obj->pin_root) {
			free(obj);
			return -ENOMEM;
		}
	}
	if (o.btf_custom_path) {
		obj->btf_custom_path = strdup(o.btf_custom_path);
		if (!obj->btf_custom_path) {
			free(obj->pin_root);
			free(obj);
			return -ENOMEM;
		}
	}
	if (o.kconfig) {
		obj->kconfig = strdup(o.kconfig);
		if (!obj->kconfig) {
			free(obj->btf_custom_path);
			free(obj->pin_root);
			free(obj);
			return -ENOMEM;
		}
	}
	*objp = obj;
	return 0;
}

static int pin_path_of(const struct userbpf_object *obj, const struct userbpf_map *m,
		       char **out);

/* Parses the image now owned by obj; frees obj on failure. */
static int obj_open(struct userbpf_object *obj, struct userbpf_object **objp)
{
	int err = ld_elf_parse(obj);

	for (size_t i = 0; !err && i < obj->nmaps; i++) {
		obj->maps[i].obj = obj;
		if (obj->maps[i].def.pinning == 1) /* LIBBPF_PIN_BY_NAME */
			err = pin_path_of(obj, &obj->maps[i], &obj->maps[i].pin_path);
	}
	if (err) {
		userbpf_object_close(obj);
		return err;
	}
	*objp = obj;
	return 0;
}

USERBPF_API int userbpf_object_open_mem(const void *buf, size_t size,
					const struct userbpf_object_opts *opts,
					struct userbpf_object **objp)
{
	struct userbpf_object *obj;
	int err;

	if (!objp || (!buf && size))
		return -EINVAL;
	*objp = NULL;
	err = obj_new(opts, "mem", &obj);
	if (err)
		return err;
	obj->image = malloc(size ? size : 1);
	if (!obj->image) {
		err = ld_err(obj, -ENOMEM, "out of memory for a %zu-byte object", size);
		userbpf_object_close(obj);
		return err;
	}
	if (size)
		memcpy(obj->image, buf, size);
	obj->image_size = size;
	return obj_open(obj, objp);
}

USERBPF_API int userbpf_object_open_file(const char *path, const struct userbpf_object_opts *opts,
					 struct userbpf_object **objp)
{
	struct userbpf_object *obj;
	const char *base;
	struct stat st;
	size_t got = 0;
	int fd, err;

	if (!objp || !path)
		return -EINVAL;
	*objp = NULL;
	base = strrchr(path, '/');
	err = obj_new(opts, base ? base + 1 : path, &obj);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = ld_err(obj, -errno, "cannot open '%s': %s", path, strerror(errno));
		goto free_obj;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = ld_err(obj, -EINVAL, "'%s' is not a regular file", path);
		goto close_fd;
	}
	/* off_t to size_t: a file larger than the address space cannot be read. */
	if ((unsigned long long)st.st_size > SIZE_MAX) {
		err = ld_err(obj, -EFBIG, "'%s' is too large", path);
		goto close_fd;
	}
	obj->image = malloc(st.st_size ? st.st_size : 1);
	if (!obj->image) {
		err = ld_err(obj, -ENOMEM, "out of memory for '%s'", path);
		goto close_fd;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, (char *)obj->image + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = ld_err(obj, n ? -errno : -EIO, "cannot read '%s': %s", path,
				     n ? strerror(errno) : "file shrank");
			goto close_fd;
		}
		got += n;
	}
	obj->image_size = got;
	close(fd);
	return obj_open(obj, objp);

close_fd:
	close(fd);
free_obj:
	userbpf_object_close(obj);
	return err;
}

/* Copies a name into a kernel object name: at most 15 characters of [A-Za-z0-9_.]. */
static void obj_name(char dst[LD_OBJ_NAME_LEN], const char *src)
{
	size_t i;

	for (i = 0; i < LD_OBJ_NAME_LEN - 1 && src[i]; i++) {
		char c = src[i];

		dst[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '.'
			     ? c
			     : '_';
	}
	dst[i] = '\0';
}

/* The kernel-visible name libbpf gives a global data map: the object's name up to its first
 * '.', cut to leave room for the section's name (7 characters at least), then the section's
 * name (".rodata" of globals.bpf.o: "globals.rodata"); a ".data.x" section's alone. */
static void internal_name(const struct userbpf_object *obj, const char *sec,
			  char dst[LD_OBJ_NAME_LEN])
{
	size_t base = strcspn(obj->name, "."), sfx = strlen(sec), pfx;
	char name[LD_OBJ_NAME_LEN];

	if (sfx < 7)
		sfx = 7;
	if (sfx >= LD_OBJ_NAME_LEN)
		sfx = LD_OBJ_NAME_LEN - 1;
	pfx = strchr(sec + 1, '.') ? 0 : LD_OBJ_NAME_LEN - sfx - 1;
	if (pfx > base)
		pfx = base;
	snprintf(name, sizeof(name), "%.*s%.*s", (int)pfx, obj->name, (int)sfx, sec);
	obj_name(dst, name);
}

/* BPF_MAP_CREATE with the object's BTF for the key and value, as libbpf does; a backend that
 * refuses it (an older kernel, a value type it cannot take) gets the map without, as libbpf
 * retries.  Returns the fd or -errno. */
static int create_map(struct userbpf_object *obj, union bpf_attr *attr,
		      const struct ld_map_def *def)
{
	int fd;

	if (obj->btf_fd >= 0 && def->btf_value_type_id) {
		attr->btf_fd = (u32)obj->btf_fd;
		attr->btf_key_type_id = def->btf_key_type_id;
		attr->btf_value_type_id = def->btf_value_type_id;
		fd = backend(obj, BPF_MAP_CREATE, attr);
		attr->btf_fd = attr->btf_key_type_id = attr->btf_value_type_id = 0;
		if (fd >= 0)
			return fd;
	}
	return backend(obj, BPF_MAP_CREATE, attr);
}

/* A map of maps' template: a map made from the inner definition for BPF_MAP_CREATE's
 * inner_map_fd, closed once the outer map exists (named "<outer>.inner", as libbpf does). */
static int inner_template(struct userbpf_object *obj, const struct userbpf_map *m)
{
	char name[LD_OBJ_NAME_LEN + 8];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = m->def.inner->type;
	attr.key_size = m->def.inner->key_size;
	attr.value_size = m->def.inner->value_size;
	attr.max_entries = m->def.inner->max_entries;
	attr.map_flags = m->def.inner->map_flags;
	attr.numa_node = m->def.inner->numa_node;
	attr.map_extra = m->def.inner->map_extra;
	snprintf(name, sizeof(name), "%.*s.inner", LD_OBJ_NAME_LEN - 7, m->name);
	obj_name(attr.map_name, name);
	fd = create_map(obj, &attr, m->def.inner);
	if (fd < 0)
		return ld_err(obj, fd,
			      "map '%s': BPF_MAP_CREATE of its inner map template failed: %s "
			      "(type %u, key %u, value %u, max_entries %u, flags 0x%x)",
			      m->name, strerror(-fd), attr.map_type, attr.key_size,
			      attr.value_size, attr.max_entries, attr.map_flags);
	return fd;
}

/* A map of maps' initial inner maps (all maps exist by now), or with progs a program array's
 * initial programs (all programs are loaded by now). */
static int map_fill_slots(struct userbpf_object *obj, const struct userbpf_map *m, bool progs)
{
	if (m->reused && !progs) /* a reused map's contents are left as they are, as libbpf does */
		return 0;
	for (u32 i = 0; m->init_slots && m->def.prog_values == progs && i < m->def.max_entries;
	     i++) {
		union bpf_attr attr;
		u32 fd;
		int err;

		if (!m->init_slots[i])
			continue;
		/* (a program left out of the load leaves its slot empty) */
		if (progs && obj->progs[m->init_slots[i] - 1].fd < 0)
			continue;
		fd = progs ? (u32)obj->progs[m->init_slots[i] - 1].fd
			   : (u32)obj->maps[m->init_slots[i] - 1].fd;
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (u32)m->fd;
		attr.key = (u64)(uintptr_t)&i;
		attr.value = (u64)(uintptr_t)&fd;
		err = backend(obj, BPF_MAP_UPDATE_ELEM, &attr);
		if (err < 0)
			return ld_err(obj, err, "map '%s': setting value %u to %s '%s' failed: %s",
				      m->name, i, progs ? "program" : "map",
				      progs ? obj->progs[m->init_slots[i] - 1].name
					    : obj->maps[m->init_slots[i] - 1].name,
				      strerror(-err));
	}
	return 0;
}

/* The path a map pinned by name lives at: "<pin root>/<name>", malloc'd into *out. */
static int pin_path_of(const struct userbpf_object *obj, const struct userbpf_map *m,
		       char **out)
{
	const char *root = obj->pin_root ? obj->pin_root : "/sys/fs/bpf";
	size_t n = strlen(root) + 1 + strlen(m->name) + 1;

	if (n > 4096)
		return ld_err(obj, -ENAMETOOLONG, "map '%s': pin path too long", m->name);
	*out = malloc(n);
	if (!*out)
		return ld_err(obj, -ENOMEM, "out of memory");
	snprintf(*out, n, "%s/%s", root, m->name);
	return 0;
}

/* A map with a pin path: the map already pinned there, if any, becomes m's (m->reused),
 * provided it is of m's definition, as libbpf reuses it.  0 (m->fd set or not) or -errno. */
static int map_reuse_pinned(struct userbpf_object *obj, struct userbpf_map *m, const char *path)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (u64)(uintptr_t)path;
	fd = backend(obj, BPF_OBJ_GET, &attr);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return ld_err(obj, fd, "map '%s': couldn't retrieve the map pinned at '%s': %s",
			      m->name, path, strerror(-fd));
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (u32)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (u64)(uintptr_t)&info;
	err = backend(obj, BPF_OBJ_GET_INFO_BY_FD, &attr);
	if (err < 0 || info.type != m->def.type || info.key_size != m->def.key_size ||
	    info.value_size != m->def.value_size || info.max_entries != m->def.max_entries ||
	    info.map_flags != m->def.map_flags || info.map_extra != m->def.map_extra) {
		close(fd);
		return ld_err(obj, -EINVAL,
			      "map '%s': couldn't reuse the map pinned at '%s': parameter mismatch",
			      m->name, path);
	}
	m->fd = fd;
	m->reused = true;
	return 0;
}

static int map_pin(struct userbpf_object *obj, struct userbpf_map *m, const char *path)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (u64)(uintptr_t)path;
	attr.bpf_fd = (u32)m->fd;
	err = backend(obj, BPF_OBJ_PIN, &attr);
	if (err < 0)
		return ld_err(obj, err, "map '%s': pinning at '%s' failed: %s", m->name, path,
			      strerror(-err));
	return 0;
}

static int map_create_new(struct userbpf_object *obj, struct userbpf_map *m);

/* Creates m, or with a pin path reuses or pins it.  Another loader pinning the same path
 * between our look and our pin (EEXIST) gets one more look, as libbpf gives it. */
static int map_create(struct userbpf_object *obj, struct userbpf_map *m)
{
	const char *path = m->pin_path;
	int err = 0;

	/* a perf event array without a size gets a slot per CPU, as libbpf gives it */
	if (m->def.type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && !m->def.max_entries)
		m->def.max_entries = (u32)userbpf_num_possible_cpus();
	if (!path)
		return map_create_new(obj, m);
	for (int tries = 0; !err && tries < 2; tries++) {
		err = map_reuse_pinned(obj, m, path);
		m->pinned = m->reused;
		if (err || m->reused)
			return err;
		err = map_create_new(obj, m);
		if (!err)
			err = map_pin(obj, m, path);
		m->pinned = !err;
		if (err != -EEXIST || tries)
			break;
		close(m->fd);
		m->fd = -1;
		err = 0;
	}
	return err;
}

static int map_create_new(struct userbpf_object *obj, struct userbpf_map *m)
{
	union bpf_attr attr;
	u32 zero = 0;
	int fd, err, inner = -1;

	if (m->def.inner) {
		inner = inner_template(obj, m);
		if (inner < 0)
			return inner;
	}
	memset(&attr, 0, sizeof(attr));
	attr.inner_map_fd = inner >= 0 ? (u32)inner : 0;
	attr.map_type = m->def.type;
	attr.key_size = m->def.key_size;
	attr.value_size = m->def.value_size;
	attr.max_entries = m->def.max_entries;
	attr.map_flags = m->def.map_flags;
	attr.numa_node = m->def.numa_node;
	attr.map_extra = m->def.map_extra;
	if (m->global_data)
		internal_name(obj, m->name, attr.map_name);
	else
		obj_name(attr.map_name, m->name);
	fd = create_map(obj, &attr, &m->def);
	if (inner >= 0)
		close(inner);
	if (fd < 0)
		return ld_err(obj, fd,
			      "map '%s': BPF_MAP_CREATE failed: %s (type %u, key %u, "
			      "value %u, max_entries %u, flags 0x%x)",
			      m->name, strerror(-fd), m->def.type, m->def.key_size,
			      m->def.value_size, m->def.max_entries, m->def.map_flags);
	m->fd = fd;
	if (obj->secs[m->sec].kind != SEC_DATA && (int)(m - obj->maps) != obj->kconfig_map)
		return 0;
	if (m->init) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		attr.key = (u64)(uintptr_t)&zero;
		attr.value = (u64)(uintptr_t)m->init;
		err = backend(obj, BPF_MAP_UPDATE_ELEM, &attr);
		if (err < 0)
			return ld_err(obj, err, "map '%s': filling the global data failed: %s",
				      m->name, strerror(-err));
	}
	if (m->frozen) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = fd;
		err = backend(obj, BPF_MAP_FREEZE, &attr);
		/* Freezing lets a verifier treat const globals as known values; a backend without
		 * BPF_MAP_FREEZE (EOPNOTSUPP) still runs the program correctly. */
		if (err < 0 && err != -EOPNOTSUPP)
			return ld_err(obj, err, "map '%s': BPF_MAP_FREEZE failed: %s", m->name,
				      strerror(-err));
	}
	return 0;
}

/* .BTF through BPF_BTF_LOAD, with what clang leaves to the loader filled in.  A backend that
 * refuses it (or has no BTF) only costs the programs their func/line info: not an error. */
static int obj_btf_load(struct userbpf_object *obj)
{
	union bpf_attr attr;
	size_t size = 0;
	int fd, err;
	u8 *copy = ld_btf_prepared(obj, &size, &err);

	if (err == -ENOMEM)
		return err;
	if (copy) {
		memset(&attr, 0, sizeof(attr));
		attr.btf = (u64)(uintptr_t)copy;
		attr.btf_size = (u32)size;
		fd = backend(obj, BPF_BTF_LOAD, &attr);
		if (fd >= 0)
			obj->btf_fd = fd;
	}
	free(copy);
	return 0;
}

/* BPF_PROG_LOAD's attr for prog (built), without a log. */
static void prog_attr(const struct userbpf_object *obj, const struct userbpf_program *prog,
		      union bpf_attr *a)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = prog->type;
	attr.expected_attach_type = prog->attach_type;
	attr.attach_btf_id = prog->attach_btf_id;
	attr.prog_flags = prog->prog_flags;
	attr.insn_cnt = prog->insn_cnt;
	attr.insns = (u64)(uintptr_t)prog->insns;
	attr.license = (u64)(uintptr_t)obj->license;
	attr.kern_version = obj->kversion;
	obj_name(attr.prog_name, prog->name);
	if (obj->btf_fd >= 0 && (prog->nfunc_info || prog->nline_info)) {
		attr.prog_btf_fd = obj->btf_fd;
		attr.func_info_rec_size = sizeof(struct bpf_func_info);
		attr.func_info = (u64)(uintptr_t)prog->func_info;
		attr.func_info_cnt = prog->nfunc_info;
		attr.line_info_rec_size = sizeof(struct bpf_line_info);
		attr.line_info = (u64)(uintptr_t)prog->line_info;
		attr.line_info_cnt = prog->nline_info;
	}
	*a = attr;
}

/* A tracing program's target, named after the section's '/' (libbpf's way): a tp_btf
 * program's tracepoint (typedef btf_trace_<name>), an iterator's bpf_iter_<name> and the
 * function the others trace, all in the kernel's BTF. */
static int attach_target(struct userbpf_object *obj, struct userbpf_program *prog)
{
	const char *sec = prog->sec_name + (prog->sec_name[0] == '?');
	const char *target = strchr(sec, '/');
	const struct btf *btf = btf_vmlinux();
	char name[256];
	u32 id;

	prog->attach_btf_id = 0;
	if (prog->type != BPF_PROG_TYPE_TRACING)
		return 0;
	if (!target || !target[1])
		return ld_err(obj, -EINVAL, "program '%s' (section '%s'): no attach target after "
			      "'/'", prog->name, prog->sec_name);
	target++;
	if (!btf)
		return ld_err(obj, -ESRCH, "program '%s': the kernel's BTF is needed to find '%s' "
			      "(/sys/kernel/btf/vmlinux)", prog->name, target);
	if (prog->attach_type == BPF_TRACE_RAW_TP || prog->attach_type == BPF_TRACE_ITER) {
		snprintf(name, sizeof(name), "%s%s",
			 prog->attach_type == BPF_TRACE_ITER ? "bpf_iter_" : "btf_trace_", target);
		id = btf_find_by_name_kind(btf, name, prog->attach_type == BPF_TRACE_ITER
							      ? BTF_KIND_FUNC : BTF_KIND_TYPEDEF);
	} else {
		id = btf_find_func(btf, target);
	}
	if (!id)
		return ld_err(obj, -ESRCH, "program '%s': failed to find kernel BTF type ID of "
			      "'%s'", prog->name, target);
	prog->attach_btf_id = id;
	return 0;
}

static int prog_load(struct userbpf_object *obj, struct userbpf_program *prog)
{
	union bpf_attr attr;
	int fd, err;

	if (prog->type == BPF_PROG_TYPE_UNSPEC)
		return ld_err(obj, -EINVAL,
			      "program '%s': missing BPF prog type, check ELF section name '%s'",
			      prog->name, prog->sec_name);
	err = ld_prog_build(obj, prog);
	if (!err)
		err = attach_target(obj, prog);
	if (err)
		return err;
	prog_attr(obj, prog, &attr);
	if (obj->log_buf && obj->log_size && obj->log_level) {
		attr.log_buf = (u64)(uintptr_t)obj->log_buf;
		attr.log_size = obj->log_size;
		attr.log_level = obj->log_level;
	}
	fd = backend(obj, BPF_PROG_LOAD, &attr);
	if (fd < 0 && obj->log_buf && obj->log_size && !obj->log_level) {
		/* Load again only to capture the verifier's explanation. */
		attr.log_buf = (u64)(uintptr_t)obj->log_buf;
		attr.log_size = obj->log_size;
		attr.log_level = 1;
		obj->log_buf[0] = '\0';
		err = backend(obj, BPF_PROG_LOAD, &attr);
		if (err >= 0)
			close(err); /* loads with a log: report the first failure anyway */
	}
	if (fd < 0 && obj->log_buf && obj->log_size)
		ld_core_explain_log(prog, obj->log_buf, obj->log_size);
	/* (userbpf's bpf() refuses a type it does not load as the kernel refuses one it was built
	 * without, EINVAL and no log: say why) */
	if (fd == -EINVAL && obj->bpf == bpf && !prog_type_supported(prog->type))
		return ld_err(obj, fd, "program '%s' (section '%s'): BPF_PROG_LOAD failed: %s: "
			      "the program type is not supported by userbpf",
			      prog->name, prog->sec_name, strerror(-fd));
	if (fd < 0)
		return ld_err(obj, fd, "program '%s' (section '%s'): BPF_PROG_LOAD failed: %s",
			      prog->name, prog->sec_name, strerror(-fd));
	prog->fd = fd;
	return 0;
}

static void close_fds(struct userbpf_object *obj)
{
	for (size_t i = 0; i < obj->nprogs; i++) {
		if (obj->progs[i].fd >= 0)
			close(obj->progs[i].fd);
		obj->progs[i].fd = -1;
	}
	for (size_t i = 0; i < obj->nmaps; i++) {
		if (obj->maps[i].fd >= 0)
			close(obj->maps[i].fd);
		obj->maps[i].fd = -1;
		obj->maps[i].reused = false;
		obj->maps[i].pinned = false;
	}
	if (obj->btf_fd >= 0)
		close(obj->btf_fd);
	obj->btf_fd = -1;
}

USERBPF_API int userbpf_object_load(struct userbpf_object *obj)
{
	int err = 0;

	if (!obj)
		return -EINVAL;
	if (obj->loaded)
		return ld_err(obj, -EALREADY, "already loaded");
	err = ld_kconfig_fill(obj);
	if (!err)
		err = obj_btf_load(obj);
	for (size_t i = 0; i < obj->nmaps && !err; i++)
		err = map_create(obj, &obj->maps[i]);
	for (size_t i = 0; i < obj->nmaps && !err; i++)
		err = map_fill_slots(obj, &obj->maps[i], false);
	for (size_t i = 0; i < obj->nprogs && !err; i++)
		if (obj->progs[i].autoload)
			err = prog_load(obj, &obj->progs[i]);
	for (size_t i = 0; i < obj->nmaps && !err; i++)
		err = map_fill_slots(obj, &obj->maps[i], true);
	if (err) {
		close_fds(obj);
		return err;
	}
	obj->loaded = true;
	return 0;
}

USERBPF_API void userbpf_object_close(struct userbpf_object *obj)
{
	if (!obj)
		return;
	close_fds(obj);
	for (size_t i = 0; i < obj->nprogs; i++) {
		free(obj->progs[i].insns);
		free(obj->progs[i].func_info);
		free(obj->progs[i].line_info);
		free(obj->progs[i].poisoned);
	}
	free(obj->progs);
	for (size_t i = 0; i < obj->nmaps; i++) {
		free(obj->maps[i].def.inner);
		free(obj->maps[i].init_slots);
		free(obj->maps[i].pin_path);
		free(obj->maps[i].init_owned);
	}
	free(obj->maps);
	free(obj->relocs);
	free(obj->funcs);
	free(obj->secs);
	if (obj->elf)
		elf_end(obj->elf);
	free(obj->image);
	free(obj->pin_root);
	free(obj->btf_custom_path);
	free(obj->kconfig);
	free(obj->kcfg);
	ld_core_free(obj);
	free(obj);
}

USERBPF_API const char *userbpf_object_name(const struct userbpf_object *obj)
{
	return obj->name;
}

USERBPF_API const char *userbpf_object_license(const struct userbpf_object *obj)
{
	return obj->license;
}

USERBPF_API unsigned int userbpf_object_kversion(const struct userbpf_object *obj)
{
	return obj->kversion;
}

USERBPF_API size_t userbpf_object_program_count(const struct userbpf_object *obj)
{
	return obj->nprogs;
}

USERBPF_API struct userbpf_program *userbpf_object_program(const struct userbpf_object *obj, size_t i)
{
	return i < obj->nprogs ? &obj->progs[i] : NULL;
}

USERBPF_API struct userbpf_program *userbpf_object_find_program(const struct userbpf_object *obj,
							  const char *name)
{
	for (size_t i = 0; i < obj->nprogs; i++)
		if (!strcmp(obj->progs[i].name, name))
			return &obj->progs[i];
	return NULL;
}

USERBPF_API const char *userbpf_program_name(const struct userbpf_program *prog)
{
	return prog->name;
}

USERBPF_API const char *userbpf_program_section(const struct userbpf_program *prog)
{
	return prog->sec_name;
}

USERBPF_API enum bpf_prog_type userbpf_program_type(const struct userbpf_program *prog)
{
	return prog->type;
}

USERBPF_API enum bpf_attach_type userbpf_program_expected_attach_type(const struct userbpf_program *prog)
{
	return prog->attach_type;
}

USERBPF_API size_t userbpf_program_insn_cnt(const struct userbpf_program *prog)
{
	return prog->insn_cnt;
}

USERBPF_API const struct bpf_insn *userbpf_program_insns(const struct userbpf_program *prog)
{
	return prog->insns;
}

USERBPF_API int userbpf_program_fd(const struct userbpf_program *prog)
{
	return prog->fd;
}

USERBPF_API bool userbpf_program_autoload(const struct userbpf_program *prog)
{
	return prog->autoload;
}

USERBPF_API int userbpf_program_set_autoload(struct userbpf_object *obj,
					     struct userbpf_program *prog, bool autoload)
{
	if (!obj || !prog || prog < obj->progs || prog >= obj->progs + obj->nprogs) {
		errno = EINVAL;
		return -1;
	}
	if (obj->loaded) {
		errno = EBUSY;
		return -1;
	}
	prog->autoload = autoload;
	return 0;
}

USERBPF_API size_t userbpf_object_map_count(const struct userbpf_object *obj)
{
	return obj->nmaps;
}

USERBPF_API struct userbpf_map *userbpf_object_map(const struct userbpf_object *obj, size_t i)
{
	return i < obj->nmaps ? &obj->maps[i] : NULL;
}

USERBPF_API struct userbpf_map *userbpf_object_find_map(const struct userbpf_object *obj,
							const char *name)
{
	for (size_t i = 0; i < obj->nmaps; i++)
		if (!strcmp(obj->maps[i].name, name))
			return &obj->maps[i];
	return NULL;
}

USERBPF_API const char *userbpf_map_name(const struct userbpf_map *map)
{
	return map->name;
}

USERBPF_API enum bpf_map_type userbpf_map_type(const struct userbpf_map *map)
{
	return map->def.type;
}

USERBPF_API unsigned int userbpf_map_key_size(const struct userbpf_map *map)
{
	return map->def.key_size;
}

USERBPF_API unsigned int userbpf_map_value_size(const struct userbpf_map *map)
{
	return map->def.value_size;
}

USERBPF_API unsigned int userbpf_map_max_entries(const struct userbpf_map *map)
{
	return map->def.max_entries;
}

USERBPF_API unsigned int userbpf_map_flags(const struct userbpf_map *map)
{
	return map->def.map_flags;
}

USERBPF_API int userbpf_map_fd(const struct userbpf_map *map)
{
	return map->fd;
}

USERBPF_API int userbpf_map_set_pin_path(struct userbpf_map *map, const char *path)
{
	char *copy = NULL;

	if (!map || map->fd >= 0 || map->obj->loaded)
		return -EBUSY;
	if (path && !(copy = strdup(path)))
		return -ENOMEM;
	free(map->pin_path);
	map->pin_path = copy;
	return 0;
}

USERBPF_API const char *userbpf_map_pin_path(const struct userbpf_map *map)
{
	return map->pin_path;
}

USERBPF_API bool userbpf_map_is_pinned(const struct userbpf_map *map)
{
	return map->pinned;
}

USERBPF_API int userbpf_map_pin(struct userbpf_map *map, const char *path)
{
	char *copy;
	int err;

	if (map->pinned) /* once, where it is */
		return path && map->pin_path && strcmp(path, map->pin_path) ? -EEXIST : 0;
	if (!path)
		path = map->pin_path;
	if (!path || map->fd < 0)
		return -EINVAL;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	err = map_pin(map->obj, map, copy);
	if (err) {
		free(copy);
		return err;
	}
	free(map->pin_path);
	map->pin_path = copy;
	map->pinned = true;
	return 0;
}

USERBPF_API int userbpf_map_unpin(struct userbpf_map *map, const char *path)
{
	if (path && map->pin_path && strcmp(path, map->pin_path))
		return -EINVAL;
	if (!path)
		path = map->pin_path;
	if (!path)
		return -EINVAL;
	if (unlink(path))
		return -errno;
	map->pinned = false;
	return 0;
}

USERBPF_API int userbpf_map_set_initial_value(struct userbpf_map *map, const void *data,
					      size_t size)
{
	u8 *copy;

	/* (not .kconfig, which the load fills from the kernel's config, as libbpf refuses) */
	if (!map->global_data || size != map->def.value_size || !data ||
	    (int)(map - map->obj->maps) == map->obj->kconfig_map) {
		errno = EINVAL;
		return -1;
	}
	if (map->fd >= 0) {
		errno = EBUSY;
		return -1;
	}
	copy = malloc(size);
	if (!copy) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(copy, data, size);
	free(map->init_owned);
	map->init = map->init_owned = copy;
	return 0;
}

USERBPF_API const void *userbpf_map_initial_value(const struct userbpf_map *map, size_t *size)
{
	if (!map->global_data)
		return NULL;
	if (size)
		*size = map->def.value_size;
	return map->init;
}

int userbpf_program_reload(struct userbpf_object *obj, const struct userbpf_program *prog,
			   char *log_buf, size_t log_size, unsigned int log_level)
{
	union bpf_attr attr;
	int fd;

	if (!obj || !prog || prog->fd < 0 || (log_size && !log_buf) || log_size > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	prog_attr(obj, prog, &attr);
	if (log_size) {
		log_buf[0] = '\0';
		attr.log_buf = (u64)(uintptr_t)log_buf;
		attr.log_size = (u32)log_size;
		attr.log_level = log_level;
	}
	fd = backend(obj, BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

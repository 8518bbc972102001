/* __kconfig externs, as libbpf (1.1) resolves them: `extern int LINUX_KERNEL_VERSION __kconfig;`,
 * `extern bool CONFIG_X __kconfig __weak;`...  Each is a slot in one read-only array map named
 * ".kconfig", filled at load and frozen, which the program reads through BPF_PSEUDO_MAP_VALUE
 * loads (so the verifier sees the values as constants and prunes what they disable).
 *
 * Layout (libbpf's): externs ordered by alignment (largest first), then size (smallest first),
 * then name, each at the next offset its alignment allows.  Values:
 *   LINUX_KERNEL_VERSION        KERNEL_VERSION() of /proc/version_signature's (Ubuntu) or
 *                               uname's release
 *   LINUX_HAS_BPF_COOKIE        whether the backend loads a kprobe program calling
 *                               bpf_get_attach_cookie()
 *   LINUX_HAS_SYSCALL_WRAPPER   whether a kprobe can be made on __<arch>_sys_bpf (the kprobe
 *                               PMU, else tracefs' kprobe_events)
 *   CONFIG_*                    the kconfig option's lines, then the kernel's config,
 *                               /boot/config-$(uname -r) or /proc/config.gz: y/n/m for bool,
 *                               tristate and char, numbers for integers (range-checked),
 *                               "strings" for char arrays (any error there: EINVAL)
 * Another LINUX_ name, or an unset extern that is not weak, fails the load as libbpf's does;
 * an unset weak one reads 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "loader.h"

#define KCONFIG_LINE_MAX 4096

int ld_kconfig_layout(struct userbpf_object *obj)
{
	size_t *order, n = obj->nkcfg;
	struct userbpf_map *m;
	u32 off = 0;

	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return ld_err(obj, -ENOMEM, "out of memory for %zu __kconfig externs", n);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* (insertion sort: a handful of externs) */
	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j > 0; j--) {
			const struct ld_kcfg *a = &obj->kcfg[order[j - 1]], *b = &obj->kcfg[order[j]];
			bool swap = a->align != b->align ? a->align < b->align
				    : a->sz != b->sz	 ? a->sz > b->sz
							 : strcmp(a->name, b->name) > 0;
			size_t t;

			if (!swap)
				break;
			t = order[j - 1];
			order[j - 1] = order[j];
			order[j] = t;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct ld_kcfg *k = &obj->kcfg[order[i]];

		off = (off + k->align - 1) / k->align * k->align;
		k->off = off;
		off += k->sz;
	}
	free(order);
	m = &obj->maps[obj->nmaps];
	memset(m, 0, sizeof(*m));
	m->name = ".kconfig";
	m->def.type = BPF_MAP_TYPE_ARRAY;
	m->def.key_size = sizeof(u32);
	m->def.value_size = off;
	m->def.max_entries = 1;
	m->def.map_flags = BPF_F_RDONLY_PROG;
	m->global_data = true;
	m->frozen = true;
	m->fd = -1;
	if (obj->btf_sec)
		m->def.btf_value_type_id = ld_btf_datasec_id(obj, obj->secs[obj->btf_sec].data,
							     obj->secs[obj->btf_sec].size, ".kconfig");
	/* (its externs become global variables: mmapable, as libbpf makes it) */
	if (m->def.btf_value_type_id)
		m->def.map_flags |= BPF_F_MMAPABLE;
	obj->kconfig_map = (int)obj->nmaps++;
	return 0;
}

static struct ld_kcfg *find_kcfg(struct userbpf_object *obj, const char *name)
{
	for (size_t i = 0; i < obj->nkcfg; i++)
		if (!strcmp(obj->kcfg[i].name, name))
			return &obj->kcfg[i];
	return NULL;
}

/* ---- setting values (libbpf's set_kcfg_value_*()) ---- */

static bool num_fits(const struct ld_kcfg *k, u64 v)
{
	u32 bits = k->sz * 8;

	if (k->sz >= 8)
		return true;
	if (k->is_signed)
		return v + (1ull << (bits - 1)) < (1ull << bits);
	return (v >> bits) == 0;
}

static int set_num(struct userbpf_object *obj, struct ld_kcfg *k, u8 *val, u64 v)
{
	if (k->type != KCFG_INT && k->type != KCFG_CHAR && k->type != KCFG_BOOL)
		return ld_err(obj, -EINVAL, "extern (kcfg) '%s': value '%llu' implies integer, "
				   "char, or boolean type", k->name, (unsigned long long)v);
	if (k->type == KCFG_BOOL && v > 1)
		return ld_err(obj, -EINVAL, "extern (kcfg) '%s': value '%llu' isn't boolean "
				   "compatible", k->name, (unsigned long long)v);
	if (k->type != KCFG_BOOL && !num_fits(k, v))
		return ld_err(obj, -ERANGE, "extern (kcfg) '%s': value '%llu' doesn't fit in %u "
				   "bytes", k->name, (unsigned long long)v, k->sz);
	switch (k->sz) {
	case 1: { u8 x = (u8)v; memcpy(val, &x, 1); break; }
	case 2: { u16 x = (u16)v; memcpy(val, &x, 2); break; }
	case 4: { u32 x = (u32)v; memcpy(val, &x, 4); break; }
	case 8: memcpy(val, &v, 8); break;
	default:
		return ld_err(obj, -EINVAL, "extern (kcfg) '%s': %u bytes", k->name, k->sz);
	}
	k->is_set = true;
	return 0;
}

static int set_tri(struct userbpf_object *obj, struct ld_kcfg *k, u8 *val, char c)
{
	u32 tri;

	switch (k->type) {
	case KCFG_BOOL:
		if (c == 'm')
			return ld_err(obj, -EINVAL, "extern (kcfg) '%s': value '%c' implies tristate "
					   "or char type", k->name, c);
		*val = c == 'y';
		break;
	case KCFG_TRISTATE:
		tri = c == 'y' ? 1 : c == 'm' ? 2 : 0; /* TRI_YES, TRI_MODULE, TRI_NO */
		memcpy(val, &tri, sizeof(tri));
		break;
	case KCFG_CHAR:
		*val = (u8)c;
		break;
	default:
		return ld_err(obj, -EINVAL, "extern (kcfg) '%s': value '%c' implies bool, tristate, "
				   "or char type", k->name, c);
	}
	k->is_set = true;
	return 0;
}

static int set_str(struct userbpf_object *obj, struct ld_kcfg *k, u8 *val, const char *v)
{
	size_t len = strlen(v);

	if (k->type != KCFG_CHAR_ARR)
		return ld_err(obj, -EINVAL, "extern (kcfg) '%s': value '%s' implies char array type",
			      k->name, v);
	if (len < 2 || v[len - 1] != '"')
		return ld_err(obj, -EINVAL, "extern (kcfg) '%s': invalid string config '%s'",
			      k->name, v);
	len -= 2; /* the quotes */
	if (len >= k->sz)
		len = k->sz - 1; /* cut, as libbpf (which warns) */
	memcpy(val, v + 1, len);
	val[len] = '\0';
	k->is_set = true;
	return 0;
}

/* ---- the kernel's config ---- */

/* One "CONFIG_X=value" line (libbpf's bpf_object__process_kconfig_line()). */
static int config_line(struct userbpf_object *obj, char *line, u8 *data)
{
	struct ld_kcfg *k;
	char *sep, *value, *end;
	size_t len;
	u64 num;

	if (strncmp(line, "CONFIG_", 7))
		return 0;
	sep = strchr(line, '=');
	if (!sep)
		return ld_err(obj, -EINVAL, "kernel config: failed to parse '%s': no separator",
			      line);
	len = strlen(line);
	if (line[len - 1] == '\n')
		line[len - 1] = '\0';
	*sep = '\0';
	if (!sep[1]) {
		*sep = '=';
		return ld_err(obj, -EINVAL, "kernel config: failed to parse '%s': no value", line);
	}
	k = find_kcfg(obj, line);
	if (!k || k->is_set)
		return 0;
	value = sep + 1;
	switch (*value) {
	case 'y':
	case 'n':
	case 'm':
		return set_tri(obj, k, data + k->off, *value);
	case '"':
		return set_str(obj, k, data + k->off, value);
	default:
		errno = 0;
		num = strtoull(value, &end, 0);
		if (errno || *end)
			return ld_err(obj, errno ? -errno : -EINVAL, "extern (kcfg) '%s': value '%s' "
					   "isn't a valid integer", k->name, value);
		if (k->type != KCFG_INT && k->type != KCFG_CHAR)
			return ld_err(obj, -EINVAL, "extern (kcfg) '%s': value '%s' implies integer "
					   "type", k->name, value);
		return set_num(obj, k, data + k->off, num);
	}
}

/* The kconfig option's lines, then (for externs still unset) the kernel's config. */
static int read_config_mem(struct userbpf_object *obj, u8 *data)
{
	char *copy = strdup(obj->kconfig), *line, *next;
	int err = 0;

	if (!copy)
		return ld_err(obj, -ENOMEM, "out of memory for the kconfig option");
	for (line = copy; line && *line && !err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		err = config_line(obj, line, data);
	}
	free(copy);
	return err;
}

static int read_config(struct userbpf_object *obj, u8 *data)
{
	char path[512], *line;
	struct utsname uts;
	gzFile f = NULL;
	int err = 0;

	memset(&uts, 0, sizeof(uts));
	if (!uname(&uts)) {
		snprintf(path, sizeof(path), "/boot/config-%s", uts.release);
		f = gzopen(path, "re"); /* (gzopen reads plain files too) */
	}
	if (!f)
		f = gzopen("/proc/config.gz", "re");
	if (!f)
		return ld_err(obj, -ENOENT, "__kconfig externs: cannot read the kernel's config "
				   "(/boot/config-%s, /proc/config.gz)", uts.release);
	line = malloc(KCONFIG_LINE_MAX);
	if (!line)
		err = ld_err(obj, -ENOMEM, "out of memory for the kernel's config");
	while (!err && gzgets(f, line, KCONFIG_LINE_MAX))
		err = config_line(obj, line, data);
	free(line);
	gzclose(f);
	return err;
}

/* ---- LINUX_ values ---- */

static u32 kernel_version(void)
{
	unsigned int major, minor, patch;
	struct utsname uts;
	FILE *f = fopen("/proc/version_signature", "re"); /* Ubuntu's real version */

	if (f) {
		int n = fscanf(f, "%*s %*s %u.%u.%u\n", &major, &minor, &patch);

		fclose(f);
		if (n == 3)
			goto done;
	}
	if (uname(&uts) || sscanf(uts.release, "%u.%u.%u", &major, &minor, &patch) != 3)
		return 0;
done:
	return (major << 16) + (minor << 8) + (patch > 255 ? 255 : patch);
}

/* Whether the backend loads a kprobe program that calls bpf_get_attach_cookie(). */
static bool has_bpf_cookie(struct userbpf_object *obj)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_attach_cookie },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (u64)(uintptr_t)insns;
	a.insn_cnt = 2;
	a.license = (u64)(uintptr_t) "GPL";
	fd = obj->bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Whether the kernel takes a kprobe on its bpf() syscall's wrapper (libbpf's probe). */
static bool has_syscall_wrapper(void)
{
#if defined(__x86_64__)
	static const char sym[] = "__x64_sys_bpf";
#elif defined(__i386__)
	static const char sym[] = "__ia32_sys_bpf";
#elif defined(__aarch64__)
	static const char sym[] = "__arm64_sys_bpf";
#else
	static const char sym[] = "";
#endif
	struct perf_event_attr attr;
	char buf[256];
	FILE *f;
	int type = -1, fd;

	if (!sym[0])
		return false;
	f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	if (type >= 0) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = (u32)type;
		attr.config1 = (u64)(uintptr_t)sym;
		fd = (int)syscall(__NR_perf_event_open, &attr, getpid(), -1, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			close(fd);
		return fd >= 0;
	}
	/* no kprobe PMU: tracefs' kprobe_events, an event added and removed at once */
	fd = open(access("/sys/kernel/debug", F_OK) ? "/sys/kernel/tracing/kprobe_events"
						  : "/sys/kernel/debug/tracing/kprobe_events",
		  O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(buf, sizeof(buf), "p:kprobes/userbpf_%s_%d %s", sym, (int)getpid(), sym);
	if (write(fd, buf, strlen(buf)) < 0) {
		close(fd);
		return false;
	}
	snprintf(buf, sizeof(buf), "-:kprobes/userbpf_%s_%d", sym, (int)getpid());
	if (write(fd, buf, strlen(buf)) < 0) {
		/* (left behind: nothing more to do about it) */
	}
	close(fd);
	return true;
}

int ld_kconfig_fill(struct userbpf_object *obj)
{
	struct userbpf_map *m;
	bool need_config = false;
	u8 *data;
	int err = 0;

	if (obj->kconfig_map < 0)
		return 0;
	m = &obj->maps[obj->kconfig_map];
	data = calloc(1, m->def.value_size ? m->def.value_size : 1);
	if (!data)
		return ld_err(obj, -ENOMEM, "out of memory for the .kconfig map");
	for (size_t i = 0; i < obj->nkcfg && !err; i++) {
		struct ld_kcfg *k = &obj->kcfg[i];

		k->is_set = false;
		if (!strncmp(k->name, "CONFIG_", 7)) {
			need_config = true;
		} else if (!strcmp(k->name, "LINUX_KERNEL_VERSION")) {
			err = set_num(obj, k, data + k->off, kernel_version());
		} else if (!strcmp(k->name, "LINUX_HAS_BPF_COOKIE")) {
			err = set_num(obj, k, data + k->off, has_bpf_cookie(obj));
		} else if (!strcmp(k->name, "LINUX_HAS_SYSCALL_WRAPPER")) {
			err = set_num(obj, k, data + k->off, has_syscall_wrapper());
		} else if (strncmp(k->name, "LINUX_", 6) || !k->is_weak) {
			err = ld_err(obj, -EINVAL, "extern (kcfg) '%s': unrecognized virtual extern",
				     k->name);
		}
	}
	if (!err && need_config && obj->kconfig) {
		err = read_config_mem(obj, data);
		need_config = false;
		for (size_t i = 0; i < obj->nkcfg && !err; i++)
			need_config |= !strncmp(obj->kcfg[i].name, "CONFIG_", 7) &&
				       !obj->kcfg[i].is_set;
		/* (whatever went wrong in a config, libbpf says EINVAL; the message says what) */
		if (err && err != -ENOMEM)
			err = -EINVAL;
	}
	if (!err && need_config) {
		err = read_config(obj, data);
		if (err && err != -ENOMEM)
			err = -EINVAL;
	}
	for (size_t i = 0; i < obj->nkcfg && !err; i++)
		if (!obj->kcfg[i].is_set && !obj->kcfg[i].is_weak)
			err = ld_err(obj, -ESRCH, "extern '%s' (strong): not resolved",
				     obj->kcfg[i].name);
	if (err) {
		free(data);
		return err;
	}
	free(m->init_owned);
	m->init_owned = data;
	m->init = data;
	return 0;
}

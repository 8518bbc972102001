/* BPF_PROG_LOAD's CO-RE relocations (core_relo_cnt, core_relos, core_relo_rec_size): applied to
 * the program's instructions against the kernel's BTF, as 6.18's check_core_relo() and
 * bpf_core_apply() do, with the engine in btf/core_relo.c.
 *
 * As the kernel:
 *   - they are read only with func_info or line_info (check_btf_info() calls us last), so a
 *     load without those ignores them, and the local types are the prog_btf_fd's;
 *   - the record size is 16 to 252, a multiple of 4, bytes beyond ours zero ("nonzero tailing
 *     record in core_relo", E2BIG, our size written back); insn_off a multiple of 8 inside the
 *     program; a record that fails fails the load (EINVAL, ENOMEM...);
 *   - the engine's lines go into the verifier log, program name empty, preceded per relocation
 *     by "CO-RE relocating STRUCT foo: found target candidate [id]" per candidate;
 *   - candidate lists come from a cache of 31 slots hashed on the essential name (jhash, seed
 *     0), matched by name only (a struct's list then serves an enum of the
 *     same name, whose match fails); at log level 2 the cache is printed after each lookup.
 *     The kernel's cache is shared by every loader on the machine, ours by this process.
 *     Kernel modules' BTF is not read: a type only a module has finds no candidate here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "btf/core_relo.h"
#include "btf/vmlinux.h"
#include "map/jhash.h"
#include "verifier/env.h"

#define MIN_CORE_RELO_SIZE sizeof(struct bpf_core_relo)
#define MAX_CORE_RELO_SIZE 252u
#define CAND_CACHE_SIZE 31 /* the kernel's VMLINUX_ and MODULE_CAND_CACHE_SIZE */

struct cand_cache {
	char *name; /* the essential name */
	u32 name_len;
	u32 kind;
	u32 cnt;
	u32 *ids;
};

static struct cand_cache *vmlinux_cache[CAND_CACHE_SIZE], *module_cache[CAND_CACHE_SIZE];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static u32 cache_slot(const char *name, u32 len)
{
	return jhash(name, len, 0) % CAND_CACHE_SIZE;
}

static void cache_free(struct cand_cache *cc)
{
	if (cc) {
		free(cc->name);
		free(cc->ids);
		free(cc);
	}
}

static struct cand_cache *cache_find(struct cand_cache **cache, const char *name, u32 len)
{
	struct cand_cache *cc = cache[cache_slot(name, len)];

	return cc && cc->name_len == len && !strncmp(cc->name, name, len) ? cc : NULL;
}

/* Puts a copy of the list into its slot, evicting what was there.  NULL: out of memory. */
static struct cand_cache *cache_put(struct cand_cache **cache, const char *name, u32 len,
				    u32 kind, const struct core_cands *c)
{
	struct cand_cache **slot = &cache[cache_slot(name, len)], *cc;

	cache_free(*slot);
	*slot = NULL;
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return NULL;
	cc->name = strndup(name, len);
	cc->ids = malloc((c->len ? c->len : 1) * sizeof(u32));
	if (!cc->name || !cc->ids) {
		cache_free(cc);
		return NULL;
	}
	cc->name_len = len;
	cc->kind = kind;
	cc->cnt = c->len;
	for (u32 i = 0; i < c->len; i++)
		cc->ids[i] = c->v[i].id;
	*slot = cc;
	return cc;
}

static void print_cache(struct verifier_env *env, struct cand_cache **cache)
{
	for (int i = 0; i < CAND_CACHE_SIZE; i++) {
		const struct cand_cache *cc = cache[i];

		if (!cc)
			continue;
		verbose(env, "[%d]%s(", i, cc->name);
		for (u32 j = 0; j < cc->cnt; j++) {
			verbose(env, "%u", cc->ids[j]);
			if (j + 1 < cc->cnt)
				verbose(env, " ");
		}
		verbose(env, "), ");
	}
}

/* The candidates of local type id in the kernel's BTF, through the cache (cache_lock held):
 * the kernel's list for the name, or NULL and *err. */
static struct cand_cache *find_cands(struct verifier_env *env, const struct core_who *who,
				     u32 id, int *err)
{
	const struct btf *vmlinux = btf_vmlinux();
	const struct btf_type *t = btf_type_by_id(env->btf, id);
	const char *name = t ? btf_str_by_offset(env->btf, t->name_off) : NULL;
	struct core_cands found = { 0 };
	struct cand_cache *cc;
	u32 len;

	*err = -EINVAL;
	if (!vmlinux || !name || !*name)
		return NULL;
	len = core_essential_name_len(name);
	cc = cache_find(vmlinux_cache, name, len);
	if (cc && cc->cnt)
		return cc;
	if (!cc) {
		*err = core_cands_add(who, env->btf, id, vmlinux, &found);
		if (!*err)
			cc = cache_put(vmlinux_cache, name, len, BTF_INFO_KIND(t->info), &found);
		free(found.v);
		if (*err || !cc) {
			*err = *err ? *err : -ENOMEM;
			return NULL;
		}
		if (cc->cnt)
			return cc;
	}
	/* none in vmlinux: the kernel looks in its modules' BTF next; userbpf has none */
	cc = cache_find(module_cache, name, len);
	if (!cc) {
		found.len = 0;
		cc = cache_put(module_cache, name, len, BTF_INFO_KIND(t->info), &found);
	}
	*err = cc ? 0 : -ENOMEM;
	return cc;
}

static void log_to_verifier(void *arg, const char *fmt, va_list ap)
{
	struct verifier_env *env = arg;

	if (vlog_on(&env->log))
		vlog_vprintf(&env->log, fmt, ap);
}

/* One relocation, the kernel's bpf_core_apply(). */
static int apply_one(struct verifier_env *env, const struct bpf_core_relo *relo, u32 idx)
{
	const struct core_who who = { .kernel = true, .prog = "", .print = log_to_verifier,
				      .arg = env };
	bool need_cands = relo->kind != BPF_CORE_TYPE_ID_LOCAL;
	struct core_cands cands = { 0 };
	struct core_res res;
	int err = 0;

	if (relo->type_id && !btf_type_by_id(env->btf, relo->type_id)) { /* (0 is void) */
		verbose(env, "relo #%u: bad type id %u\n", idx, relo->type_id);
		return -EINVAL;
	}
	if (need_cands) {
		const struct btf *vmlinux = btf_vmlinux();
		struct cand_cache *cc;

		pthread_mutex_lock(&cache_lock);
		cc = find_cands(env, &who, relo->type_id, &err);
		if (!cc) {
			verbose(env, "target candidate search failed for %d\n", (int)relo->type_id);
			goto out;
		}
		cands.v = calloc(cc->cnt ? cc->cnt : 1, sizeof(*cands.v));
		if (!cands.v) {
			err = -ENOMEM;
			goto out;
		}
		for (u32 i = 0; i < cc->cnt; i++) {
			verbose(env, "CO-RE relocating %s %s: found target candidate [%u]\n",
				btf_kind_str(cc->kind), cc->name, cc->ids[i]);
			cands.v[i] = (struct core_cand){ vmlinux, cc->ids[i] };
		}
		cands.len = cc->cnt;
	}
	err = core_calc_relo_insn(&who, relo, (int)idx, env->btf, &cands, &res);
	if (!err)
		err = core_patch_insn(&who, env->insns, env->len, relo->insn_off / 8, relo, (int)idx,
				      &res);
out:
	if (need_cands) {
		free(cands.v);
		if (env->log.level & 2) { /* BPF_LOG_LEVEL2 */
			verbose(env, "vmlinux_cand_cache:");
			print_cache(env, vmlinux_cache);
			verbose(env, "\nmodule_cand_cache:");
			print_cache(env, module_cache);
			verbose(env, "\n");
		}
		pthread_mutex_unlock(&cache_lock);
	}
	return err;
}

int check_core_relo(struct verifier_env *env, const union bpf_attr *attr, union bpf_attr *uattr,
		    u32 usize)
{
	u32 n = attr->core_relo_cnt, rsize = attr->core_relo_rec_size;
	const u8 *urec = u64_to_voidp(attr->core_relos);
	const u32 ksize = sizeof(struct bpf_core_relo);

	if (!n)
		return 0;
	if (n > INT32_MAX / ksize)
		return -EINVAL;
	if (rsize < MIN_CORE_RELO_SIZE || rsize > MAX_CORE_RELO_SIZE || rsize % 4)
		return -EINVAL;
	/* one record at a time, as the kernel copies and applies them */
	for (u32 i = 0; i < n; i++, urec += rsize) {
		struct bpf_core_relo relo;
		int err;

		if (!urec)
			return -EFAULT;
		if (rec_tail_zero(urec, ksize, rsize)) {
			verbose(env, "nonzero tailing record in core_relo");
			tell_rec_size(uattr, usize, offsetof(union bpf_attr, core_relo_rec_size), ksize);
			return -E2BIG;
		}
		memcpy(&relo, urec, ksize);
		if (relo.insn_off % 8 || relo.insn_off / 8 >= env->len) {
			verbose(env, "Invalid core_relo[%u].insn_off:%u prog->len:%u\n", i,
				relo.insn_off, env->len);
			return -EINVAL;
		}
		err = apply_one(env, &relo, i);
		if (err)
			return err;
	}
	return 0;
}
